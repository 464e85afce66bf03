"""Reading an agent's raw scores: files, standard input, ``--score`` arguments, Python objects.

Every accepted form becomes a list of :class:`Observation` (one per game and
seed) that remembers where it came from ("scores.csv, line 4"), so that every
error names the place to fix. :func:`group_runs` then resolves game names and
checks the scores: a number, finite, one per game unless seeds tell runs apart.

Accepted forms (columns/keys are case-insensitive):

* CSV with a header: ``game``, ``score`` and optionally ``seed``
  (also accepted: ``env``/``environment``/``game_id``; ``return``/``value``;
  ``run``). Blank lines and lines starting with ``#`` are skipped.
* JSON: ``{"game": score, ...}``, ``{"game": [score per seed, ...], ...}``,
  a list of records ``[{"game": ..., "score": ..., "seed": ...}, ...]``, or
  either of these under a top-level ``"scores"`` key.
* ``--score GAME=VALUE`` (repeatable; ``VALUE`` may be ``v1,v2,...`` for seeds).
* In Python: a dict game -> score or game -> per-seed scores (a list, a
  numpy array or a Series), an iterable of records (mappings, or
  (game, score[, seed]) tuples), a pandas Series game -> score (or indexed by
  (game, seed)), or a DataFrame in either shape researchers hold: *long*
  (columns game, score[, seed]) or *wide* (one row per seed, one column per
  game; a ``seed`` column or index names the seeds, else they are the row
  positions). pandas objects are read through their own methods: scoring
  never imports pandas.
"""

from __future__ import annotations

import io
import math
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, NamedTuple

from ..data.errors import InputError
from ..data.ids import UnknownGameError, resolve_game, run_id
from ..data.input_gate import parse_number, read_table, split_score_argument
from ..data.limits import MAX_RUNS_PER_GAME, MAX_SCORE_FILE_BYTES, MAX_SCORE_ROWS, load_json
from ..data.paths import read_regular_file

__all__ = ["Observation", "read_scores_file", "observations_from_text", "observations_from_arguments",
           "observations_from_object", "group_runs"]

GAME_COLUMNS = ("game", "env", "environment", "game_id")
SCORE_COLUMNS = ("score", "return", "value")
SEED_COLUMNS = ("seed", "run")

class Observation(NamedTuple):
    """One raw score as given: the game as spelled, the score (text or number), the seed, and where."""

    game: str
    score: Any
    seed: str | None
    where: str
    score_column: str | None = None  # the column the score was read from (a CSV file), named in its errors


# --- CSV ---------------------------------------------------------------------------------------------------

def _column(header: list[str], names: tuple[str, ...], source: str, required: bool) -> int | None:
    lowered = [h.strip().lower() for h in header]
    for name in names:
        if name in lowered:
            return lowered.index(name)
    if required:
        raise InputError(f"{source}, line 1: no {names[0]!r} column in the header {header!r} "
                         f"(expected columns: game, score and optionally seed)")
    return None


def observations_from_csv(text: str, source: str) -> list[Observation]:
    """Observations from CSV text with a header row (see the module docstring), read through the input gate."""
    table = read_table(text, source, SCORE_COLUMNS, MAX_SCORE_ROWS)
    header = table.header
    game_at = _column(header, GAME_COLUMNS, source, required=True)
    score_at = _column(header, SCORE_COLUMNS, source, required=True)
    seed_at = _column(header, SEED_COLUMNS, source, required=False)
    observations = []
    for number, row in table.rows:
        where = f"{source}, line {number}"
        if len(row) <= max(game_at, score_at):
            raise InputError(f"{where}: expected {len(header)} columns, found {len(row)}")
        seed = row[seed_at].strip() if seed_at is not None and seed_at < len(row) else ""
        observations.append(Observation(row[game_at].strip(), row[score_at], seed or None, where,
                                        header[score_at].strip()))
    if not observations:
        raise InputError(f"{source}: no scores (only a header)")
    return observations


# --- JSON --------------------------------------------------------------------------------------------------

