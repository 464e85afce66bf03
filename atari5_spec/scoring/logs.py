"""Reading the logs researchers have: per-episode returns in, one raw score per game and seed out.

``atari5-spec score PATH`` (and :func:`atari5_spec.score` given a path) reads, besides the plain scores files of
:mod:`.input`, the per-episode logs an agent's training or evaluation leaves behind, telling the kind from the
path (``--log-format KIND`` forces it):

* ``episodes``: the episode table ``atari5-spec play --out`` writes (schemas/episodes.schema.json), as CSV or
  JSON lines; unknown extra columns are accepted. Its ``protocol`` column names the protocol (data/protocols.csv).
* ``sb3-monitor``: Stable-Baselines3 Monitor files (``*.monitor.csv``: a ``#{json}`` first line with
  ``env_id``, then ``r,l,t``), one file or a folder of them, one per seed (the seed from the header's ``seed``
  or the file's name, ``3.monitor.csv``).
* ``tensorboard``: CleanRL-style TensorBoard runs (``runs/<env_id>__<exp>__<seed>__<time>/events.out.tfevents.*``,
  scalar ``charts/episodic_return``), read by TensorBoard's own event reader (``pip install "atari5-spec[logs]"``;
  imported only when such a file is read).
* ``wandb-csv``: a Weights & Biases panel export (CSV; a column ``<run name> - charts/episodic_return`` per run,
  the run named the CleanRL way; ``__MIN``/``__MAX`` columns ignored).
* ``jsonl``: a JSON-lines episode list, one object per episode with the game (``env_id``, ``game``), the
  return (``score``, ``return``, ``episodic_return``, ``r``) and optionally ``seed`` and ``protocol``.

Each run's returns become one raw score: the mean of its final window of episodes (training logs: the last
:data:`TRAINING_WINDOW`; episode lists: every episode; ``last`` sets it), each return read through the input
gate (:func:`~atari5_spec.data.input_gate.parse_number`) with its file, line and column. The game comes from
the env id, which also says the sticky-action probability where it can (``ALE/X-v5``: 0.25, ``XNoFrameskip-v4``:
0, EnvPool's ``X-v5``: 0); the answer states what was inferred and which episodes were used
(:class:`LogReading`). Returns that look clipped (:func:`~atari5_spec.data.limits.clipped_problem`) and episodes
that end at a life loss, where a file says so, are refused with the reason.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple

from ..data.errors import InputError
from ..data.ids import run_id
from ..data.input_gate import parse_number, read_table
from ..data.limits import MAX_SCORE_ROWS, load_json
from .input import Observation, decoded_text, observations_from_text

__all__ = ["LOG_FORMATS", "TRAINING_WINDOW", "Episode", "RunWindow", "LogReading", "read_log", "detect_format",
           "episode_observations"]

LOG_FORMATS = ("scores", "episodes", "sb3-monitor", "tensorboard", "wandb-csv", "jsonl")
LOG_LABELS = {"scores": "a scores file", "episodes": "an episode table (atari5-spec play)",
              "sb3-monitor": "Stable-Baselines3 Monitor files", "tensorboard": "TensorBoard runs (CleanRL)",
              "wandb-csv": "a W&B CSV export", "jsonl": "a JSON-lines episode list"}
# Training logs hold the episodes of the whole training: the score is the mean of the last ones (the window
# Stable-Baselines3's ep_rew_mean and most training curves average).
TRAINING_WINDOW = 100
TRAINING_KINDS = ("sb3-monitor", "tensorboard", "wandb-csv")
EPISODIC_RETURN_TAG = "charts/episodic_return"  # CleanRL's scalar: RecordEpisodeStatistics, before any clipping
MAX_LOG_FILES = 10_000
ENV_KEYS = ("env_id", "env", "game", "environment", "game_id")
RETURN_KEYS = ("score", "return", "episodic_return", "episode_return", "r")
SEED_KEYS = ("seed", "run")
# A column, key or header field saying the episodes end at a life loss, or the returns are clipped.
LIFE_LOSS_KEYS = ("terminal_on_life_loss", "episodic_life", "life_loss_episode_end")
CLIPPED_KEYS = ("clip_reward", "clip_rewards", "reward_clipped", "clipped")
_CLEANRL_RUN = re.compile(r"^(?P<env>[^_].*?)__(?P<exp>.+)__(?P<seed>[0-9]+)__(?P<time>[0-9]+)$")
_ENVPOOL_V5 = re.compile(r"^[A-Za-z0-9]+-v5$")


class Episode(NamedTuple):
    """One episode's return as read: the env id or game as the file spells it, the run's seed, where."""

    game: str
    seed: str | None
    score: float
    where: str


class RunWindow(NamedTuple):
    """Which episodes of one run (game and seed) the score used: ``first``..``last`` (1-based) of ``total``."""

    game: str
    seed: str | None
    first: int
    last: int
    total: int
    mean: float
    where: str
    returns: tuple[float, ...] = ()  # the returns of the episodes used, in order


class LogReading(NamedTuple):
    """What ``score`` read from a path: the observations (one per game and seed) and how they were made.

    ``window`` is the number of final episodes averaged per run (None: every episode); ``protocol_id`` the
    protocol the file names (data/protocols.csv), with its sticky-action probability and episode cap;
    ``inferred`` what was taken from the env ids or the file rather than stated.
    """

    kind: str
    source: str
    observations: list
    runs: tuple[RunWindow, ...] = ()
    window: int | None = None
    protocol_id: str | None = None
    sticky_action_probability: float | None = None
    max_episode_frames: int | None = None
    inferred: tuple[str, ...] = ()
    clipped: tuple[str, ...] = ()   # why the returns look clipped (refused unless allow_implausible)

    @property
    def label(self) -> str:
        return LOG_LABELS[self.kind]

    @property
    def episodes_used(self) -> int:
        return sum(r.last - r.first + 1 for r in self.runs)


# --- detecting the kind -----------------------------------------------------------------------------------------

def _files(folder: Path, pattern: str) -> list[Path]:
    found = sorted(p for p in folder.rglob(pattern) if p.is_file() and not p.is_symlink())
    if len(found) > MAX_LOG_FILES:
        raise InputError(f"{folder}: more than {MAX_LOG_FILES:,} log files: give the folder of one agent's runs")
    return found


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _is_jsonl(text: str) -> bool:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or not lines[0].startswith("{") or not lines[1].startswith("{"):
        return False
    try:
        return isinstance(json.loads(lines[0]), dict)
    except ValueError:
        return False


def _csv_header(text: str) -> list[str]:
    import csv
    import io

    first = next((line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")), "")
    try:
        return [cell.strip() for cell in next(csv.reader(io.StringIO(first)), [])]
    except csv.Error:  # no header a log writes (a field over csv's limit): the scores reader judges the file
        return []


def detect_format(path: str, text: str | None = None, episode_columns: Iterable[str] = ()) -> str:
    """The kind of log at ``path`` (one of :data:`LOG_FORMATS`); ``text``: a file's content when already read."""
    file = Path(path)
    if path != "-" and file.is_dir():
        monitors, events = _files(file, "*.monitor.csv"), _files(file, "events.out.tfevents.*")
        if monitors and events:
            raise InputError(f"{path}: holds both Monitor files ({monitors[0].name}) and TensorBoard event files "
                             f"({events[0].name}): give --log-format sb3-monitor or --log-format tensorboard")
        if monitors:
            return "sb3-monitor"
        if events:
            return "tensorboard"
        raise InputError(f"{path}: a folder without Monitor files (*.monitor.csv) or TensorBoard event files "
                         "(events.out.tfevents.*): give a scores file, an episode table or a log folder")
    name = file.name.lower()
    if name.endswith(".monitor.csv"):
        return "sb3-monitor"
    if "tfevents" in name:
        return "tensorboard"
    if text is None:
        return "scores"
    if _first_line(text).startswith("#{"):
        return "sb3-monitor"
    if file.suffix.lower() in (".jsonl", ".ndjson") or _is_jsonl(text):
        return "jsonl"
    header = {h.lower() for h in _csv_header(text)}
    columns = set(episode_columns)
    if columns and columns <= header:
        return "episodes"
    if any(h.endswith(" - " + EPISODIC_RETURN_TAG) for h in header):
        return "wandb-csv"
    return "scores"


