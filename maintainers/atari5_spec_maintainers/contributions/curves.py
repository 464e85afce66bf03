"""Learning curves to numbers: a run's score at a training budget, by one stated rule.

Many results after 2022 are published as learning curves (episode return
against training frames, one curve per game and seed) rather than as a table
of final numbers. To compare them with tables, and to score an agent at any
budget, each curve is reduced to one number per budget by this rule
(:data:`RULE`, recorded with every source that used it):

* per run, the points at or below the budget ``B`` whose return is not null;
* the run counts at ``B`` only if its last point is within ``max(2.5% of B,
  108,000 frames)`` of ``B`` (one maximal episode: with Atari 100k the last
  finished episode may end well before the budget; a run stopped early, such
  as one DreamerV3 run that ends at 29.6M frames, does not count at 200M);
* its score is the mean of the last ``points`` (default 5) such points.

The result is a row of a contribution's scores.csv (``game, seed,
training_frames, score, points, first_frame, last_frame``): the same format a
contributor uses for numbers typed in from a paper, so curves enter the data
package through `atari5-spec contribute add` like everything else.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

from atari5_spec.data.errors import InputError
from atari5_spec.data.limits import ASCII_INTEGER, ASCII_NUMBER, MAX_ABS_SCORE, MAX_NUMBER_CHARS, control_character_problem, escaped, refuse_nul, score_problem

__all__ = ["Run", "BudgetScore", "RULE", "DEFAULT_POINTS", "EPISODE_FRAMES", "read_curves",
           "budget_score", "curve_rows", "rule_text"]

DEFAULT_POINTS = 5
MAX_CURVES_BYTES = 512 << 20  # a curves file, unpacked: the largest study imported (57 games x 5 seeds) is far below
# A gzipped file unpacks to at most this many times its size (+1 MiB): logged curves pack about 5x (the 2023 sample,
# 62 KB -> 293 KB), so 50x is ten times that, while a 49 KB bomb that unpacked to 512 MB peaked at 1.26 GB.
MAX_UNPACK_RATIO = 50
MAX_FRAMES = 1e12  # training frames of one run: 5,000 times the 200M of the ALE protocol
MAX_SEED = 2**63 - 1
EPISODE_FRAMES = 108_000  # the standard evaluation episode cap: 30 minutes at 60 Hz
REACH_FRACTION = 0.025
RULE = ("per run, the mean of the last {points} curve points (non-null returns) at or below the budget B; "
        "a run counts at B only if its last point is within max(2.5% of B, 108000 frames) of B; "
        "runs are kept per seed (data/budget_scores.csv) and the per-game number is the {statistic} over the seeds "
        "that count at the final budget")


class Run(NamedTuple):
    """One learning curve: a game (as the source names it), a seed, frames and returns (None = no episode yet)."""

    game: str
    seed: int
    frames: tuple[float, ...]
    returns: tuple[float | None, ...]
    where: str  # how to find the run in its file (e.g. "run 17")


class BudgetScore(NamedTuple):
    """A run's score at a budget: the mean of ``points`` returns logged between first_frame and last_frame."""

    score: float
    points: int
    first_frame: int
    last_frame: int


def rule_text(points: int = DEFAULT_POINTS, statistic: str = "mean") -> str:
    return RULE.format(points=points, statistic=statistic)


def budget_score(frames: Sequence[float], returns: Sequence[float | None], budget: int,
                 points: int = DEFAULT_POINTS) -> BudgetScore | None:
    """The run's score at ``budget`` by :data:`RULE`, or None when the run does not count there."""
    logged = [(x, y) for x, y in zip(frames, returns) if y is not None and x <= budget]
    finished = [x for x, y in zip(frames, returns) if y is not None]
    if not logged or not finished or max(finished) < budget - max(REACH_FRACTION * budget, EPISODE_FRAMES):
        return None
    last = logged[-points:]
    return BudgetScore(math.fsum(y for _, y in last) / len(last), len(last), int(last[0][0]), int(last[-1][0]))


