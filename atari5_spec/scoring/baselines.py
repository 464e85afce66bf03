"""A baseline named by an algorithm id of the package: its published per-game numbers, provenance and protocol.

``score A --relative-to rainbow-noop`` and ``relative_score(scores, "rainbow-noop")`` compare an agent with an
entry of data/algorithms.csv. The baseline's scores are the entry's per-game numbers in data/scores.csv (the
row fits use: ``use_in_fit``, not superseded; one number per game, so no seed part), and the output names the
entry's paper, source, the file and line each number came from, and the entry's evaluation protocol
(including its episode cap, which decides whether a direction can be stated).

Plain csv reading (no pandas): ``score`` must start fast.
"""

from __future__ import annotations

import csv
import os

import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from ..data.datapackage import package_root
from ..data.errors import InputError

__all__ = ["BaselineEntry", "algorithm_baseline", "algorithm_baselines", "shares_setup", "algorithm_ids",
           "seed_runs", "PROTOCOL_FIELDS"]

PROTOCOL_FIELDS = ("start_condition", "noop_max", "sticky_action_probability", "action_set", "life_loss_episode_end",
                   "frame_skip", "max_episode_frames", "training_frames", "regime", "evaluation", "eval_episodes",
                   "statistic", "seeds", "env_family")


class BaselineEntry(NamedTuple):
    """An algorithm entry of the package used as a baseline."""

    algorithm_id: str
    name: str
    paper: str                   # the paper title (or the source's title for compilations)
    year: str
    source_id: str
    source_title: str
    scores: dict                 # game id -> the published number
    provenance: dict             # game id -> "file:line" the number came from
    protocol: dict               # protocol field -> value, only the fields the source states
    protocol_note: str
    exclusion: str               # why the entry stays out of fits ('' when it does not)
    exclusion_note: str
    see_also: tuple[str, ...] = ()  # algorithm ids the exclusion note names (a duplicate's better entry)
    kind: str = ""               # agent, human-reference, random-reference
    paper_title: str = ""        # the entry's own paper title ('' when the data records none)

    @property
    def max_episode_frames(self) -> int | None:
        value = self.protocol.get("max_episode_frames")
        return int(float(value)) if value else None

    @property
    def sticky_action_probability(self) -> float | None:
        value = self.protocol.get("sticky_action_probability")
        return float(value) if value not in (None, "") else None

    def describe(self) -> str:
        """One line: name, id, paper and year, source."""
        paper = f"{self.paper} ({self.year})" if self.year else self.paper
        return f"{self.name} ({self.algorithm_id}): {paper}; source {self.source_id}: {self.source_title}"

    def protocol_text(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in self.protocol.items()) or "not stated by the source"


def _rows(path: Path) -> list[dict]:
    from ..data.paths import read_package_rows

    return read_package_rows(path)


def algorithm_ids(root: Path | None = None) -> list[str]:
    return [r["algorithm_id"] for r in _rows(package_root(root) / "data" / "algorithms.csv")]


def algorithm_baseline(algorithm_id: str, root: Path | None = None) -> BaselineEntry:
    """The entry ``algorithm_id`` as a baseline; InputError naming close ids when there is none."""
    folder = package_root(root) / "data"
    algorithms = {r["algorithm_id"]: r for r in _rows(folder / "algorithms.csv")}
    if algorithm_id not in algorithms:
        import difflib

        close = difflib.get_close_matches(algorithm_id, list(algorithms), n=3, cutoff=0.6)
        path_like = "/" in algorithm_id or "\\" in algorithm_id or Path(algorithm_id).suffix != ""
        raise InputError(f"{algorithm_id!r} is neither an existing scores file nor an algorithm id of the package"
                         + (f"; did you mean {', '.join(close)}?" if close else
                            " (`atari5-spec leaderboard` lists the algorithms)")
                         + ("; from Python, read a scores file with atari5_spec.scoring.input.read_scores_file(path)"
                            if path_like else ""))
    entry = _entry(algorithm_id, algorithms, _rows(folder / "scores.csv"), _rows(folder / "sources.csv"))
    if not entry.scores:
        raise InputError(f"algorithm {algorithm_id!r} has no per-game scores in the package")
    return entry