# --- the protocols the files name --------------------------------------------------------------------------------

def _protocol_rows(root=None) -> dict[str, dict[str, str]]:
    import csv

    from ..data.datapackage import package_root

    path = package_root(root) / "data" / "protocols.csv"
    if not path.is_file():
        return {}
    with path.open(newline="", encoding="utf-8") as handle:
        return {row["protocol_id"]: row for row in csv.DictReader(handle)}


def _named_protocol(ids: Mapping[str, str], source: str) -> tuple[str | None, float | None, int | None]:
    """(protocol id, its sticky-action probability, its episode cap) of the protocol column, one value."""
    if not ids:
        return None, None, None
    if len(ids) > 1:
        (a, at), (b, bt) = sorted(ids.items())[:2]
        raise InputError(f"{bt}: protocol {b!r}, but {at} says {a!r}: one file holds the episodes of one protocol; "
                         "score each protocol's episodes on their own")
    (name, where), = ids.items()
    rows = _protocol_rows()
    if name not in rows:
        raise InputError(f"{where}: protocol {name!r} is not one of data/protocols.csv ({', '.join(sorted(rows))})")
    row = rows[name]
    sticky = float(row["sticky_action_probability"]) if row.get("sticky_action_probability") else None
    cap = int(row["max_episode_frames"]) if row.get("max_episode_frames") else None
    return name, sticky, cap


