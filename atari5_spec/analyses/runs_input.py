"""Reading researchers' own per-seed runs: ``agent,game,seed,score`` CSV files.

One row per agent, game and seed (or run), the raw game score, games in any
spelling :func:`atari5_spec.data.ids.resolve_game` accepts (``battle_zone``,
``ALE/BattleZone-v5``, "Battle Zone"). Columns are found by name, in any
order, case-insensitively; ``algorithm`` may stand for ``agent`` and ``run``
for ``seed``. Lines starting with ``#`` are comments.

:func:`read_runs` checks the file and returns a tidy frame;
:func:`normalised_runs` turns it into one ``(n_seeds, n_games)`` matrix of
human-normalised scores per agent, as fractions (0 = random, 1.0 = the
average human, rliable's convention). Every problem is an
:class:`~atari5_spec.data.errors.InputError` naming the file, line and column and
saying how to fix it.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from ..data.errors import InputError
from ..data.ids import UnknownGameError, game_aliases, resolve_game, run_id
from ..data.limits import MAX_AGENTS, MAX_RUNS_PER_GAME, MAX_SCORE_ROWS, escaped, refuse_nul
from ..scoring.input import parse_score

__all__ = ["RUN_COLUMNS", "read_runs", "runs_from_text", "benchmark_runs", "AgentRuns", "normalised_runs"]

RUN_COLUMNS = {"agent": ("agent", "algorithm"), "game": ("game", "env", "environment"),
               "seed": ("seed", "run"), "score": ("score", "return")}


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


def runs_from_text(text: str, source: str, games: pd.DataFrame) -> pd.DataFrame:
    """The runs in CSV ``text`` as a frame: agent, game_id, seed, score, line (1-based line in ``source``)."""
    refuse_nul(text, source)
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise InputError(f"{source}: no runs (the file is empty)")
    if len(lines) > MAX_SCORE_ROWS + 1:
        raise InputError(f"{source}: {len(lines) - 1:,} rows, more than the limit of {MAX_SCORE_ROWS:,}")
    rows = _rows(lines, source)
    header = next(rows)
    at = _find_columns(header, source)
    aliases = game_aliases(games)
    records, seen, agents, runs_of = [], {}, {}, {}
    for (number, _), row in zip(lines[1:], rows):
        where = f"{source}, line {number}"
        if len(row) != len(header):  # an unquoted "1,234" is two cells, never the number 1
            more = len(row) > len(header)
            raise InputError(f"{where}: {len(row)} cells under a header of {len(header)} columns; "
                             + ("quote values that contain commas (\"1,234\") or remove the extra cells" if more
                                else "fill the missing cells"))
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
        score = parse_score(row[at["score"]], f"{where}, column 'score'")
        runs_of[(agent, game)] = runs_of.get((agent, game), 0) + 1
        if runs_of[(agent, game)] > MAX_RUNS_PER_GAME:
            raise InputError(f"{where}: more than {MAX_RUNS_PER_GAME:,} runs of {game} for agent "
                             f"{escaped(agent)!r}, the limit per game (as for `score`)")
        key = (agent, game, seed)
        if key in seen:
            raise InputError(f"{where}: agent {escaped(agent)!r}, game {game}, seed {seed!r} already given on line "
                             f"{seen[key]}; keep one row per agent, game and seed")
        seen[key] = number
        records.append((agent, game, seed, score, number))
    if not records:
        raise InputError(f"{source}: no runs (only a header)")
    return pd.DataFrame.from_records(records, columns=["agent", "game_id", "seed", "score", "line"])


def _rows(lines: list[tuple[int, str]], source: str):
    """csv rows of ``lines``; a field over the csv module's limit is an InputError naming its line."""
    reader = csv.reader([line for _, line in lines])
    index = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise InputError(f"{source}, line {lines[min(index, len(lines) - 1)][0]}: {error}; a cell of a runs "
                             "file is a name, a game, a seed or a score") from None
        index += 1
        yield row


def read_runs(path: str | Path, games: pd.DataFrame) -> pd.DataFrame:
    """:func:`runs_from_text` on a file; a missing or unreadable file is an InputError."""
    from ..data.limits import MAX_SCORE_FILE_BYTES
    from ..data.paths import read_regular_file

    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise InputError(f"{path}: cannot read the runs file (no such file)")
    data = read_regular_file(path, str(path), MAX_SCORE_FILE_BYTES)  # a pipe or device is refused before opening
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"{path}, line {line}: not UTF-8 (byte {data[error.start]:#04x}): save the file as UTF-8") from None
    return runs_from_text(text, str(path), games)


def benchmark_runs(runs: pd.DataFrame, games: pd.DataFrame, source: str = "runs") -> tuple[pd.DataFrame, list[str]]:
    """The runs of the 57 benchmark games, and a note naming the games left out.

    Games outside the 57 (Air Raid, Pooyan, Adventure, ...; the SLM-Lab and
    ChainerRL tables have 59 to 62 games) have no random and human scores, so
    they cannot be normalised: they are left out and the note says so. The
    command and :func:`atari5_spec.aggregate` both pass through here.
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
    constants = games.set_index("game_id")[["random_score", "human_score"]].astype(float)
    game_ids = sorted(runs["game_id"].unique())
    lacking = [g for g in game_ids if constants.loc[g].isna().any()]
    if lacking:
        lines = runs.loc[runs["game_id"].isin(lacking), "line"]
        raise InputError(f"{source}, line {int(lines.min())}, column 'game': no random and human scores for "
                         f"{', '.join(lacking)} (only the 57 games of the ALE benchmark have them); drop those rows")
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