def _top_level_lines(text: str) -> list[int]:
    """Line numbers where each element (array) or key (object) at the top level of a JSON text starts.

    A small scanner (strings and escapes aware), because the json module does
    not report positions, and errors should name the line to fix.
    """
    lines, depth, line, in_string, escaped, expecting = [], 0, 1, False, False, False
    for char in text:
        if char == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char in "[{":
            depth += 1
            if depth == 1:
                expecting = True
                continue
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 1:
            expecting = True
            continue
        if expecting and depth >= 1 and not char.isspace():
            lines.append(line)
            expecting = False
        if char == '"':
            in_string, escaped = True, False
    return lines


def _reject_duplicate_keys(source: str):
    def hook(pairs):
        result = dict(pairs)
        if len(result) < len(pairs):  # linear: count.count() per key was quadratic in the object's size
            seen = set()
            repeated = next(k for k, _ in pairs if k in seen or seen.add(k))
            raise InputError(f"{source}: key {repeated!r} appears twice in one JSON object")
        return result
    return hook


def _records(items: Iterable, source: str, lines: list[int] | None = None) -> list[Observation]:
    """Observations from records: mappings with game/score/seed keys, or (game, score[, seed]) sequences."""
    observations = []
    for index, item in enumerate(items, start=1):
        where = (f"{source}, line {lines[index - 1]} (record {index})" if lines and index <= len(lines)
                 else f"{source}, record {index}")
        if isinstance(item, Mapping):
            keys = {str(k).strip().lower(): k for k in item}
            game_key = next((keys[k] for k in GAME_COLUMNS if k in keys), None)
            score_key = next((keys[k] for k in SCORE_COLUMNS if k in keys), None)
            seed_key = next((keys[k] for k in SEED_COLUMNS if k in keys), None)
            if game_key is None or score_key is None:
                raise InputError(f"{where}: a record needs 'game' and 'score' (and optionally 'seed'); "
                                 f"found keys {sorted(map(str, item))}")
            game, score, seed = item[game_key], item[score_key], item[seed_key] if seed_key is not None else None
        elif isinstance(item, (list, tuple)) and len(item) in (2, 3):
            game, score, seed = item[0], item[1], item[2] if len(item) == 3 else None
        else:
            raise InputError(f"{where}: expected a record with game and score, found {item!r}")
        seed = None if seed is None or (isinstance(seed, float) and math.isnan(seed)) or seed == "" else str(seed)
        observations.append(Observation(str(game), score, seed, where))
    return observations


def _mapping(mapping: Mapping, source: str, lines: list[int] | None = None) -> list[Observation]:
    """Observations from {game: score} or {game: [score per seed]}."""
    observations = []
    for index, (game, value) in enumerate(mapping.items()):
        place = f"{source}, line {lines[index]}" if lines and index < len(lines) else source
        if isinstance(value, (list, tuple)) or (hasattr(value, "tolist") and getattr(value, "ndim", 0) == 1):
            values = list(value.tolist() if hasattr(value, "tolist") else value)
            if not values:
                raise InputError(f"{place}: no scores for {game!r} (empty list)")
            observations += [Observation(str(game), v, str(seed), f"{place} ({game!r}, seed {seed})")
                             for seed, v in enumerate(values)]
        else:
            observations.append(Observation(str(game), value, None, f"{place} ({game!r})"))
    return observations


def observations_from_json(text: str, source: str) -> list[Observation]:
    """Observations from JSON text (see the module docstring)."""
    # Depth and number limits; NaN is read here and refused by parse_number, which names the line.
    data = load_json(text, source, object_pairs_hook=_reject_duplicate_keys(source), allow_nan=True)
    if isinstance(data, (list, dict)) and len(data) > MAX_SCORE_ROWS:
        raise InputError(f"{source}: more than {MAX_SCORE_ROWS:,} records: give the final score of each run")
    lines = _top_level_lines(text)
    if isinstance(data, dict) and set(k.lower() for k in data) == {"scores"}:
        data, lines = next(iter(data.values())), None  # wrapped: line numbers are of the wrapper
    if isinstance(data, dict):
        observations = _mapping(data, source, lines)
    elif isinstance(data, list):
        observations = _records(data, source, lines)
    else:
        raise InputError(f"{source}: expected a JSON object {{game: score}} or a list of records")
    if not observations:
        raise InputError(f"{source}: no scores")
    return observations