# --- episodes to observations ------------------------------------------------------------------------------------

def _true(value) -> bool:
    return value is True or str(value).strip().lower() in ("true", "1", "yes")


def episode_observations(episodes: list[Episode], source: str, window: int | None
                         ) -> tuple[list[Observation], tuple[RunWindow, ...]]:
    """One observation per game and seed: the mean of the run's final ``window`` episodes (None: all)."""
    if len(episodes) > MAX_SCORE_ROWS:  # a folder of many files: the bound of one file holds for all of them
        raise InputError(f"{source}: more than {MAX_SCORE_ROWS:,} episodes in all: give the logs of one agent")
    by_run: dict[tuple[str, str | None], list[Episode]] = {}
    for episode in episodes:
        by_run.setdefault((episode.game, episode.seed), []).append(episode)
    observations, runs = [], []
    # Runs in seed order within each game, as a scores file lists them (the seed bootstrap resamples by position).
    for (game, seed), run in sorted(by_run.items(), key=lambda item: (item[0][0], -1 if item[0][1] is None
                                                                      else int(item[0][1]))):
        used = run if window is None else run[-window:]
        mean = math.fsum(e.score for e in used) / len(used)
        first = len(run) - len(used) + 1
        where = (f"{source}: {game}" + ("" if seed is None else f" seed {seed}")
                 + f", the mean of episodes {first}-{len(run)} of {len(run)} (the first used: {used[0].where})")
        observations.append(Observation(game, mean, seed, where))
        runs.append(RunWindow(game, seed, first, len(run), len(run), mean, where, tuple(e.score for e in used)))
    if not observations:
        raise InputError(f"{source}: no episodes")
    return observations, tuple(runs)


def _key(record: Mapping, names: tuple[str, ...]):
    lowered = {str(k).strip().lower(): k for k in record}
    return next((lowered[n] for n in names if n in lowered), None)