def _runs_from_json(data, label: str) -> list[Run]:
    if not isinstance(data, list):
        raise InputError(f"{label}: expected a JSON list of runs ({{task, seed, xs, ys}})")
    runs = []
    for index, run in enumerate(data):
        if not isinstance(run, dict) or not {"task", "seed", "xs", "ys"} <= set(run):
            raise InputError(f"{label}: run {index} lacks one of task, seed, xs, ys")
        xs, ys = run["xs"], run["ys"]
        if not isinstance(run["task"], str) or not run["task"].strip() or control_character_problem(run["task"]):
            raise InputError(f"{label}: run {index}: task must be a game name (text without control characters)")
        task = run["task"]
        where = f"{label}: run {index} ({escaped(task)})"
        seed = _seed(run["seed"], where)
        if not isinstance(xs, list) or not isinstance(ys, list) or len(xs) != len(ys):
            raise InputError(f"{where}: xs and ys must be lists of the same length")
        if any(not _finite_number(x) or not 0 <= x <= MAX_FRAMES for x in xs) or any(
                b < a for a, b in zip(xs, xs[1:])):
            raise InputError(f"{where}: xs must be increasing finite numbers of frames (0 to {MAX_FRAMES:.0e})")
        if any(y is not None and (not _finite_number(y) or score_problem(float(y))) for y in ys):
            raise InputError(f"{where}: ys must be finite numbers (at most {MAX_ABS_SCORE:.0e} in magnitude) or "
                             "null; NaN is not a return")
        game = task.split("_", 1)[1] if task.startswith("atari_") else task
        runs.append(Run(game, seed, tuple(xs), tuple(ys), f"run {index} ({task} seed {seed})"))
    return runs