# --- text, files, arguments, Python objects -----------------------------------------------------------------

def observations_from_text(text: str, source: str, kind: str | None = None) -> list[Observation]:
    """Observations from CSV or JSON text; ``kind`` 'csv'/'json', or None to tell by the first character."""
    if kind is None:
        kind = "json" if text.lstrip()[:1] in ("{", "[") else "csv"
    return observations_from_json(text, source) if kind == "json" else observations_from_csv(text, source)


def decoded_text(file: Path, label: str, max_bytes: int = MAX_SCORE_FILE_BYTES) -> str:
    """The UTF-8 text of a user's file (a BOM dropped), through the one path policy (a pipe or device is refused
    before opening, the size bounded); InputError naming ``label`` and the line of a byte that is not UTF-8."""
    data = read_regular_file(file, label, max_bytes)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"{label}, line {line}: not UTF-8 (byte {data[error.start]:#04x}): save the file as UTF-8") from None


def read_scores_file(path: str, stdin: io.TextIOBase | None = None) -> list[Observation]:
    """Observations from a CSV or JSON file, or from standard input when ``path`` is '-'."""
    if path == "-":
        import sys

        return observations_from_text((stdin or sys.stdin).read(), "<stdin>")
    file = Path(path)
    if not file.exists() and not file.is_symlink():
        raise InputError(f"{path}: no such file")
    text = decoded_text(file, path)
    suffix = file.suffix.lower()
    kind = "json" if suffix == ".json" else "csv" if suffix in (".csv", ".tsv", ".txt") else None
    return observations_from_text(text, file.name, kind)


def observations_from_arguments(arguments: Iterable[str]) -> list[Observation]:
    """Observations from ``--score GAME=VALUE`` arguments (``VALUE`` may be comma-separated seeds; a value that
    reads as a thousands-separated number is refused as ambiguous, see data.input_gate)."""
    observations = []
    for argument in arguments:
        where = f"--score {argument!r}"
        game, parts = split_score_argument(argument)
        if len(parts) == 1:
            observations.append(Observation(game, parts[0], None, where))
        else:
            observations += [Observation(game, v, str(seed), f"{where} (value {seed + 1})")
                             for seed, v in enumerate(parts)]
    return observations


def _is_frame(scores: Any) -> bool:
    return hasattr(scores, "columns") and hasattr(scores, "to_dict") and hasattr(scores, "index")


def _is_series(scores: Any) -> bool:
    return hasattr(scores, "index") and hasattr(scores, "to_dict") and not hasattr(scores, "columns") \
        and getattr(scores, "ndim", None) == 1


def _series_observations(series: Any, source: str) -> list[Observation]:
    """A Series game -> score, or indexed by (game, seed)."""
    if getattr(series.index, "nlevels", 1) == 2:
        return [Observation(str(game), value, str(seed), f"{source}, index ({game!r}, {seed!r})")
                for (game, seed), value in series.items()]
    if getattr(series.index, "nlevels", 1) != 1:
        raise InputError(f"{source}: a Series indexed by game, or by (game, seed); this one has "
                         f"{series.index.nlevels} index levels")
    return [Observation(str(game), value, None, f"{source}, index {game!r}") for game, value in series.items()]


def _wide_observations(frame: Any, source: str) -> list[Observation]:
    """One row per seed, one column per game; a 'seed' column or index names the seeds (else row positions)."""
    columns = [c for c in frame.columns if str(c).strip().lower() not in SEED_COLUMNS]
    seed_column = next((c for c in frame.columns if str(c).strip().lower() in SEED_COLUMNS), None)
    index_name = str(getattr(frame.index, "name", None) or "").strip().lower()
    observations = []
    for position, (label, row) in enumerate(zip(frame.index, frame.to_dict("records"))):
        seed = row[seed_column] if seed_column is not None else label if index_name in SEED_COLUMNS else position
        for game in columns:
            where = f"{source}, row {position + 1} (seed {seed}), column {game!r}"
            value = row[game]
            if isinstance(value, float) and math.isnan(value):
                raise InputError(f"{where}: no score (NaN); give every game a score in every row, or pass the runs "
                                 "in the long shape (game, score, seed) without the missing ones")
            observations.append(Observation(str(game), value, str(seed), where))
    return observations