def _refuse_life_loss(record: Mapping, where: str) -> None:
    key = _key(record, LIFE_LOSS_KEYS)
    if key is not None and _true(record[key]):
        raise InputError(f"{where}, {key!r}: the episodes end at a life loss, so each return is one life's, not a "
                         "game's: log the return of the whole game (until game over), e.g. the episode statistics "
                         "recorded outside the life-loss wrapper")


def _clipped_flag(record: Mapping, where: str) -> str | None:
    key = _key(record, CLIPPED_KEYS)
    if key is not None and _true(record[key]):
        return f"{where}, {key!r}: the file says the rewards are clipped: these are not raw game scores"
    return None


def _records_episodes(records: list[tuple[Mapping, str]], source: str
                      ) -> tuple[list[Episode], dict[str, str], tuple[str, ...]]:
    """Episodes from records (mappings with where): game, return, seed, protocol; (episodes, protocols, clipped)."""
    episodes, protocols, clipped = [], {}, []
    for record, where in records:
        game_key, score_key, seed_key = _key(record, ENV_KEYS), _key(record, RETURN_KEYS), _key(record, SEED_KEYS)
        if game_key is None or score_key is None:
            raise InputError(f"{where}: an episode needs the game ({', '.join(ENV_KEYS[:2])}) and its return "
                             f"({', '.join(RETURN_KEYS[:3])}); found {sorted(map(str, record))}")
        _refuse_life_loss(record, where)
        flag = _clipped_flag(record, where)
        if flag and not clipped:
            clipped.append(flag)
        seed = record[seed_key] if seed_key is not None else None
        seed = None if seed is None or str(seed).strip() == "" else _seed(seed, f"{where}, {seed_key!r}")
        score = parse_number(record[score_key], f"{where}, column {score_key!r}")
        protocol_key = _key(record, ("protocol",))
        if protocol_key is not None and str(record[protocol_key]).strip():
            protocols.setdefault(str(record[protocol_key]).strip(), where)
        episodes.append(Episode(str(record[game_key]).strip(), seed, score, where))
    if not episodes:
        raise InputError(f"{source}: no episodes")
    return episodes, protocols, tuple(clipped)


def _seed(value, where: str) -> str:
    try:  # one rule for seeds wherever runs are read (data.ids.RUN_ID_RULE)
        return str(run_id(str(value)))
    except ValueError as error:
        raise InputError(f"{where}: {error}") from None


def _sorted_by_episode(records: list[tuple[Mapping, str]], source: str) -> list[tuple[Mapping, str]]:
    """An episode table's rows in episode order within each game and seed (the file may be in any order)."""
    keyed = []
    for record, where in records:
        key = _key(record, ("episode",))
        if key is None:
            return records
        try:
            keyed.append((int(str(record[key]).strip()), record, where))
        except ValueError:
            raise InputError(f"{where}, column {key!r}: {record[key]!r} is not an episode number (0, 1, ...)") from None
    return [(r, w) for _, r, w in sorted(keyed, key=lambda item: item[0])]


# --- the readers --------------------------------------------------------------------------------------------------

def _csv_records(text: str, source: str, number_column: tuple[str, ...]) -> list[tuple[dict, str]]:
    table = read_table(text, source, number_column, MAX_SCORE_ROWS, what="episodes")
    header = [h.strip() for h in table.header]
    records = []
    for number, cells in table.rows:
        if len(cells) < len(header):
            raise InputError(f"{source}, line {number}: expected {len(header)} columns, found {len(cells)}")
        records.append((dict(zip(header, cells)), f"{source}, line {number}"))
    return records


def _jsonl_records(text: str, source: str) -> list[tuple[dict, str]]:
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(records) >= MAX_SCORE_ROWS:
            raise InputError(f"{source}, line {number}: more than {MAX_SCORE_ROWS:,} episodes")
        record = load_json(line, f"{source}, line {number}", allow_nan=True)
        if not isinstance(record, dict):
            raise InputError(f"{source}, line {number}: expected one JSON object per line (an episode), "
                             f"found {type(record).__name__}")
        records.append((record, f"{source}, line {number}"))
    return records