def _finite_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _seed(value, where: str) -> int:
    """A run's seed: a whole number (1.7, NaN, text, null and lists are refused, never rounded)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value != int(value) or abs(value) > MAX_SEED:
        raise InputError(f"{where}: seed {escaped(repr(value))[:60]} is not a whole number")
    return int(value)


def _number_cell(text: str, where: str, column: str, empty_ok: bool = False) -> float | None:
    text = text.strip()
    if not text and empty_ok:
        return None
    if len(text) > MAX_NUMBER_CHARS or not ASCII_NUMBER.fullmatch(text):
        raise InputError(f"{where}, column {column!r}: {escaped(text[:40])!r} is not a number")
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"{where}, column {column!r}: {text[:40]!r} is beyond the range of a number")
    return value


def _runs_from_csv(text: str, label: str) -> list[Run]:
    refuse_nul(text, label)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, [])
    except csv.Error as error:
        raise InputError(f"{label}, line 1: {error}") from None
    if not {"game", "seed", "frames", "return"} <= set(header):
        raise InputError(f"{label}: a curves CSV needs the columns game,seed,frames,return")
    at = {column: header.index(column) for column in ("game", "seed", "frames", "return")}
    curves: dict[tuple[str, int], list[tuple[float, float | None]]] = {}
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            raise InputError(f"{label}, line {reader.line_num}: {error}") from None
        where = f"{label}, line {reader.line_num}"
        if not row:
            continue
        if len(row) != len(header):  # an unquoted "1,234" is two cells, never the number 1
            raise InputError(f"{where}: {len(row)} cells under a header of {len(header)} columns; "
                             + ("quote values that contain commas or remove the extra cells" if len(row) > len(header)
                                else "fill the missing cells"))
        seed_text = row[at["seed"]].strip()
        if not ASCII_INTEGER.fullmatch(seed_text) or len(seed_text) > MAX_NUMBER_CHARS:
            raise InputError(f"{where}, column 'seed': {escaped(seed_text[:40])!r} is not a whole number")
        frames = _number_cell(row[at["frames"]], where, "frames")
        if not 0 <= frames <= MAX_FRAMES:
            raise InputError(f"{where}, column 'frames': {frames:g} is not a number of frames (0 to {MAX_FRAMES:.0e})")
        value = _number_cell(row[at["return"]], where, "return", empty_ok=True)
        if value is not None and score_problem(value):
            raise InputError(f"{where}, column 'return': {score_problem(value)}")
        game = row[at["game"]]
        if not game.strip() or control_character_problem(game):
            raise InputError(f"{where}, column 'game': a game name without control characters is needed")
        key = (game, _seed(int(seed_text), where))
        curves.setdefault(key, []).append((frames, value))
    return [Run(game, seed, tuple(x for x, _ in sorted(points, key=lambda p: p[0])),
                tuple(y for _, y in sorted(points, key=lambda p: p[0])), f"{game} seed {seed}")
            for (game, seed), points in sorted(curves.items())]


def read_curves(path: str | Path) -> list[Run]:
    """Learning curves from a JSON list of runs (``{task, seed, xs, ys}``, optionally gzipped) or a CSV
    with columns ``game,seed,frames,return`` (one row per logged point)."""
    from atari5_spec.data.limits import load_json
    from atari5_spec.data.paths import read_regular_file

    path = Path(path)
    data = read_regular_file(path, str(path), MAX_CURVES_BYTES)  # a pipe or device is refused before opening
    if data[:2] == b"\x1f\x8b":
        try:
            limit = min(MAX_CURVES_BYTES, MAX_UNPACK_RATIO * len(data) + (1 << 20))  # in proportion to the file
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as unpacked:
                data = unpacked.read(limit + 1)  # bounded: a small file may unpack to gigabytes
        except (OSError, EOFError) as error:
            raise InputError(f"{path}: not a valid gzip file ({error})") from None
        if len(data) > limit:
            raise InputError(f"{path}: unpacks to more than {limit:,} bytes ({MAX_UNPACK_RATIO} times its size, "
                             f"at most {MAX_CURVES_BYTES:,}), far more than logged curves pack: give the curves of "
                             "one study, unpacked if they really are that repetitive")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"{path}, line {line}: not UTF-8 (byte {data[error.start]:#04x})") from None
    if text.lstrip().startswith("["):
        # Depth and number limits; NaN returns (a logged NaN) are read and handled like the json module did.
        return _runs_from_json(load_json(text, str(path), allow_nan=True), str(path))
    return _runs_from_csv(text, str(path))


def curve_rows(runs: Iterable[Run], budgets: Sequence[int], final_budget: int, points: int = DEFAULT_POINTS,
               where: str = "") -> list[dict]:
    """Rows of a contribution's scores.csv from learning curves, sorted by game, seed and budget.

    For every run: one row per budget it counts at (``training_frames`` set),
    and its final score (``training_frames`` empty: the run's score at
    ``final_budget``, stored in data/seed_scores.csv). ``where`` prefixes each
    row's provenance (e.g. the upstream file).
    """
    from atari5_spec.data.writing import format_value

    budgets = sorted(set(budgets) | {final_budget})
    rows = []
    for run in sorted(runs, key=lambda r: (r.game, r.seed)):
        for budget in budgets:
            found = budget_score(run.frames, run.returns, budget, points)
            if found is None:
                continue
            base = dict(game=run.game, seed=run.seed, score=format_value(found.score),
                        provenance=f"{where}{run.where}, points {found.first_frame}-{found.last_frame}".strip())
            rows.append(dict(base, training_frames=budget, points=found.points, first_frame=found.first_frame,
                             last_frame=found.last_frame))
            if budget == final_budget:
                rows.append(dict(base, training_frames=None, points=None, first_frame=None, last_frame=None))
    return sorted(rows, key=lambda r: (r["game"], r["seed"], r["training_frames"] is not None, r["training_frames"] or 0))
