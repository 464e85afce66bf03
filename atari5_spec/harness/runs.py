"""``play()``: a policy played on the games under a named protocol, one row per episode, resumable.

Each episode is its own task, seeded from (seed, game, episode) alone (:func:`.emulator.episode_seeds`), so
that the rows do not depend on which process played them, in what order, or whether the run was resumed:
the same policy, protocol, seeds and library versions give the same file byte for byte. Tasks run in this
process (``jobs=1``), in local worker processes (default: one per core), or on a Dask cluster
(``scheduler``: dask.distributed, imported only then). With ``out``, the table is rewritten atomically under
the output policy (:func:`atari5_spec.data.paths.write_output`) every few seconds and at the end, and the
rows an earlier run of the same settings left in it are kept and not played again.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..data.errors import InputError
from .emulator import require_ale
from .episode_table import episode_columns, episode_means, episode_text, read_episode_table
from .policies import load_policy, policy_label
from .protocols import DEFAULT_PROTOCOL, Protocol, emulator_settings, protocol

__all__ = ["play", "PlayResult", "DEFAULT_EPISODES", "seed_list"]

# Episodes per game and seed when the protocol states no number (machado-2018): the number of evaluation
# episodes of Mnih et al. 2015, which is also what issue 45 measured the random constants with.
DEFAULT_EPISODES = 30
CHECKPOINT_SECONDS = 5.0


@dataclasses.dataclass(frozen=True)
class PlayResult:
    """The episodes of one ``play()`` call: the whole table (``episodes``, kept rows included) and its counts."""

    episodes: "object"  # pandas DataFrame, the episode table's columns, sorted by game, seed and episode
    protocol: str
    games: tuple[str, ...]
    seeds: tuple[int, ...]
    episodes_per_seed: int
    played: int          # episodes played by this call
    kept: int            # episodes an earlier run left in ``out``, kept and not played again
    frames_played: int   # emulator frames of the episodes played by this call
    cpu_seconds: float   # CPU time the played episodes took in their processes
    out: Path | None

    def means(self):
        """One row per game and seed: mean raw score of its episodes (what ``score`` averages per seed)."""
        return episode_means(self.episodes)

    def __repr__(self) -> str:
        where = f", written to {self.out}" if self.out is not None else ""
        return (f"PlayResult({len(self.episodes)} episodes under {self.protocol}: {len(self.games)} games x "
                f"{len(self.seeds)} seeds x {self.episodes_per_seed}; {self.played} played, {self.kept} kept"
                f"{where})")

    def _repr_html_(self) -> str:
        import html

        return f"<p><b>PlayResult</b>: {html.escape(repr(self)[len('PlayResult('):-1])}</p>" + \
            self.means().to_html(index=False)


def seed_list(seeds: int | Iterable[int]) -> tuple[int, ...]:
    """``seeds`` as the sorted seeds: N gives 0 to N - 1; a list gives its (non-negative, whole) numbers."""
    if isinstance(seeds, bool):
        raise InputError(f"--seeds {seeds}: give a number of seeds or a list of seeds")
    if isinstance(seeds, int):
        if seeds < 1:
            raise InputError(f"--seeds {seeds}: give at least one seed")
        return tuple(range(seeds))
    chosen = []
    for seed in seeds:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0 or seed > 2**31 - 1:
            raise InputError(f"--seeds: {seed!r} is not a seed (a whole number from 0 to 2147483647)")
        chosen.append(seed)
    if not chosen:
        raise InputError("--seeds: give at least one seed")
    if len(set(chosen)) != len(chosen):
        raise InputError(f"--seeds: {', '.join(map(str, chosen))} names a seed twice")
    return tuple(sorted(chosen))


def _games(games: Sequence[str] | None, root) -> tuple[str, ...]:
    from ..data.ids import UnknownGameError, game_aliases, resolve_game
    from .protocols import package_table

    if games is None:
        from ..method.pinned import load_coefficient_set

        return tuple(load_coefficient_set(root=None if root is None else Path(root)).subsets["Atari-5"].games)
    aliases = game_aliases(package_table("games", root))
    chosen = []
    for name in games:
        try:
            chosen.append(resolve_game(name, aliases))
        except UnknownGameError as error:
            raise InputError(f"--games: {error}") from None
    if not chosen:
        raise InputError("--games: give at least one game")
    if len(set(chosen)) != len(chosen):
        raise InputError(f"--games: {', '.join(games)} names a game twice")
    return tuple(chosen)


# Each thread builds its own policy and environments once: a Dask worker runs tasks on several threads of one
# process, and an environment or a policy's state must never be shared between two episodes under way.
_PER_THREAD = threading.local()


def _per_thread(kind: str) -> dict:
    cache = getattr(_PER_THREAD, kind, None)
    if cache is None:
        cache = {}
        setattr(_PER_THREAD, kind, cache)
    return cache


def _policy(spec: str):
    policies = _per_thread("policies")
    if spec not in policies:
        policies[spec] = load_policy(spec)
    return policies[spec]


def _environment(game: str, settings):
    from .emulator import environment

    environments = _per_thread("environments")
    if (game, settings) not in environments:
        environments[game, settings] = environment(game, settings)
    return environments[game, settings]


def play_task(task: tuple) -> tuple:
    """One episode in this process: (game, seed, episode, score, frames, truncated, CPU seconds).

    A module-level function of picklable arguments (policy spec, EmulatorSettings, game, seed, episode), so
    that worker processes and Dask workers run it as well as this one; each thread builds its policy and
    environments once.
    """
    from .emulator import play_episode

    spec, settings, game, seed, episode = task
    started = time.process_time()
    score, frames, truncated = play_episode(_environment(game, settings), _policy(spec), settings, game, seed,
                                            episode)
    return game, seed, episode, score, frames, truncated, time.process_time() - started


def _kept_rows(out: Path, requested: set, fixed: dict, roms: dict, root) -> list[dict]:
    """The rows of an earlier run in ``out``; InputError when one is not of this run's settings."""
    if not out.exists():
        return []
    rows = read_episode_table(out, root)
    for line, row in enumerate(rows, start=2):
        for column, value in fixed.items():
            if row[column] != value:
                raise InputError(f"{out}, line {line}, column {column!r}: {row[column]!r}, but this run's is "
                                 f"{value!r}: an interrupted run is resumed only with the same settings; give "
                                 "another --out, or the settings that wrote the file")
        if row["game"] in roms and row["rom_sha256"] != roms[row["game"]]:
            raise InputError(f"{out}, line {line}, column 'rom_sha256': the ROM of {row['game']} that played it is "
                             "not the one installed now: give another --out")
        if (row["game"], row["seed"], row["episode"]) not in requested:
            raise InputError(f"{out}, line {line}: game {row['game']}, seed {row['seed']}, episode {row['episode']} "
                             "is not among the episodes asked for (--games, --seeds, --episodes): resume with "
                             "settings that include it, or give another --out")
    return rows


