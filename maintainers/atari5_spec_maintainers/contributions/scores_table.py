"""Reading scores.csv: header, cells and rows checked against its Table Schema, each problem with line and column."""

from __future__ import annotations

import csv
import difflib
import io
import math
import re
from typing import Any

from atari5_spec.data.ids import UnknownGameError, game_aliases, resolve_game
from atari5_spec.data.input_gate import delimiter_problem, number_problem, row_width_problem
from atari5_spec.data.limits import ASCII_INTEGER, MAX_NUMBER_CHARS, control_character_problem, non_ascii_digit
from atari5_spec.data.rawvalues import split_spread
from atari5_spec.data.validation import Problem
from atari5_spec_maintainers.contributions.metadata import formula_problem
from atari5_spec_maintainers.contributions.model import CURVE_COLUMNS, FAR_BELOW_RANDOM, MAX_SEEDS_PER_GAME, NUMBER, SubmittedScore


# The longest cell any column may hold (the schema's longest free text, provenance, allows 200): checked, with the
# score cell's own limit (raw_value's maxLength), before any pattern or lookup sees a cell.
MAX_CELL_CHARS = 1_000


def _cell_length_problems(values: dict[str, str], label: str, line: int, raw_value_max: int | None
                          ) -> list[Problem]:
    """Cells too long for their column: checked first, before any pattern, split or lookup sees a cell (then each
    cell's characters, in :func:`_parse_row`, before its patterns)."""
    problems = []
    for column, text in values.items():
        limit = (raw_value_max or MAX_CELL_CHARS) if column == "score" else MAX_CELL_CHARS
        if len(text) > limit:
            problems.append(Problem(label, line, column, f"the cell {text[:20]!r}... has {len(text):,} characters, "
                                                         f"more than the limit of {limit} for {column}",
                                    "write the value as the paper prints it (a score is a number, or 'mean ± std')"))
    return problems


def _records(text: str):
    """(first physical line, cells) of each CSV record; LF, CRLF and CR all end a line."""
    reader = csv.reader(io.StringIO(text, newline=""))
    previous = 0
    for cells in reader:
        yield previous + 1, cells
        previous = reader.line_num


def score_text_problem(text: str) -> tuple[str, str] | None:
    """(message, fix) when a score cell is not a plain finite number; None when it is (the input gate's rule,
    the one `score` and `aggregate` apply)."""
    problem = number_problem(text)
    return None if problem is None else tuple(problem)


MAX_INT64 = 2 ** 63 - 1  # pandas stores integer columns in 64 bits


def _run_id_problem(text: str) -> tuple[str, str] | None:
    """The seed cell under the one rule for run ids (data.ids.run_id), which aggregate's runs files follow too."""
    from atari5_spec.data.ids import RUN_ID_RULE, run_id

    if not text:
        return None
    try:
        run_id(text)
    except ValueError as error:
        return str(error).split(":")[0], f"give {RUN_ID_RULE}; runs a source names otherwise are numbered 0, 1, ..."
    return None


def _cell_problem(field: dict, text: str) -> str | None:
    """Type and constraint problems of a non-score cell, from its Table Schema field."""
    kind, constraints = field.get("type", "string"), field.get("constraints", {})
    if not text:
        return "a value is required" if constraints.get("required") else None
    value: Any = text
    if kind in ("integer", "number"):
        digit = non_ascii_digit(text)
        if digit:
            return f"{text!r} has the non-ASCII digit {digit!r} (U+{ord(digit):04X}): write the digits 0-9"
        if len(text) > MAX_NUMBER_CHARS:
            return f"{text[:20]!r}... has {len(text):,} characters, more than the limit of {MAX_NUMBER_CHARS}"
    if kind == "integer":
        if not ASCII_INTEGER.fullmatch(text):
            return f"{text!r} is not an integer"
        value = int(text)
        if abs(value) > MAX_INT64:
            return f"{text!r} does not fit in 64 bits"
    elif kind == "number":
        if not NUMBER.fullmatch(text):
            return f"{text!r} is not a plain number"
        value = float(text)
        if not math.isfinite(value):
            return f"{text!r} is not a finite number"
    if "minimum" in constraints and value < constraints["minimum"]:
        return f"{text!r} is below the minimum {constraints['minimum']}"
    if "maximum" in constraints and value > constraints["maximum"]:
        return f"{text!r} is above the maximum {constraints['maximum']}"
    if "maxLength" in constraints and len(text) > constraints["maxLength"]:
        return f"{text!r} is longer than {constraints['maxLength']} characters"
    if "pattern" in constraints and not re.fullmatch(constraints["pattern"].removeprefix("^").removesuffix("$"), text):
        return f"{text!r} does not match {constraints['pattern']}"
    return None