def _episode_list(kind: str, text: str, source: str, window: int | None) -> LogReading:
    """The episode table (CSV or JSON lines) or a JSON-lines episode list."""
    records = _jsonl_records(text, source) if kind == "jsonl" or _is_jsonl(text) else \
        _csv_records(text, source, RETURN_KEYS)
    episodes, protocols, clipped = _records_episodes(_sorted_by_episode(records, source), source)
    observations, runs = episode_observations(episodes, source, window)
    protocol_id, sticky, cap = _named_protocol(protocols, source)
    return LogReading(kind, source, observations, runs, window, protocol_id, sticky, cap,
                      (f"protocol {protocol_id} from the file's protocol column",) if protocol_id else (), clipped)


def _monitor_seed(file: Path, header: Mapping) -> tuple[str, str]:
    """(seed, where it came from) of a Monitor file: the header's seed, else the number in the file's name."""
    if header.get("seed") is not None:
        return _seed(header["seed"], f"{file.name}, line 1, 'seed'"), "the header's seed"
    stem = file.name[: -len(".monitor.csv")] if file.name.lower().endswith(".monitor.csv") else file.stem
    match = re.search(r"([0-9]+)$", stem)
    if match:
        return _seed(match[1], file.name), f"the file name {file.name}"
    return "0", f"{file.name} (one file, seed 0)"


def _monitor(files: list[Path], label: str, window: int | None) -> LogReading:
    episodes, inferred, clipped, seen = [], [], [], {}
    for file in files:
        text = decoded_text(file, file.name)
        first = _first_line(text)
        if not first.startswith("#{"):
            raise InputError(f"{file.name}, line 1: not a Monitor file: its first line is '#' and a JSON object "
                             "with env_id (Stable-Baselines3's Monitor writes it)")
        header = load_json(first[1:], f"{file.name}, line 1")
        if not isinstance(header, dict) or not header.get("env_id"):
            raise InputError(f"{file.name}, line 1: the header names no env_id, so the game is not known: "
                             "add \"env_id\": \"ALE/<Game>-v5\" (or the id the agent played) to the JSON")
        _refuse_life_loss(header, f"{file.name}, line 1")
        flag = _clipped_flag(header, f"{file.name}, line 1")
        if flag:
            clipped.append(flag)
        seed, seed_source = _monitor_seed(file, header)
        env_id = str(header["env_id"])
        if (env_id, seed) in seen:
            raise InputError(f"{file.name}: {env_id} seed {seed} is also {seen[env_id, seed]}: name each run's file "
                             "by its seed (<seed>.monitor.csv) or put \"seed\" in its header")
        seen[env_id, seed] = file.name
        inferred.append(f"{env_id} seed {seed} from {seed_source}")
        for record, where in _csv_records(text, file.name, ("r",)):
            if "r" not in record:
                raise InputError(f"{file.name}: no 'r' column (the episode return) in the header {list(record)}")
            _refuse_life_loss(record, where)
            episodes.append(Episode(env_id, seed, parse_number(record["r"], f"{where}, column 'r'"), where))
        if len(episodes) > MAX_SCORE_ROWS:
            raise InputError(f"{label}: more than {MAX_SCORE_ROWS:,} episodes in all (at {file.name}): give the "
                             "logs of one agent")
    observations, runs = episode_observations(episodes, label, window)
    return LogReading("sb3-monitor", label, observations, runs, window, inferred=tuple(inferred),
                      clipped=tuple(clipped[:1]))


def _event_accumulator():
    try:
        from tensorboard.backend.event_processing import event_accumulator
    except ImportError:
        raise InputError("reading TensorBoard event files needs TensorBoard's reader: "
                         "pip install \"atari5-spec[logs]\" (or give the returns as a JSON-lines episode list)") from None
    return event_accumulator