def _results(tasks: list[tuple], jobs: int, scheduler):
    """The results of ``tasks`` as they complete, run inline, on ``jobs`` local processes or on Dask."""
    if scheduler is not None:
        try:
            from distributed import Client, as_completed
        except ImportError:
            raise InputError('--scheduler needs dask.distributed: pip install "dask[distributed]"') from None
        client = scheduler if hasattr(scheduler, "map") else None
        owned = client is None
        if owned:
            try:
                client = Client(scheduler, timeout="30s")
            except (OSError, TimeoutError) as error:
                raise InputError(f"--scheduler {scheduler}: cannot connect ({error})") from None
        try:
            futures = client.map(play_task, tasks, pure=False)
            for future in as_completed(futures):
                yield future.result()
        finally:
            if owned:
                client.close()
        return
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield play_task(task)
        return
    from concurrent.futures import as_completed as local_completed

    from ..data.processes import worker_pool

    pool = worker_pool(min(jobs, len(tasks)))
    try:
        futures = [pool.submit(play_task, task) for task in tasks]
        for future in local_completed(futures):
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def default_jobs() -> int:
    """The machine's cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def play(policy: str = "random", *, protocol_name: str | Protocol = DEFAULT_PROTOCOL,
         seeds: int | Iterable[int] = 1, episodes: int | None = None, games: Sequence[str] | None = None,
         out: Path | str | None = None, jobs: int | None = None, scheduler=None,
         on_progress: Callable[[int, int, float], None] | None = None, root: Path | str | None = None
         ) -> PlayResult:
    """Play ``policy`` on ``games`` under a protocol of data/protocols.csv; one row per episode.

    Parameters
    ----------
    policy : str
        ``"random"`` (uniform actions), ``"module:callable"`` or a path to a Python file defining ``policy``:
        a callable from the RGB screen to an action index (docs/evaluate.md).
    protocol_name : str or Protocol
        A protocol_id of data/protocols.csv (default ``machado-2018``); every emulator setting comes from it.
    seeds : int or list of int
        A number N (seeds 0 to N - 1) or the seeds themselves.
    episodes : int, optional
        Episodes per game and seed (default: the protocol's eval_episodes, else 30).
    games : list of str, optional
        Games in any spelling ``score`` accepts (default: the Atari-5 games).
    out : path, optional
        The episode table to write (schemas/episodes.schema.json); rows an interrupted run left there with
        the same settings are kept and not played again.
    jobs : int, optional
        Local worker processes (default: the machine's cores; 1 plays in this process).
    scheduler : str or distributed.Client, optional
        A Dask scheduler's address: the episodes run on its workers instead (each needs atari5-spec[ale] and
        the policy importable).
    on_progress : callable, optional
        Called with (episodes done, episodes in all, seconds elapsed) as episodes finish.

    Returns
    -------
    PlayResult
        ``episodes`` (the table as a DataFrame), ``means()`` per game and seed, and the counts.
    """
    import pandas as pd

    require_ale()
    from .emulator import library_versions, rom_sha256

    chosen = protocol(protocol_name, root)
    settings = emulator_settings(chosen)
    count = episodes if episodes is not None else (chosen.eval_episodes or DEFAULT_EPISODES)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InputError(f"--episodes {count}: give a whole number of at least 1")
    chosen_seeds = seed_list(seeds)
    chosen_games = _games(games, root)
    jobs = default_jobs() if jobs is None else jobs
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InputError(f"--jobs {jobs}: give a whole number of at least 1")
    _policy(str(policy))  # a POLICY that cannot be loaded is refused here, before any process starts
    ale_version, gymnasium_version = library_versions()
    roms = {game: rom_sha256(game) for game in chosen_games}
    fixed = {"protocol": chosen.protocol_id, "policy": policy_label(policy), "ale_py_version": ale_version,
             "gymnasium_version": gymnasium_version}
    columns = episode_columns(root)
    requested = {(g, s, e) for g in chosen_games for s in chosen_seeds for e in range(count)}
    out_path = None
    if out is not None:
        from ..data.paths import output_file

        out_path = output_file(out)
    rows = _kept_rows(out_path, requested, fixed, roms, root) if out_path is not None else []
    kept = len(rows)
    done = {(r["game"], r["seed"], r["episode"]) for r in rows}
    tasks = [(str(policy), settings, g, s, e) for g, s, e in sorted(requested - done)]
    started, last_write = time.monotonic(), time.monotonic()
    frames, cpu = 0, 0.0

    def write() -> None:
        if out_path is not None:
            from ..data.paths import write_output

            write_output(out_path, episode_text(rows, columns))

    try:
        for game, seed, episode, score, length, truncated, seconds in _results(tasks, jobs, scheduler):
            rows.append({"game": game, "seed": seed, "episode": episode, "score": score, "frames": length,
                         "truncated": truncated, "rom_sha256": roms[game], **fixed})
            frames, cpu = frames + length, cpu + seconds
            if on_progress is not None:
                on_progress(len(rows) - kept, len(tasks), time.monotonic() - started)
            if time.monotonic() - last_write > CHECKPOINT_SECONDS:
                write()
                last_write = time.monotonic()
    finally:  # an interrupted run leaves every finished episode in the file, to be resumed
        write()
    table = pd.DataFrame(sorted(rows, key=lambda r: (r["game"], r["seed"], r["episode"])), columns=columns)
    return PlayResult(episodes=table, protocol=chosen.protocol_id, games=chosen_games, seeds=chosen_seeds,
                      episodes_per_seed=count, played=len(rows) - kept, kept=kept, frames_played=frames,
                      cpu_seconds=cpu, out=out_path)