def header_problems(header: list[str], table_schema: dict, label: str) -> list[Problem]:
    """Missing, unknown or repeated columns (required fields must be present, any order)."""
    names = [f["name"] for f in table_schema["fields"]]
    required = [f["name"] for f in table_schema["fields"] if f.get("constraints", {}).get("required")]
    problems = []
    separated = delimiter_problem(header)
    if separated:
        return [Problem(label, 1, None, separated.message, f"{separated.fix}: {','.join(required)}")]
    renamed = set()
    for column in header:
        if column not in names:
            close = difflib.get_close_matches(column.strip().lower(), names, n=1)
            renamed.update(close)
            fix = f"rename it to {close[0]!r}" if close else f"remove the column (allowed: {', '.join(names)})"
            problems.append(Problem(label, 1, column, f"unknown column {column!r}", fix))
    for column in sorted({c for c in header if header.count(c) > 1}):
        problems.append(Problem(label, 1, column, "the column appears twice", "keep one of the two"))
    for column in required:
        if column not in header and column not in renamed:
            problems.append(Problem(label, 1, column, f"the required column {column!r} is missing",
                                    f"the header must hold {', '.join(required)} (optional: "
                                    f"{', '.join(n for n in names if n not in required)})"))
    return problems


def parse_scores(text: str, label: str, table_schema: dict, games, raw_value_max: int | None
                 ) -> tuple[list[SubmittedScore], list[Problem]]:
    """Every accepted row of a scores.csv, and a Problem for every cell, row or header that is wrong."""
    if not text.strip():
        return [], [Problem(label, None, None, "the file is empty",
                            "write the header game,score and then one row per game")]
    fields = {f["name"]: f for f in table_schema["fields"]}
    aliases = game_aliases(games)
    # random and human score per game_id, looked up once per row (a dict: .loc per cell was most of a check's time)
    baselines = dict(zip(games["game_id"], zip(games["random_score"], games["human_score"])))
    records = _records(text)
    try:
        _, header = next(records)
        header = [h.strip() for h in header]
        problems = header_problems(header, table_schema, label)
        if problems:
            return [], problems
        rows, seen, content_rows, runs = [], {}, 0, {}
        for line, cells in records:
            content_rows += any(c.strip() for c in cells) and not cells[0].lstrip().startswith("#")
            row, row_problems = _parse_row(line, cells, header, fields, label, aliases, baselines, raw_value_max)
            problems += row_problems
            if row is None:
                continue
            key = (row.game_id, row.seed, row.training_frames)
            if key in seen:
                what = row.game_id if row.seed is None else f"{row.game_id} seed {row.seed}"
                what += f" at {row.training_frames} frames" if row.training_frames is not None else ""
                problems.append(Problem(label, line, "game" if row.seed is None else "seed",
                                        f"duplicate row: {what} is given again (first on line {seen[key]})",
                                        "give one row per game for the published number, one per game and "
                                        "seed for per-seed scores, one per game, seed and training_frames for "
                                        "learning curves; remove the repeated row"))
                continue
            seen[key] = line
            if row.seed is not None:
                runs[row.game_id, row.training_frames] = count = runs.get((row.game_id, row.training_frames), 0) + 1
                if count == MAX_SEEDS_PER_GAME + 1:
                    at = "" if row.training_frames is None else f" at {row.training_frames} frames"
                    problems.append(Problem(label, line, "seed", f"{row.game_id}{at}: more than "
                                            f"{MAX_SEEDS_PER_GAME} seeds (runs); this is run {count}",
                                            f"give at most {MAX_SEEDS_PER_GAME} runs per game (the paper's runs, "
                                            "not repeated evaluations of one run)"))
            rows.append(row)
    except csv.Error as error:
        return [], [Problem(label, None, None, f"not valid CSV ({error})", "check the quotes in the file")]
    if not content_rows:
        problems.append(Problem(label, None, None, "the file has no score rows (scores for zero games)",
                                "add one row per game under the header: game,score"))
    return rows, problems