def _cleanrl_run(name: str, where: str) -> tuple[str, str]:
    match = _CLEANRL_RUN.match(name)
    if not match:
        raise InputError(f"{where}: the run name {name!r} does not say the env id and the seed: CleanRL names runs "
                         "<env_id>__<exp_name>__<seed>__<time> (e.g. BreakoutNoFrameskip-v4__dqn_atari__1__1690000000); "
                         "rename the run, or give the returns as a JSON-lines episode list")
    return match["env"], _seed(match["seed"], where)


def _tensorboard(path: Path, label: str, window: int | None) -> LogReading:
    accumulator = _event_accumulator()
    files = [path] if path.is_file() else _files(path, "events.out.tfevents.*")
    folders = sorted({file.parent for file in files})
    episodes, inferred = [], []
    for folder in folders:
        # CleanRL's run name holds the env id, so ALE/Breakout-v5's runs are folders Breakout-v5__... under ALE/
        name = f"{folder.parent.name}/{folder.name}" if folder.parent.name == "ALE" else folder.name
        where = f"{label}, run {name}"
        env_id, seed = _cleanrl_run(name, where)
        reader = accumulator.EventAccumulator(str(folder), size_guidance={accumulator.SCALARS: 0})
        reader.Reload()
        if EPISODIC_RETURN_TAG not in reader.Tags().get("scalars", []):
            raise InputError(f"{where}: no scalar {EPISODIC_RETURN_TAG!r} (found {sorted(reader.Tags().get('scalars', []))}): "
                             "CleanRL logs each episode's unclipped return under it")
        events = sorted(reader.Scalars(EPISODIC_RETURN_TAG), key=lambda e: (e.step, e.wall_time))
        inferred.append(f"{env_id} seed {seed} from the run name {name}")
        if len(episodes) + len(events) > MAX_SCORE_ROWS:
            raise InputError(f"{where}: more than {MAX_SCORE_ROWS:,} episodes in all: give the runs of one agent")
        for number, event in enumerate(events, start=1):
            episodes.append(Episode(env_id, seed, parse_number(event.value, f"{where}, {EPISODIC_RETURN_TAG} event "
                                                                             f"{number} (step {event.step})"),
                                    f"{where}, event {number} (step {event.step})"))
    observations, runs = episode_observations(episodes, label, window)
    return LogReading("tensorboard", label, observations, runs, window, inferred=tuple(inferred))


def _wandb(text: str, source: str, window: int | None) -> LogReading:
    table = read_table(text, source, (), MAX_SCORE_ROWS, what="rows")
    header = [h.strip() for h in table.header]
    suffix = " - " + EPISODIC_RETURN_TAG
    columns = [(at, name[: -len(suffix)]) for at, name in enumerate(header) if name.endswith(suffix)]
    episodes, inferred = [], []
    for at, run in columns:
        env_id, seed = _cleanrl_run(run, f"{source}, line 1, column {header[at]!r}")
        inferred.append(f"{env_id} seed {seed} from the run name {run}")
        for number, cells in table.rows:
            cell = cells[at].strip() if at < len(cells) else ""
            if cell:
                where = f"{source}, line {number}, column {header[at]!r}"
                episodes.append(Episode(env_id, seed, parse_number(cell, where), where))
    observations, runs = episode_observations(episodes, source, window)
    return LogReading("wandb-csv", source, observations, runs, window, inferred=tuple(inferred))


def _env_id_notes(observations: list[Observation]) -> tuple[float | None, tuple[str, ...]]:
    """EnvPool's ``X-v5`` ids (no ``ALE/``): sticky 0, EnvPool's default (the Gymnasium ids are read by scoring)."""
    ids = {o.game for o in observations}
    if ids and all(_ENVPOOL_V5.match(i) for i in ids):
        return 0.0, (f"sticky-action probability 0 from the EnvPool ids ({sorted(ids)[0]}: EnvPool's default "
                     "repeat_action_probability is 0; say --sticky-actions if the runs set it)",)
    return None, ()