def observations_from_object(scores: Any, source: str = "scores") -> list[Observation]:
    """Observations from a Python object (see the module docstring for the shapes); no pandas import.

    A path (str or os.PathLike) is the command's scores file, read through the same gate
    (:func:`read_scores_file`), so ``atari5_spec.score("scores.csv")`` is ``atari5-spec score scores.csv``.
    """
    if isinstance(scores, bytes):
        raise InputError(f"{source}: expected a dict, records, a DataFrame or a file path, not bytes")
    if isinstance(scores, (str, os.PathLike)):
        return read_scores_file(os.fspath(scores))
    if _is_frame(scores):
        names = {str(c).strip().lower() for c in scores.columns}
        if names & set(GAME_COLUMNS) or names & set(SCORE_COLUMNS):
            observations = _records(scores.to_dict("records"), f"{source} (DataFrame)")  # long
        else:
            observations = _wide_observations(scores, f"{source} (DataFrame)")
    elif _is_series(scores):
        observations = _series_observations(scores, f"{source} (Series)")
    elif isinstance(scores, Mapping):
        observations = _mapping(scores, source)
    else:
        try:
            observations = _records(list(scores), source)
        except TypeError:
            raise InputError(f"{source}: expected a dict, records or a DataFrame, not {type(scores).__name__}") from None
    if not observations:
        raise InputError(f"{source}: no scores")
    return observations


# --- checking and grouping ------------------------------------------------------------------------------------

def group_runs(observations: Iterable[Observation], aliases: Mapping[str, str]) -> dict[str, tuple[float, ...]]:
    """Per game id, the scores of its runs (one per seed), in the order given.

    Raises InputError naming the place for: an unknown game (with the closest
    names), a score that is not a finite number, a game given more than once
    without seeds, or the same seed twice.
    """
    # Per game: where each seed was first given, and the first row of the game. One dictionary
    # look-up per row keeps this linear (comparing each row with the game's earlier rows was quadratic).
    seeds_seen: dict[str, dict[str | None, str]] = {}
    values: dict[str, list[float]] = {}
    resolved: dict[str, str] = {}  # spelling -> game id: 200,000 rows name five games
    for observation in observations:
        game_id = resolved.get(observation.game)
        if game_id is None:
            try:
                game_id = resolved[observation.game] = resolve_game(observation.game, aliases)
            except UnknownGameError as error:
                raise InputError(f"{observation.where}: {error}") from None
        column = observation.score_column
        value = parse_number(observation.score, observation.where + (f", column {column!r}" if column else ""))
        if observation.seed is not None:
            try:  # one rule for seeds wherever runs are read (data.ids.RUN_ID_RULE): "-1" and "1.5" are refused
                observation = observation._replace(seed=str(run_id(observation.seed)))
            except ValueError as error:
                raise InputError(f"{observation.where}, seed: {error}") from None
        seen = seeds_seen.setdefault(game_id, {})
        if seen and (observation.seed is None or None in seen):
            first = next(iter(seen.values()))
            raise InputError(f"{observation.where}: {game_id} is given again (first at {first}); "
                             "give one score per game, or a seed for each run")
        if observation.seed in seen:
            raise InputError(f"{observation.where}: {game_id} seed {observation.seed} is given again "
                             f"(first at {seen[observation.seed]})")
        seen[observation.seed] = observation.where
        if len(seen) > MAX_RUNS_PER_GAME:  # the seed bootstrap holds resamples x runs numbers per game
            raise InputError(f"{observation.where}: {game_id} has more than {MAX_RUNS_PER_GAME:,} runs: give the "
                             "final score of each training run (seed), not of every episode or checkpoint")
        values.setdefault(game_id, []).append(value)
    if not values:
        raise InputError("no scores given")
    return {game: tuple(v) for game, v in values.items()}