def _parse_row(line: int, cells: list[str], header: list[str], fields: dict, label: str, aliases,
               baselines: dict[str, tuple[float, float]], raw_value_max: int | None) -> tuple[SubmittedScore | None, list[Problem]]:
    """One data row: a SubmittedScore, or the Problems of its cells."""
    if not cells or not any(c.strip() for c in cells):
        return None, [Problem(label, line, None, "empty line", "remove the empty line")]
    if cells[0].lstrip().startswith("#"):
        return None, [Problem(label, line, None, "comment lines are not part of CSV",
                              "remove the line; put remarks in metadata.yaml under notes")]
    wide = row_width_problem(cells, header, header.index("score"))
    if wide:
        return None, [Problem(label, line, "score" if "thousands" in wide.message else None, *wide)]
    if len(cells) != len(header):
        return None, [Problem(label, line, None, f"{len(cells)} cells, but the header has {len(header)} columns",
                              "give one value per column (leave optional cells empty); quote text containing commas")]
    values = {column: cell.strip() for column, cell in zip(header, cells)}
    problems = _cell_length_problems(values, label, line, raw_value_max)  # before any pattern
    if problems:
        return None, problems
    raw_text = values["score"]
    split = split_spread(raw_text)
    if split:  # "mean ± std": the score is the mean; the spread goes to std
        if values.get("std"):
            return None, [Problem(label, line, "std", f"the score {raw_text!r} already gives the spread",
                                  "leave std empty, or write the score without '± spread'")]
        values["score"], values["std"] = split
    for column, text in values.items():
        field = fields[column]
        hidden = control_character_problem(text)
        if hidden:
            problems.append(Problem(label, line, column, f"the cell {hidden}",
                                    "type the cell again as plain characters (no terminal or formatting codes)"))
            continue
        risky = formula_problem(label, line, column, text) if field.get("type", "string") == "string" else (
            formula_problem(label, line, column, text) if text.startswith(("=", "@", "\t")) else None)
        if risky:
            problems.append(risky)
            continue
        if column == "game":
            continue
        message = (score_text_problem(text) if column == "score" else _run_id_problem(text) if column == "seed"
                   else _cell_problem(field, text))
        if isinstance(message, tuple):
            problems.append(Problem(label, line, column, *message))
        elif message:
            problems.append(Problem(label, line, column, message, field.get("description", "")))
    if raw_value_max and len(raw_text) > raw_value_max and not any(p.column == "score" for p in problems):
        problems.append(Problem(label, line, "score", f"{raw_text!r} is longer than {raw_value_max} characters",
                                "write the number with fewer digits, as the paper prints it"))
    curve = {c: values.get(c, "") for c in CURVE_COLUMNS}
    if values.get("training_frames"):
        if not values.get("seed"):
            problems.append(Problem(label, line, "seed", "a row with training_frames (a learning-curve score) "
                                    "needs the run's seed", "give the seed of the run the curve belongs to"))
        problems += [Problem(label, line, c, f"a learning-curve row needs {c}",
                             "write the rows with atari5-spec contribute curves, which fills points, first_frame "
                             "and last_frame") for c, text in curve.items() if not text]
        if all(curve.values()) and not (int(curve["first_frame"]) <= int(curve["last_frame"])
                                        <= int(values["training_frames"])):
            problems.append(Problem(label, line, "last_frame", "the averaged points must satisfy "
                                    "first_frame <= last_frame <= training_frames",
                                    "recompute the row from the curve"))
    else:
        problems += [Problem(label, line, c, f"{c} is only for learning-curve rows (with training_frames)",
                             "leave it empty, or give training_frames") for c, text in curve.items() if text]
    game_id = None
    if not any(p.column == "game" for p in problems):
        try:
            game_id = resolve_game(values["game"], aliases)
        except UnknownGameError as error:
            hint = f"did you mean {', '.join(error.suggestions)}? " if error.suggestions else ""
            problems.append(Problem(label, line, "game", f"unknown game {values['game']!r}",
                                    f"{hint}use an ALE id (battle_zone), Gymnasium id or printed name "
                                    "of one of the 57 games"))
        else:
            if game_id not in baselines:  # a real ALE game that data/games.csv does not list yet
                problems.append(Problem(label, line, "game", f"{values['game']!r} is the ALE game {game_id}, "
                                        "outside the 57-game benchmark, and data/games.csv does not list it yet",
                                        f"ask a maintainer to add {game_id} to data/games.csv with in_57 false "
                                        "(its rows are then stored and left out of fits), or remove the row"))
    if problems:
        return None, problems
    score = float(values["score"])
    random, human = baselines[game_id]
    # Games outside the 57 have no random and human scores, so no floor: they are stored, never scored.
    floor = random - FAR_BELOW_RANDOM * (human - random)
    if score < floor:
        gaps = (random - score) / (human - random)
        return None, [Problem(label, line, "score",
                              f"{values['score']} is {random - score:g} points below random play on {game_id} "
                              f"(random {random:g}, human {human:g}): {gaps:.1f} times the human-random gap below "
                              f"random, past the limit of {FAR_BELOW_RANDOM} (random - {FAR_BELOW_RANDOM} x "
                              f"(human - random) = {floor:g})",
                              "compare the game and the scale with the source (raw score, not normalised or "
                              "clipped); if the source really prints it, say so in metadata notes and ask a "
                              "maintainer")]
    def integer(column):
        return int(values[column]) if values.get(column) else None

    std = float(values["std"]) if values.get("std") else None
    # raw_value is the cell as the source wrote it (a non-breaking space stays one): it is the provenance.
    return SubmittedScore(line, game_id, raw_text, score, integer("seed"), std,
                          integer("training_frames"), integer("points"), integer("first_frame"), integer("last_frame"),
                          values.get("provenance") or None), []