def read_log(path: str, log_format: str | None = None, last: int | None = None) -> LogReading:
    """What ``score PATH`` reads at ``path``: a scores file, an episode table or a log (see the module docstring).

    ``log_format`` forces the kind (one of :data:`LOG_FORMATS`); ``last`` is the number of final episodes
    averaged per run (default: :data:`TRAINING_WINDOW` for training logs, every episode of an episode list).
    """
    if log_format is not None and log_format not in LOG_FORMATS:
        raise InputError(f"--log-format {log_format!r}: one of {', '.join(LOG_FORMATS)}")
    if last is not None and (isinstance(last, bool) or not isinstance(last, int) or last < 1):
        raise InputError(f"--last {last!r}: a whole number of episodes, 1 or more")
    if path == "-":
        if log_format not in (None, "scores"):
            raise InputError(f"--log-format {log_format}: standard input holds a scores file; give the log's path")
        from .input import read_scores_file

        return LogReading("scores", "<stdin>", read_scores_file("-"))
    file = Path(path)
    if not file.exists() and not file.is_symlink():
        raise InputError(f"{path}: no such file or folder")
    columns = _episode_columns()
    text = None if file.is_dir() or "tfevents" in file.name.lower() else decoded_text(file, path)
    kind = log_format or detect_format(path, text, columns)
    if kind != "scores" and text is None and kind not in ("sb3-monitor", "tensorboard"):
        raise InputError(f"{path}: a folder; --log-format {kind} reads a file")
    window = last if last is not None else TRAINING_WINDOW if kind in TRAINING_KINDS else None
    if kind == "scores":
        if last is not None:
            raise InputError(f"--last {last}: {path} is a scores file (one score per game and seed), not episodes")
        return LogReading("scores", file.name, observations_from_text(text, file.name, _text_kind(file)))
    if kind in ("episodes", "jsonl"):
        reading = _episode_list(kind, text, file.name, window)
    elif kind == "sb3-monitor":
        files = _files(file, "*.monitor.csv") if file.is_dir() else [file]
        reading = _monitor(files, file.name, window)
    elif kind == "tensorboard":
        reading = _tensorboard(file, file.name, window)
    else:
        reading = _wandb(text, file.name, window)
    sticky, notes = _env_id_notes(reading.observations)
    if sticky is not None and reading.sticky_action_probability is None:
        reading = reading._replace(sticky_action_probability=sticky, inferred=reading.inferred + notes)
    return reading


def _text_kind(file: Path) -> str | None:
    suffix = file.suffix.lower()
    return "json" if suffix == ".json" else "csv" if suffix in (".csv", ".tsv", ".txt") else None


def _episode_columns() -> list[str]:
    """The episode table's columns (schemas/episodes.schema.json), the package's one description of it."""
    from ..data.datapackage import package_root, read_json_file

    schema = read_json_file(package_root(None), "schemas/episodes.schema.json", "the episode table's schema")
    return [field["name"] for field in schema["fields"]]


def clipped_reasons(reading: LogReading, aliases: Mapping[str, str]) -> tuple[str, ...]:
    """Why ``reading``'s returns look clipped: the file says so, or a game's returns cannot be its raw scores
    (:func:`~atari5_spec.data.limits.clipped_problem`); empty when nothing says so."""
    from ..data.ids import UnknownGameError, resolve_game
    from ..data.limits import clipped_problem

    if reading.kind == "scores":
        return ()
    reasons = list(reading.clipped)
    returns: dict[str, list[float]] = {}
    for run in reading.runs:
        try:
            game = resolve_game(run.game, aliases)
        except UnknownGameError:
            continue  # group_runs names it with the closest spellings
        returns.setdefault(game, []).extend(run.returns)
    for game in sorted(returns):
        problem = clipped_problem(game, returns[game])
        if problem:
            reasons.append(f"{reading.source}: {problem}")
    return tuple(reasons)
