"""Reading researchers' own per-seed runs: ``agent,game,seed,score`` CSV files.

One row per agent, game and seed (or run), the raw game score, games in any
spelling :func:`atari5_spec.data.ids.resolve_game` accepts (``battle_zone``,
``ALE/BattleZone-v5``, "Battle Zone"). Columns are found by name, in any
order, case-insensitively; ``algorithm`` may stand for ``agent`` and ``run``
for ``seed``. Lines starting with ``#`` are comments.

Learning curves add one column saying when each score was measured (one
row per agent, game, seed and point): ``frames`` (or ``env_frames``),
emulator frames with skipped frames counted (the ALE's unit: 200M frames =
50M agent steps at frame skip 4), or ``steps`` (or ``agent_steps``), agent
steps, read only with the frame skip that turns them into frames. Every
value is a whole number in plain digits (``35,000``, ``10M`` and ``1.5`` are
refused, as for scores). Names that do not say which unit they count
(:data:`AMBIGUOUS_X_COLUMNS`: ``step``, ``timestep``, ``env_steps``,
``iteration``, ...) are refused with the fix, never guessed.

:func:`read_runs` checks the file and returns a tidy frame;
:func:`normalised_runs` turns it into one ``(n_seeds, n_games)`` matrix of
human-normalised scores per agent, as fractions (0 = random, 1.0 = the
average human, rliable's convention). Every problem is an
:class:`~atari5_spec.data.errors.InputError` naming the file, line and column and
saying how to fix it.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from atari5_spec.data.errors import InputError
from atari5_spec.data.frames import ATARI_100K_FRAMES
from atari5_spec.data.ids import UnknownGameError, game_aliases, resolve_game, run_id
from atari5_spec.data.input_gate import parse_count, parse_number, read_table
from atari5_spec.data.limits import MAX_AGENTS, MAX_RUNS_PER_GAME, MAX_SCORE_ROWS, escaped

__all__ = ["RUN_COLUMNS", "X_COLUMNS", "AMBIGUOUS_X_COLUMNS", "read_runs", "runs_from_text", "benchmark_runs",
           "implausible_runs",
           "AgentRuns", "normalised_runs", "AgentCurves", "normalised_curves"]

RUN_COLUMNS = {"agent": ("agent", "algorithm"), "game": ("game", "env", "environment"),
               "seed": ("seed", "run"), "score": ("score", "return")}
# The optional column of a learning curve: when each score was measured, in emulator frames or agent steps.
X_COLUMNS = {"frames": ("frames", "env_frames"), "steps": ("steps", "agent_steps")}
# Column names that do not say whether they count frames or agent steps (or environment steps with or without
# the skipped frames): refused, never guessed.
AMBIGUOUS_X_COLUMNS = ("step", "timestep", "timesteps", "time_step", "global_step", "env_step", "env_steps",
                       "environment_steps", "total_steps", "num_steps", "iteration", "iterations", "epoch",
                       "checkpoint", "frame", "num_frames")


def _find_columns(header: list[str], source: str) -> dict[str, int]:
    lowered = [h.strip().lower() for h in header]
    found = {}
    for column, names in RUN_COLUMNS.items():
        at = next((lowered.index(n) for n in names if n in lowered), None)
        if at is None:
            raise InputError(f"{source}, line 1: no {column!r} column in the header {header!r} "
                             "(expected the columns agent, game, seed, score)")
        found[column] = at
    return found


def _find_x_column(header: list[str], source: str, frame_skip: int | None) -> tuple[int, str] | None:
    """(position, unit) of the frames or steps column, None without one; ambiguous names are refused."""
    lowered = [h.strip().lower() for h in header]
    found = [(at, kind) for kind, names in X_COLUMNS.items() for at, name in enumerate(lowered) if name in names]
    unclear = [header[at].strip() for at, name in enumerate(lowered) if name in AMBIGUOUS_X_COLUMNS]
    if unclear and not found:
        raise InputError(f"{source}, line 1, column {unclear[0]!r}: the name does not say whether it counts "
                         "emulator frames or agent steps: rename it 'frames' (emulator frames, skipped frames "
                         "counted) or 'steps' (agent steps, with the frame skip: --frame-skip 4 in the standard "
                         "ALE protocol)")
    if len(found) > 1:
        raise InputError(f"{source}, line 1: columns {', '.join(repr(header[at].strip()) for at, _ in found)} both "
                         "say when a score was measured: keep one (frames, or agent steps with --frame-skip)")
    if not found:
        if frame_skip is not None:
            raise InputError(f"{source}, line 1: --frame-skip {frame_skip} goes with a 'steps' column, and the "
                             "header has none: add the steps column, or leave out --frame-skip")
        return None
    at, kind = found[0]
    if kind == "steps" and frame_skip is None:
        raise InputError(f"{source}, line 1, column {header[at].strip()!r}: agent steps are read only with the "
                         "frame skip that turns them into frames: give --frame-skip (4 in the standard ALE "
                         "protocol, 1 if each step is one frame), or write frames in a 'frames' column")
    if kind == "frames" and frame_skip is not None:
        raise InputError(f"{source}, line 1, column {header[at].strip()!r}: frames already count the skipped "
                         f"frames, so --frame-skip {frame_skip} would count them twice: leave out --frame-skip")
    return at, kind


def runs_from_text(text: str, source: str, games: pd.DataFrame, frame_skip: int | None = None) -> pd.DataFrame:
    """The runs in CSV ``text`` as a frame: agent, game_id, seed, score, line (1-based line in ``source``).

    With a frames or steps column (a learning curve) the frame has a ``frames`` column too: emulator frames,
    steps times ``frame_skip``.
    """
    if frame_skip is not None and (isinstance(frame_skip, bool) or not isinstance(frame_skip, int)
                                   or not 1 <= frame_skip <= 100):
        raise InputError(f"--frame-skip {frame_skip!r}: give the emulator frames per agent step, a whole number "
                         "from 1 to 100 (4 in the standard ALE protocol)")
    table = read_table(text, source, RUN_COLUMNS["score"], MAX_SCORE_ROWS, what="runs")
    header = table.header
    at = _find_columns(header, source)
    x = _find_x_column(header, source, frame_skip)
    aliases = game_aliases(games)
    records, seen, agents, runs_of = [], {}, {}, {}
    for number, row in table.rows:
        where = f"{source}, line {number}"
        if len(row) < len(header):  # more cells than the header are refused by the gate ("1,234" is not 1)
            raise InputError(f"{where}: {len(row)} cells under a header of {len(header)} columns: fill the "
                             "missing cells")
        agent, seed = row[at["agent"]].strip(), row[at["seed"]].strip()
        if not agent:
            raise InputError(f"{where}, column 'agent': empty; name the agent these runs belong to")
        if not seed:
            raise InputError(f"{where}, column 'seed': empty; give each run of a game its own seed")
        agents.setdefault(agent, number)
        if len(agents) > MAX_AGENTS:
            raise InputError(f"{where}, column 'agent': more than {MAX_AGENTS} agents, the limit of one "
                             "aggregate (every pair is compared): split the file")
        try:
            seed = str(run_id(seed))  # the rule contributions and data/seed_scores.csv follow ("007" is "7")
        except ValueError as error:
            raise InputError(f"{where}, column 'seed': {error}") from None
        try:
            game = resolve_game(row[at["game"]], aliases)
        except UnknownGameError as error:
            raise InputError(f"{where}, column 'game': {error}") from None
        score = parse_number(row[at["score"]], f"{where}, column 'score'")
        frames = None
        if x is not None:
            column = header[x[0]].strip()
            count = parse_count(row[x[0]], f"{where}, column {column!r}", "frames" if x[1] == "frames" else
                                "agent steps")
            frames = count if frame_skip is None else count * frame_skip
        if frames is None or (agent, game, seed) not in seen:
            runs_of[(agent, game)] = runs_of.get((agent, game), 0) + 1
        if runs_of[(agent, game)] > MAX_RUNS_PER_GAME:
            raise InputError(f"{where}: more than {MAX_RUNS_PER_GAME:,} runs of {game} for agent "
                             f"{escaped(agent)!r}, the limit per game (as for `score`)")
        key = (agent, game, seed) if frames is None else (agent, game, seed, frames)
        if key in seen:
            point = "" if frames is None else f" at {frames} frames"
            raise InputError(f"{where}: agent {escaped(agent)!r}, game {game}, seed {seed!r}{point} already given on "
                             f"line {seen[key]}; keep one row per agent, game and seed"
                             + ("" if frames is None else " (and frames point)"))
        seen[key] = number
        if frames is not None:
            seen.setdefault((agent, game, seed), number)
        records.append((agent, game, seed, score, number) if frames is None else
                       (agent, game, seed, score, number, frames))
    if not records:
        raise InputError(f"{source}: no runs (only a header)")
    columns = ["agent", "game_id", "seed", "score", "line"] + ([] if x is None else ["frames"])
    return pd.DataFrame.from_records(records, columns=columns)


def read_runs(path: str | Path, games: pd.DataFrame, frame_skip: int | None = None, stdin=None) -> pd.DataFrame:
    """:func:`runs_from_text` on a file, or on standard input when ``path`` is '-' (bounded as a file is); a
    missing or unreadable file is an InputError."""
    from atari5_spec.data.limits import MAX_SCORE_FILE_BYTES
    from atari5_spec.data.paths import read_regular_file

    if str(path) == "-":
        import sys

        source = "<stdin>"
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(MAX_SCORE_FILE_BYTES + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
        if len(data) > MAX_SCORE_FILE_BYTES:
            raise InputError(f"{source}: more than the limit of {MAX_SCORE_FILE_BYTES:,} bytes: split the runs")
    else:
        path = Path(path)
        source = str(path)
        if not path.exists() and not path.is_symlink():
            raise InputError(f"{path}: cannot read the runs file (no such file)")
        data = read_regular_file(path, source, MAX_SCORE_FILE_BYTES)  # a pipe or device is refused before opening
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"{source}, line {line}: not UTF-8 (byte {data[error.start]:#04x}): save the file as UTF-8") from None
    return runs_from_text(text, source, games, frame_skip)


def implausible_runs(runs: pd.DataFrame, games: pd.DataFrame, source: str, root=None,
                     allow: bool = False) -> list[str]:
    """The input gate of ``score`` (SPEC.md section 1.1's input rules) on a runs frame (:func:`runs_from_text`): the per-game
    bound on every row and the fractions rule on each agent's per-game means (of a learning curve: its last
    point). InputError naming the first place it refuses; with ``allow`` (``--allow-implausible``) the notes
    saying what it would have refused (empty when nothing)."""
    from atari5_spec.data.limits import ALLOW_OPTION
    from atari5_spec.method.reference import upper_bounds
    from atari5_spec.scoring.estimate import bound_problem, fractions_problem, published_extremes

    table = games.set_index("game_id")[["random_score", "human_score"]].astype(float).dropna()
    constants = {g: (float(r), float(h)) for g, (r, h) in table.iterrows()}
    best = {g: high for g, (_, high) in published_extremes(root).items()}
    bounds = upper_bounds(constants, best)
    problems = []
    for game, score, line in zip(runs["game_id"], runs["score"], runs["line"]):
        problem = bound_problem(game, float(score), bounds, best)
        if problem:
            where = f"{source}, line {int(line)}, column 'score'"
            if not allow:
                raise InputError(f"{where}: {problem}")
            problems.append(f"{where}: {problem}")
    for agent in dict.fromkeys(runs["agent"]):
        own = runs[runs["agent"] == agent]
        if "frames" in own.columns:
            own = own[own["frames"] == own.groupby("game_id")["frames"].transform("max")]
        problem = fractions_problem(own.groupby("game_id")["score"].mean().to_dict(), constants)
        if problem:
            where = f"{source}, line {int(own['line'].min())}, column 'score' (agent {escaped(agent)!r})"
            if not allow:
                raise InputError(f"{where}: {problem}")
            problems.append(f"{where}: {problem}")
    return [f"scored past the gate ({ALLOW_OPTION}): {p}" for p in problems]


def benchmark_runs(runs: pd.DataFrame, games: pd.DataFrame, source: str = "runs") -> tuple[pd.DataFrame, list[str]]:
    """The runs of the 57 benchmark games, and a note naming the games left out.

    Games outside the 57 (Air Raid, Pooyan, Adventure, ...; the SLM-Lab and
    ChainerRL tables have 59 to 62 games) have no random and human scores, so
    they cannot be normalised: they are left out and the note says so. The
    command and :func:`atari5_spec_research.aggregate` both pass through here.
    """
    benchmark = set(games.loc[games["in_57"].astype(bool), "game_id"])
    outside = sorted(set(runs["game_id"]) - benchmark)
    if not outside:
        return runs, []
    kept = runs[runs["game_id"].isin(benchmark)]
    if kept.empty:
        raise InputError(f"{source}: no runs of the 57 benchmark games (only {', '.join(outside)})")
    return kept, [f"ignored, outside the 57 games of the benchmark (no random and human scores): "
                  f"{', '.join(outside)}"]


def _constants(runs: pd.DataFrame, games: pd.DataFrame, source: str) -> tuple[pd.DataFrame, list]:
    """Each game's random and human scores, and the runs' games in order; games without them are refused."""
    constants = games.set_index("game_id")[["random_score", "human_score"]].astype(float)
    game_ids = sorted(runs["game_id"].unique())
    lacking = [g for g in game_ids if constants.loc[g].isna().any()]
    if lacking:
        lines = runs.loc[runs["game_id"].isin(lacking), "line"]
        raise InputError(f"{source}, line {int(lines.min())}, column 'game': no random and human scores for "
                         f"{', '.join(lacking)} (only the 57 games of the ALE benchmark have them); drop those rows")
    return constants, game_ids


class AgentRuns(NamedTuple):
    """Human-normalised runs: agent -> (n_seeds, n_games) matrix of fractions, columns in ``games`` order."""

    scores: dict            # agent -> np.ndarray (n_seeds, n_games)
    games: list             # game ids, the matrices' columns
    seeds: dict             # agent -> list of seeds, the matrices' rows


def normalised_runs(runs: pd.DataFrame, games: pd.DataFrame, source: str = "runs") -> AgentRuns:
    """One matrix per agent of ``(score - random) / (human - random)``; agents in order of first appearance.

    Every agent needs the same games, and within an agent every game the same
    seeds (the aggregates compare agents over the same games, and the
    stratified bootstrap resamples seeds within each game).
    """
    if "frames" in runs.columns:
        raise InputError(f"{source}: the runs have a frames (or steps) column, so they are learning curves: "
                         "aggregate them with atari5_spec_research.analyses.agent_runs.aggregate_curves (the command "
                         "does so itself)")
    constants, game_ids = _constants(runs, games, source)
    agents = list(dict.fromkeys(runs["agent"]))
    scores, seeds = {}, {}
    for agent in agents:
        own = runs[runs["agent"] == agent]
        missing = sorted(set(game_ids) - set(own["game_id"]))
        if missing:
            raise InputError(f"{source}, column 'game': agent {agent!r} has no runs of {', '.join(missing)} "
                             f"(other agents have them); every agent needs the same games")
        table = own.pivot(index="seed", columns="game_id", values="score").reindex(columns=game_ids)
        holes = table.isna()
        if holes.to_numpy().any():
            seed, game = next((s, g) for s in table.index for g in game_ids if holes.loc[s, g])
            raise InputError(f"{source}, column 'seed': agent {agent!r} has seed {seed!r} for some games but "
                             f"not for {game}; give every game the same seeds (or drop the seed)")
        random, human = constants.loc[game_ids, "random_score"], constants.loc[game_ids, "human_score"]
        scores[agent] = ((table - random) / (human - random)).to_numpy(float)
        seeds[agent] = [str(s) for s in table.index]
    return AgentRuns(scores, game_ids, seeds)


class AgentCurves(NamedTuple):
    """Human-normalised learning curves: agent -> (n_seeds, n_games, n_points) array of fractions."""

    scores: dict            # agent -> np.ndarray (n_seeds, n_games, n_points)
    games: list             # game ids, the arrays' second axis
    seeds: dict             # agent -> list of seeds, the first axis
    frames: dict            # agent -> np.ndarray of int64 frames, increasing, the last axis


def _grid_problem(own: pd.DataFrame, agent: str, game_ids: list, grid: list, source: str) -> InputError:
    """The first (seed, game) of ``agent`` lacking a point of its curve grid, as an InputError with the fix."""
    seeds = sorted(own["seed"].unique(), key=lambda s: (len(s), s))
    for seed in seeds:
        for game in game_ids:
            cell = own[(own["seed"] == seed) & (own["game_id"] == game)]
            if cell.empty:
                raise InputError(f"{source}, column 'seed': agent {agent!r} has seed {seed!r} for some games but not "
                                 f"for {game}; give every game the same seeds (or drop the seed)")
            missing = sorted(set(grid) - set(cell["frames"]))
            if missing:
                shown = ", ".join(str(f) for f in missing[:3]) + (", ..." if len(missing) > 3 else "")
                common = own.groupby(["game_id", "seed"])["frames"].apply(frozenset)
                shared = frozenset.intersection(*common)
                return InputError(
                    f"{source}, line {int(cell['line'].min())}, column 'frames': agent {agent!r}, game {game}, seed "
                    f"{seed!r} has no score at {len(missing)} of the agent's {len(grid)} frames points ({shown}); "
                    "other runs have them. Curves are aggregated point by point over every game and seed, and are "
                    "never interpolated: evaluate every run at the same frames, or keep only the "
                    f"{len(shared)} points every run of the agent has")
    raise AssertionError("no gap found")  # unreachable: called only when the table has a hole


def normalised_curves(runs: pd.DataFrame, games: pd.DataFrame, source: str = "runs") -> AgentCurves:
    """One ``(n_seeds, n_games, n_points)`` array per agent of ``(score - random) / (human - random)``.

    ``runs`` has a ``frames`` column (:func:`runs_from_text` of a file with a frames or steps column). Every agent
    needs the same games; within an agent, every game the same seeds and every seed of every game the same frames
    points (agents may have different points). Nothing is interpolated: a missing point is an error.
    """
    if "frames" not in runs.columns:
        raise InputError(f"{source}: no frames (or steps) column, so no learning curves: add a 'frames' column "
                         "saying when each score was measured")
    largest = runs.loc[runs["frames"].idxmax()]
    if int(largest["frames"]) < ATARI_100K_FRAMES:
        raise InputError(f"{source}, line {int(largest['line'])}, column 'frames': the largest point, "
                         f"{int(largest['frames']):,} frames, is below every published training budget (the "
                         f"smallest, Atari 100k, is {ATARI_100K_FRAMES:,} frames): if the column counts millions "
                         "of frames or agent steps, write frames in full (e.g. 10000000 for 10M), or name the "
                         "column 'steps' and give --frame-skip")
    constants, game_ids = _constants(runs, games, source)
    random = constants.loc[game_ids, "random_score"].to_numpy(float)
    human = constants.loc[game_ids, "human_score"].to_numpy(float)
    scores, seeds, frames = {}, {}, {}
    for agent in dict.fromkeys(runs["agent"]):
        own = runs[runs["agent"] == agent]
        missing = sorted(set(game_ids) - set(own["game_id"]))
        if missing:
            raise InputError(f"{source}, column 'game': agent {agent!r} has no runs of {', '.join(missing)} "
                             f"(other agents have them); every agent needs the same games")
        grid = sorted(int(f) for f in own["frames"].unique())
        table = own.pivot(index="seed", columns=["game_id", "frames"], values="score")
        table = table.reindex(columns=pd.MultiIndex.from_product([game_ids, grid]))
        if table.isna().to_numpy().any():
            raise _grid_problem(own, agent, game_ids, grid, source)
        values = table.to_numpy(float).reshape(len(table), len(game_ids), len(grid))
        scores[agent] = (values - random[:, None]) / (human - random)[:, None]
        seeds[agent] = [str(s) for s in table.index]
        frames[agent] = np.asarray(grid, dtype=np.int64)
    return AgentCurves(scores, game_ids, seeds, frames)