def algorithm_baselines(root: Path | None = None) -> dict[str, BaselineEntry]:
    """Every entry of the package as :func:`algorithm_baseline` reads it (files read once), by id; an entry
    without per-game scores has empty ``scores``."""
    folder = package_root(root) / "data"
    algorithms = {r["algorithm_id"]: r for r in _rows(folder / "algorithms.csv")}
    rows, sources = _rows(folder / "scores.csv"), _rows(folder / "sources.csv")
    by_algorithm: dict[str, list[dict]] = {}
    for r in rows:
        by_algorithm.setdefault(r["algorithm_id"], []).append(r)
    superseded = {r["supersedes"] for r in rows if r["supersedes"]}
    return {i: _entry(i, algorithms, by_algorithm.get(i, []), sources, superseded) for i in sorted(algorithms)}


def _entry(algorithm_id: str, algorithms: dict, rows: list[dict], source_rows: list[dict],
           superseded: set | None = None) -> BaselineEntry:
    """The entry from the package's rows (``rows``: scores.csv, or the entry's own rows with ``superseded``)."""
    entry = algorithms[algorithm_id]
    if superseded is None:
        superseded = {r["supersedes"] for r in rows if r["supersedes"]}
    mine = [r for r in rows if r["algorithm_id"] == algorithm_id and r["score_id"] not in superseded]
    preferred = [r for r in mine if r["use_in_fit"] == "true"] or mine
    scores, provenance = {}, {}
    for r in preferred:
        if r["game_id"] not in scores:  # rows of one game agree (validation): the first is the number
            scores[r["game_id"]] = float(r["score"])
            provenance[r["game_id"]] = r["provenance"]
    sources = {r["source_id"]: r for r in source_rows}
    source = sources.get(entry["source_id"], {})
    note = entry.get("exclusion_note", "") or ""
    see_also = tuple(dict.fromkeys(word for word in re.findall(r"[a-z0-9][a-z0-9-]*[a-z0-9]", note)
                                   if word in algorithms and word != algorithm_id))
    return BaselineEntry(
        algorithm_id, entry["name"], entry["paper_title"] or source.get("title", ""), entry["year"],
        entry["source_id"], source.get("title", ""), scores, provenance,
        {k: entry[k] for k in PROTOCOL_FIELDS if entry.get(k)}, entry.get("protocol_note", ""),
        entry.get("exclusion", ""), note, see_also, entry.get("kind", ""), entry.get("paper_title", "") or "")


def seed_runs(algorithm_id: str, root: Path | None = None) -> dict[str, tuple[float, ...]]:
    """An entry's per-seed scores from data/seed_scores.csv: game id -> its seeds' scores in seed order (empty when
    the package has none for it). The file is read once per package root."""
    return dict(_seed_table(str(package_root(root))).get(algorithm_id, {}))


@lru_cache(maxsize=2)
def _seed_table(root: str) -> dict[str, dict[str, tuple[float, ...]]]:
    path = Path(root) / "data" / "seed_scores.csv"
    if not os.path.lexists(path):  # present but not a plain file: the read gate names it, never skipped
        return {}
    table: dict[str, dict[str, list[tuple[float, float]]]] = {}
    from ..data.paths import package_text_stream

    rows = csv.reader(package_text_stream(path, root))  # plain reader: 28,000 rows
    header = next(rows)
    at = {name: header.index(name) for name in ("algorithm_id", "game_id", "seed", "score")}
    for row in rows:
        table.setdefault(row[at["algorithm_id"]], {}).setdefault(row[at["game_id"]], []).append(
            (float(row[at["seed"]]), float(row[at["score"]])))
    return {a: {g: tuple(score for _, score in sorted(seeds)) for g, seeds in games.items()}
            for a, games in table.items()}


def shares_setup(a: BaselineEntry, b: BaselineEntry) -> bool:
    """Whether two entries count as one setup (``--same-setup``): two different agents reported by one paper
    (the same paper title, not empty) in the same source, with the same recorded protocol (every protocol field
    either states, equal), neither marked as numbers quoted from another paper (exclusion ``duplicate``) nor as
    a reference column. A compilation's rows of different papers, a reference (human, random), a quoted column or
    a pair whose recorded protocols differ are two papers' numbers. The data records no codebase, so this is
    the closest the package can say; `score --same-setup` remains the user's statement."""
    quoted = ("duplicate", "reference-scores")
    return (a.algorithm_id != b.algorithm_id and a.kind == b.kind == "agent" and bool(a.paper_title)
            and a.exclusion not in quoted and b.exclusion not in quoted
            and a.paper_title == b.paper_title and a.source_id == b.source_id and a.protocol == b.protocol)
