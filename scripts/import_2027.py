"""The public sticky-action baselines (third batch, issue 33): Dopamine and Cleanba, through the front door.

Usage::

    python scripts/import_2027.py UPSTREAM_2027_DIR [--package DIR] [--only ID ...] [--dry-run]

UPSTREAM_2027_DIR holds the raw files exactly as their public repositories hold them (the folder's README.md
says where each came from):

* ``dopamine/<game>.json.gz``, ``dopamine/<game>_Impala.json.gz``, ``dopamine/<game>_CNN.json.gz``:
  google/dopamine ``baselines/atari/data/<file>.json`` (gzipped, nothing else changed; Apache-2.0, the
  repository's LICENSE file read). The folder was taken at commit 5873f54; the search index holds the
  ``<game>.json`` files at 8842298e89cfe42c80ea71f63913017696785f0f and the ``_Impala`` / ``_CNN`` files at
  9f616b924451cc5c23800c49e8907ebc67f8498b (their last change), which are the commits cited. The protocol is
  read from both DQN configurations, the JAX one the baselines README names (``DQN_GIN``) and the legacy
  TensorFlow one (``TF_DQN_GIN``): they agree on sticky actions, iterations and the episode cap.
* ``cleanba/<experiment>.csv``: vwxyzjn/cleanba ``static/cleanba/`` at d1f8979c33e4e1c3d4e67f460afcebb42b6889d4
  (MIT, the repository's LICENSE file read).

Each agent configuration becomes ``contributions/<id>/`` (metadata.yaml + scores.csv) exactly as a contributor
would write it and is merged with ``atari5-spec contribute add`` (one data version per agent). Then the Cleanba
configurations that appear in more than one file, and two Dopamine entries against the package's REVISITING.csv
entries they match (``REVISITING_PAIRS``), are written to ``data/cross_checks.csv`` (one more data version), and where each entry's sticky actions and training frames are stated, or not, to
``data/protocol_evidence.csv`` through ``scripts/update_protocol_evidence.py`` (one more). Every row names its
file and line. The package never reads the upstream folder at run time.

Decisions:

* Dopamine, configurations: six agents in ``<game>.json`` (DQN, C51, Rainbow, IQN, Quantile (JAX), DQN (Adam +
  MSE in JAX)) and five in each of ``_Impala`` and ``_CNN`` (DQN, C51, Rainbow, IQN, QR-DQN with an Impala
  network and with the standard CNN): 16 entries. None repeats another: ``dopamine_repeats`` compares every
  pair of configurations over every (game, iteration) they share, and the most any pair shares is the values
  of 50 of 11,940 iterations (not counting iterations where every run prints one value, such as 0.0), against
  all of them for a repeat; the script stops if a pair agrees on more than 1%.
* Dopamine, runs: in ``<game>.json`` each agent's five runs are consecutive blocks of iterations 0..198 (a run
  starts where the iteration number does not increase); in ``_Impala`` / ``_CNN`` the rows go iteration by
  iteration, the five runs of an iteration one after another, so run k is the k-th row of its agent in each
  iteration. That order is a run's identity: consecutive values of the same position differ by about half
  as much as values of shuffled positions (as in the block files, whose runs are known). Where an iteration
  has fewer than five rows (its last iteration for 1 to 10 configurations of a game; iterations 56-199 of
  QR-DQN with the CNN on Montezuma's Revenge) the runs cannot be told apart, so that iteration is left out
  for every run of the configuration: the runs then count at the budgets they still reach (curve rule).
* Dopamine, numbers: ``Value`` is one number per run and iteration. Which returns it holds is not stated: the
  JAX configuration trains without an evaluation phase (``create_runner.schedule = 'continuous_train'``, so its
  runner logs training episodes), the legacy TensorFlow one alternates training and evaluation phases, and the
  files' '(JAX)' labels on two agents suggest the other four are legacy agents; evaluation is left empty.
  Iteration i ends after (i + 1) x 250,000 agent steps = (i + 1) million frames, its curve point's frame. A
  run's score at a budget B is the package's curve rule (atari5_spec_maintainers.contributions.curves, the mean of the last
  five points at or below B); the final rows are at 200M frames (the ``<game>.json`` runs end at 199M frames,
  within the rule's 2.5%); the published number per game is the mean over the runs (derived by contribute add).
* Dopamine, resolution (``BUDGETS``, ``curve_games``): every run's final score at 200M frames for the 55 games,
  and its scores at 10M, 50M and 100M frames for the 15 games the package's pinned Atari-n subsets read
  (Atari-10 and Atari-5-Val; the leaderboard's curve needs those). Every iteration with its runs would be
  16 x 55 x 5 x 200 = 880,000 rows; every 10M frames 88,000, and even three budgets for all 55 games (13,200
  rows, about 350 kB compressed) put the wheel over its 2 MB limit (2.13 MB measured). 3,600 rows keep an
  early, middle and late point of every run where the package reads it; other budgets and games can be rebuilt
  from the public files with this script (``BUDGETS`` and ``curve_games``).
* Cleanba: each ``<experiment>.csv`` has one column per configuration, cells ``mean ± std`` as printed (the
  files do not say over how many runs). The same configuration appears in several files: two columns are one
  configuration when their names match after ``CLEANBA_SAME_NAME`` (the smootheness files' 'Moolib (Resnet CNN)'
  is 'Moolib IMPALA', whose cells they share; sync_or_not_sync.csv writes '(sync)' in lower case). Each distinct
  configuration is imported once, from the first file of ``CLEANBA_FILES`` that holds it; every other column
  holding it is compared game by game in ``data/cross_checks.csv``: 'Cleanba PPO (Sync), 1 A100, 10 CPU' of
  smootheness_complete.csv differs from main_10CPU.csv's on Alien only; 'Cleanba PPO (sync), 8 A100, 46 CPU' of
  sync_or_not_sync.csv shares its name with spec_out.csv's 'Cleanba PPO (Sync), 8 A100, 46 CPU' but none of its cells (recorded as a disagreement on every game, not as a further
  configuration). Twelve configurations result; the ``*_runtimes.csv`` files are wall-clock times, not scores.

Not imported, and why: the SLM-Lab 2019 benchmark (kengz/SLM-Lab-doc, benchmark-results/atari-benchmark.md) and
the ChainerRL DQN and A3C reproductions (chainer/chainerrl, examples/atari/reproduction/{dqn,a3c}/README.md)
are named by the upstream README as text tables to read with the search tool; their numbers are not in the
upstream folder, and this script builds only from files there (the ChainerRL READMEs are, moreover, stored only
at 2b58abf, not at the 7eed375 the README names). A copy of those files beside the others would let a
``slm-lab-2019`` and ``chainerrl-dqn`` / ``chainerrl-a3c`` import follow the decisions of scripts/import_2026.py.
"""

from __future__ import annotations

import argparse
import csv
import functools
import gzip
import io
import itertools
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/submissions.py, scripts/import_atari100k.py

from import_atari100k import write_cross_checks  # noqa: E402
from submissions import CONTRIBUTOR, import_agents, protocol  # noqa: E402
from atari5_spec_maintainers.contributions.curves import budget_score, rule_text  # noqa: E402
from atari5_spec.data.writing import csv_text, format_value  # noqa: E402

# --- Dopamine -----------------------------------------------------------------------------------------------------

DOPAMINE_REPO, DOPAMINE_FOLDER = "google/dopamine", "baselines/atari/data"
DOPAMINE_COMMITS = {"": "8842298e89cfe42c80ea71f63913017696785f0f",
                    "_Impala": "9f616b924451cc5c23800c49e8907ebc67f8498b",
                    "_CNN": "9f616b924451cc5c23800c49e8907ebc67f8498b"}
DQN_GIN = "dopamine/jax/agents/dqn/configs/dqn.gin at 9f616b924451cc5c23800c49e8907ebc67f8498b"
DOPAMINE_PAPER = dict(title="Dopamine: A Research Framework for Deep Reinforcement Learning",
                      authors=["Pablo Samuel Castro", "Subhodeep Moitra", "Carles Gelada", "Saurabh Kumar",
                               "Marc G. Bellemare"],
                      year=2018, arxiv="1812.06110", url="https://github.com/google/dopamine")
FRAMES_PER_ITERATION = 1_000_000  # Runner.training_steps 250,000 agent steps at frame skip 4
FINAL = 200_000_000
BUDGETS = (10_000_000, 50_000_000, 100_000_000)
RUNS = 5
# Games of the files outside the 57: data/seed_scores.csv and data/budget_scores.csv hold the 57 only, and a
# published number of these would be derived from per-run rows, so they are left out (said in each entry's notes).
OUTSIDE_57 = ("airraid", "carnival", "elevatoraction", "journeyescape", "pooyan")
TF_DQN_GIN = "dopamine/agents/dqn/configs/dqn.gin at 163a9c03ad98b1988b0d68177aec71412c179e93"
DOPAMINE_PROTOCOL_NOTE = (
    "Both DQN configurations state it, the JAX dqn.gin at 9f616b9 (the default the baselines README names) and the "
    "legacy TensorFlow dqn.gin at 163a9c0: lines 26-27 'Sticky actions with probability 0.25, as suggested by "
    "(Machado et al., 2017)', sticky_actions = True; 200 iterations of 250,000 agent steps (200M frames at frame "
    "skip 4; JAX lines 31-32, TF 28-29); max_steps_per_episode 27,000 agent steps (108,000 frames; JAX line 34, TF "
    "31). Not stated, left empty: which returns Value holds (JAX trains without evaluation phases, line 28 "
    "continuous_train; TF alternates 125,000-step evaluation phases) and the start condition")
DOPAMINE_STATISTIC_NOTE = ("Mean over the five runs of each run's score at 200M frames by the curve rule (the mean of "
                           "its last five iterations' Value).")
# contribute add joins note and statistic note in data/algorithms.csv's protocol_note (at most 1,000 characters),
# and scripts/update_protocol_evidence.py appends its pointer (75): room is kept for both.
assert len(DOPAMINE_PROTOCOL_NOTE) + len(DOPAMINE_STATISTIC_NOTE) <= 880

# (id, file suffix, agent as the file names it, name)
DOPAMINE_AGENTS = [
    ("dopamine-dqn", "", "DQN", "DQN (Dopamine)"),
    ("dopamine-c51", "", "C51", "C51 (Dopamine)"),
    ("dopamine-rainbow", "", "Rainbow", "Rainbow (Dopamine)"),
    ("dopamine-iqn", "", "IQN", "IQN (Dopamine)"),
    ("dopamine-quantile", "", "Quantile (JAX)", "QR-DQN (Dopamine, Quantile JAX)"),
    ("dopamine-dqn-adam-mse", "", "DQN (Adam + MSE in JAX)", "DQN with Adam and MSE loss (Dopamine, JAX)"),
    *[(f"dopamine-{net.lower()}-{slug}", f"_{net}", agent, f"{agent} ({label}, Dopamine)")
      for net, label in (("Impala", "Impala network"), ("CNN", "standard CNN"))
      for agent, slug in (("DQN", "dqn"), ("C51", "c51"), ("Rainbow", "rainbow"), ("IQN", "iqn"),
                          ("QR-DQN", "qr-dqn"))],
]
# What the files' agent names leave open, per layout (derived, not stated).
DOPAMINE_WHICH = {
    "": "The file labels two of its six agents '(JAX)'; the other four are most likely Dopamine's legacy "
        "TensorFlow agents (the baselines README lists their configurations too): not stated. ",
    "_Impala": "The Impala and CNN files compare the same five agents with two networks (a later comparison); "
               "the files do not name the implementation. ",
}
DOPAMINE_WHICH["_CNN"] = DOPAMINE_WHICH["_Impala"]

VALUE_LINE = re.compile(r'^\s*"Value": (?P<value>[^,\s]+),?\s*$')


@functools.lru_cache(maxsize=None)
def dopamine_records(path: Path) -> list[tuple[int, str, str, int]]:
    """(iteration, value text, agent, line of the value) of one file, in file order; the text as written."""
    text = gzip.decompress(path.read_bytes()).decode("utf-8")
    records = json.loads(text, parse_float=str, parse_int=str)
    value_lines = [(n, m.group("value")) for n, line in enumerate(text.split("\n"), 1)
                   if (m := VALUE_LINE.match(line))]
    if len(value_lines) != len(records):
        raise SystemExit(f"{path.name}: {len(records)} records but {len(value_lines)} Value lines")
    out = []
    for record, (line, value) in zip(records, value_lines):
        if record["Value"] != value:
            raise SystemExit(f"{path.name} line {line}: Value {value!r}, parsed {record['Value']!r}")
        out.append((int(record["Iteration"]), value, record["Agent"], line))
    return out


def dopamine_runs(path: Path, agent: str, blocks: bool) -> dict[int, list[tuple[int, str, int]]]:
    """run -> [(iteration, value text, line)] of one agent in one file (module docstring: how runs are found)."""
    rows = [(i, v, line) for i, v, a, line in dopamine_records(path) if a == agent]
    runs: dict[int, list] = {}
    if blocks:  # consecutive blocks: a new run where the iteration does not increase
        run = 0
        for k, row in enumerate(rows):
            if k and row[0] <= rows[k - 1][0]:
                run += 1
            runs.setdefault(run, []).append(row)
        return runs
    by_iteration: dict[int, list] = {}
    for row in rows:
        by_iteration.setdefault(row[0], []).append(row)
    for iteration in sorted(by_iteration):
        group = by_iteration[iteration]
        if len(group) != RUNS:  # runs cannot be told apart in this iteration: left out for all of them
            continue
        for run, row in enumerate(group):
            runs.setdefault(run, []).append(row)
    return runs


def dopamine_game_files(upstream: Path, suffix: str) -> list[Path]:
    """The 60 files of one layout: <game>.json.gz (suffix ''), <game>_Impala.json.gz or <game>_CNN.json.gz."""
    stems = {p: p.name[: -len(".json.gz")] for p in (upstream / "dopamine").glob("*.json.gz")}
    files = sorted(p for p, stem in stems.items() if (stem.endswith(suffix) if suffix else "_" not in stem))
    if len(files) != 60:
        raise SystemExit(f"dopamine/*{suffix}.json.gz: {len(files)} files, expected 60")
    return files


def dopamine_rows(path: Path, agent: str, blocks: bool, budgets) -> list[tuple]:
    """scores.csv rows (game, score, seed, training_frames, points, first_frame, last_frame, provenance): every run's
    final row, and its rows at ``budgets`` (none for a game outside the curve games)."""
    game = path.name.split("_")[0].split(".")[0]
    out = []
    for run, points in sorted(dopamine_runs(path, agent, blocks).items()):
        frames = [(i + 1) * FRAMES_PER_ITERATION for i, _, _ in points]
        values = [float(v) for _, v, _ in points]
        for budget in sorted({*budgets, FINAL}):
            found = budget_score(frames, values, budget)
            if found is None:
                continue
            used = [p for p in points if found.first_frame <= (p[0] + 1) * FRAMES_PER_ITERATION <= found.last_frame]
            lines = [p[2] for p in used]
            where = (f"lines {lines[0]}-{lines[-1]}" if blocks else f"lines {','.join(map(str, lines))}")
            provenance = (f"{path.name[:-3]} {where} (run {run}, iterations {used[0][0]}-{used[-1][0]})")
            score = format_value(found.score)
            if budget == FINAL:  # the run's final score (data/seed_scores.csv)
                out.append((game, score, run, "", "", "", "", provenance))
            else:
                out.append((game, score, run, budget, found.points, found.first_frame, found.last_frame, provenance))
    return out


def curve_games(package: Path) -> frozenset[str]:
    """The games every pinned Atari-n subset of the paper's coefficients reads, as Dopamine's file stems name them."""
    rows = csv.DictReader(io.StringIO((package / "coefficients" / "paper-2023" / "subset_models.csv")
                                      .read_text(encoding="utf-8")))
    return frozenset(g.replace("_", "") for r in rows if r["subset"].startswith("Atari-") for g in r["games"].split())


def dopamine_table(agent: dict, upstream: Path, package: Path = ROOT, budgets=BUDGETS) -> tuple[dict, str]:
    suffix, name_in_file = agent["suffix"], agent["agent"]
    with_curves = curve_games(package)
    rows = []
    for path in dopamine_game_files(upstream, suffix):
        game = path.name.split("_")[0].split(".")[0]
        if game not in OUTSIDE_57:
            rows += dopamine_rows(path, name_in_file, blocks=not suffix,
                                  budgets=budgets if game in with_curves else ())
    columns = ["game", "score", "seed", "training_frames", "points", "first_frame", "last_frame", "provenance"]
    layout = ("the k-th block of the agent's iterations" if not suffix else
              "the agent's k-th row in each iteration (iterations with fewer than five rows left out)")
    budget_text = ", ".join(f"{b // 1_000_000}M" for b in budgets)
    curve_rule = (f"{rule_text()}. Points: iteration i's Value at (i + 1) x 1M frames; run k: {layout}. Budget rows "
                  f"at {budget_text} for the {len(with_curves)} games of the Atari-n subsets; final rows at 200M.")
    files = f"baselines/atari/data/<game>{suffix}.json"
    metadata = dict(
        name=agent["name"],
        paper=dict(DOPAMINE_PAPER, location=f"baseline learning curves {files} of google/dopamine (60 games, agent "
                                            f"'{name_in_file}', five runs each); baselines/atari/README.md describes "
                                            "them"),
        protocol=protocol(
            start_condition=None, sticky_action_probability=0.25, frame_skip=4, max_episode_frames=108_000,
            training_frames=FINAL, regime="200M", evaluation=None, seeds=RUNS, statistic="mean",
            statistic_note=DOPAMINE_STATISTIC_NOTE,
            protocol_note=DOPAMINE_PROTOCOL_NOTE),
        upstream=dict(repository=DOPAMINE_REPO, commit=DOPAMINE_COMMITS[suffix], path=DOPAMINE_FOLDER,
                      licence="Apache-2.0", curve_rule=curve_rule),
        contributor=CONTRIBUTOR,
        notes=(f"Dopamine's baseline runs of the agent the files call '{name_in_file}': 55 games (the 57 without Defender and Surround; the "
               "files' Air Raid, Carnival, Elevator Action, Journey Escape and Pooyan are left out, as the package's "
               "per-run and curve tables hold the 57 games only), five runs each, 200 iterations of 1M frames. "
               "Each row's provenance names its file (gzipped in the "
               "import, as <game>.json in the repository) and the lines of the Values used. Curve resolution: every "
               "run's final score at 200M, and its scores at 10M, 50M and 100M frames for the 15 games the package's "
               "Atari-n subsets read (Atari-10 and Atari-5-Val), chosen to keep the wheel under its 2 MB limit "
               "(every iteration would be 200 rows per run); scripts/import_2027.py rebuilds other budgets and games "
               "from the public files. "
               + ("The folder was read at 5873f54; 9f616b9 is the files' last change. " if suffix else
                  "The folder was read at 5873f54; 8842298 is the files' last change. ")
               + DOPAMINE_WHICH[suffix]
               + "Derived, not stated: the REVISITING.csv optimiser columns of the Atari-5 authors match these runs "
                 "(Adam MSE vs 'DQN (Adam + MSE in JAX)' within 20% on 55 of 59 games, median ratio 0.996, and "
                 "RMSProp Huber vs 'DQN' on 44 of 59, as the upstream README measured; data/cross_checks.csv has "
                 "the comparison game by game), so those two entries are likely the same runs as entries the "
                 "Atari-5 selection was trained on."))
    return metadata, csv_text(columns, rows)


def dopamine_repeats(upstream: Path) -> list[tuple[str, str, int, int]]:
    """(config a, config b, iterations whose values agree, iterations shared) for every pair of the 16.

    Iterations where a configuration's runs all print one value (0.0 in Montezuma's Revenge, say) are not
    counted as agreeing: two different agents share such floors."""
    configs: dict[str, dict] = {}
    for agent in AGENTS_DOPAMINE:
        for path in dopamine_game_files(upstream, agent["suffix"]):
            game = path.name.split("_")[0].split(".")[0]
            by_iteration: dict[int, list] = {}
            for i, v, a, _ in dopamine_records(path):
                if a == agent["agent"]:
                    by_iteration.setdefault(i, []).append(v)
            configs.setdefault(agent["id"], {}).update(
                {(game, i): tuple(sorted(vs)) for i, vs in by_iteration.items()})
    out = []
    for a, b in itertools.combinations(sorted(configs), 2):
        shared = set(configs[a]) & set(configs[b])
        same = sum(configs[a][k] == configs[b][k] and len(set(configs[a][k])) > 1 for k in shared)
        out.append((a, b, same, len(shared)))
    return out


AGENTS_DOPAMINE = [dict(id=i, suffix=s, agent=a, name=n, make=dopamine_table) for i, s, a, n in DOPAMINE_AGENTS]

# --- Cleanba ------------------------------------------------------------------------------------------------------

CLEANBA_REPO, CLEANBA_COMMIT, CLEANBA_FOLDER = ("vwxyzjn/cleanba", "d1f8979c33e4e1c3d4e67f460afcebb42b6889d4",
                                                "static/cleanba")
CLEANBA_PAPER = dict(title="Cleanba: A Reproducible and Efficient Distributed Reinforcement Learning Platform",
                     authors=["Shengyi Huang", "Jiayi Weng", "Rujikorn Charakorn", "Min Lin", "Zhongwen Xu",
                              "Santiago Ontañón"],
                     year=2023, arxiv="2310.00036", url="https://github.com/vwxyzjn/cleanba")
# The order in which files are searched for a configuration's first appearance (the README's main experiment
# first); the other files' columns are cross-checks.
CLEANBA_FILES = ("main_10CPU", "spec_out", "cleanrl", "ppo_vs_impala_fair", "sync_or_not_sync",
                 "smootheness_complete", "smootheness")
# Column names that name one configuration (the smootheness files call Moolib's IMPALA 'Moolib (Resnet CNN)').
CLEANBA_SAME_NAME = {"Moolib (Resnet CNN) 1 A100, 10 CPU": "Moolib IMPALA, 1 A100, 10 CPU",
                     "Moolib (Resnet CNN) 8 A100, 80 CPU": "Moolib IMPALA, 8 A100, 80 CPU",
                     "Cleanba PPO (sync), 8 A100, 46 CPU": "Cleanba PPO (Sync), 8 A100, 46 CPU"}
CLEANBA_AGENTS = {
    "Cleanba PPO (Sync), 1 A100, 10 CPU": "cleanba-ppo-sync-1gpu",
    "Cleanba IMPALA, 1 A100, 10 CPU": "cleanba-impala-1gpu",
    "Monobeast IMPALA, 1 A100, 10 CPU": "cleanba-monobeast-impala-1gpu-10cpu",
    "Moolib IMPALA, 1 A100, 10 CPU": "cleanba-moolib-impala-1gpu",
    "Monobeast IMPALA, 1 A100, 80 CPU": "cleanba-monobeast-impala-1gpu-80cpu",
    "Moolib IMPALA, 8 A100, 80 CPU": "cleanba-moolib-impala-8gpu",
    "Cleanba IMPALA, 8 A100, 46 CPU": "cleanba-impala-8gpu",
    "Cleanba PPO (Sync), 8 A100, 46 CPU": "cleanba-ppo-sync-8gpu",
    "CleanRL PPO (Sync), 1 A100, 10 CPU": "cleanba-cleanrl-ppo-1gpu",
    "Cleanba PPO, 8 A100, 46 CPU": "cleanba-ppo-8gpu",
    "Cleanba IMPALA (Sync), 8 A100, 46 CPU": "cleanba-impala-sync-8gpu",
    "Cleanba PPO (Fair), 1 A100, 10 CPU": "cleanba-ppo-fair-1gpu",
}
CLEANBA_NOTE = ("README.md at the commit above, line 14: 'Cleanba's IMPALA and PPO achieve about 165% median HNS "
                "in Atari with sticky actions'; the files name the games <Game>-v5 (Gymnasium ALE v5, whose default "
                "repeat_action_probability is 0.25). The files and the README state neither the training frames, "
                "the number of runs, the episode limit, the start condition nor whether the numbers are evaluation "
                "or training returns, so those are left empty")


def cleanba_columns(upstream: Path) -> list[dict]:
    """Every configuration column of the experiment files: file, header, name, {game: (cell, line)}."""
    out = []
    for file in CLEANBA_FILES:
        rows = list(csv.reader(io.StringIO((upstream / "cleanba" / f"{file}.csv").read_text(encoding="utf-8"))))
        for column, header in enumerate(rows[0][1:], start=1):
            cells = {r[0]: (r[column], line) for line, r in enumerate(rows[1:], start=2) if r[column]}
            out.append(dict(file=file, header=header, name=CLEANBA_SAME_NAME.get(header, header), cells=cells))
    return out


def cleanba_configurations(upstream: Path) -> dict[str, tuple[dict, list[dict]]]:
    """name -> (the column imported, the other columns of that name): the first file of CLEANBA_FILES holding it."""
    out: dict[str, tuple[dict, list]] = {}
    for column in cleanba_columns(upstream):
        if column["name"] in out:
            out[column["name"]][1].append(column)
        else:
            out[column["name"]] = (column, [])
    if set(out) != set(CLEANBA_AGENTS):
        raise SystemExit(f"cleanba: configurations {sorted(set(out) ^ set(CLEANBA_AGENTS))} unexpected")
    return out


def cleanba_table(agent: dict, upstream: Path, package: Path = ROOT) -> tuple[dict, str]:
    column, others = cleanba_configurations(upstream)[agent["configuration"]]
    rows = [(game, cell, f"{column['file']}.csv line {line}") for game, (cell, line) in column["cells"].items()]
    also = sorted({f"{o['file']}.csv" + (f" (as '{o['header']}')" if o["header"] != column["header"] else "")
                   for o in others})
    metadata = dict(
        name=agent["configuration"],
        paper=dict(CLEANBA_PAPER, location=f"{CLEANBA_FOLDER}/{column['file']}.csv of vwxyzjn/cleanba, column "
                                           f"'{column['header']}' (cells 'mean ± std')"),
        protocol=protocol(start_condition=None, sticky_action_probability=0.25, max_episode_frames=None,
                          training_frames=None, seeds=None, statistic="other",
                          statistic_note="The first number of each cell 'a ± b' as printed; the files do not name "
                                         "the statistic or the number of runs ('a ± b' reads as a mean and a spread "
                                         "over runs, not confirmed).",
                          env_family="v5", protocol_note=CLEANBA_NOTE),
        upstream=dict(repository=CLEANBA_REPO, commit=CLEANBA_COMMIT, path=f"{CLEANBA_FOLDER}/{column['file']}.csv",
                      licence="MIT"),
        contributor=CONTRIBUTOR,
        notes=(f"{len(rows)} games. " + (f"The same configuration is also in {', '.join(also)}: compared game by "
                                          "game in data/cross_checks.csv." if also else
                                          "Only in this file of the folder.")))
    return metadata, csv_text(["game", "score", "provenance"], rows)


AGENTS_CLEANBA = [dict(id=i, configuration=c, make=cleanba_table) for c, i in CLEANBA_AGENTS.items()]


def _number(cell: str) -> float:
    return float(cell.split("±")[0].strip())


def cleanba_cross_checks(package: Path, upstream: Path) -> list[tuple]:
    """Per configuration, other file and game: the imported cell against the other file's cell."""
    import pandas as pd

    from atari5_spec.data.loading import load

    games = load(package).games.set_index("game_id")
    by_name = {str(i).split("/")[-1].split("-")[0].lower(): g for g, i in games["gymnasium_id"].items() if pd.notna(i)}
    out = []
    for name, (column, others) in cleanba_configurations(upstream).items():
        for other in others:
            for game, (cell, line) in sorted(other["cells"].items()):
                if game not in column["cells"]:
                    continue
                mine, my_line = column["cells"][game]
                a, b = _number(mine), _number(cell)
                agree = mine == cell
                label = f" as '{other['header']}'" if other["header"] != column["header"] else ""
                note = ("agree: the same cell" if agree else
                        f"disagree: {other['file']}.csv{label} prints {cell}, {column['file']}.csv {mine}")
                out.append((CLEANBA_AGENTS[name], by_name[game.split("-")[0].lower()],
                            f"{CLEANBA_REPO}@{CLEANBA_COMMIT[:7]}:{CLEANBA_FOLDER}/{column['file']}.csv line {my_line}",
                            a, f"{CLEANBA_REPO}@{CLEANBA_COMMIT[:7]}:{CLEANBA_FOLDER}/{other['file']}.csv line {line}"
                            f"{label}", b, round((b - a) / max(abs(a), abs(b), 1.0), 6), agree, note))
    return sorted(out, key=lambda r: (r[0], r[1], r[4]))


AGENTS = [*AGENTS_DOPAMINE, *AGENTS_CLEANBA]

# Dopamine entries and the package's REVISITING.csv entries (the Atari-5 authors' optimiser columns) they match, as
# the upstream README measured (derived, not stated by either source).
REVISITING_PAIRS = (("dopamine-dqn-adam-mse", "adam-mse"), ("dopamine-dqn", "rmsprop-huber"))
REVISITING_TOLERANCE = 0.2  # the upstream README's comparison: within 20%


def revisiting_cross_checks(package: Path) -> list[tuple]:
    """Per pair and game: the REVISITING.csv number the package holds against the Dopamine entry's mean of its five
    runs at 200M frames. 'agree' is within 20%: runs read off one curve at another point agree no closer."""
    from atari5_spec.data.loading import load

    data = load(package)
    scores = data.scores[data.scores.use_in_fit.astype(bool) & data.scores.supersedes.isna()]
    out = []
    for dopamine, revisiting in REVISITING_PAIRS:
        mine = scores[scores.algorithm_id == dopamine].set_index("game_id")
        theirs = scores[scores.algorithm_id == revisiting].set_index("game_id")
        for game_id in sorted(set(mine.index) & set(theirs.index)):
            a, b = float(theirs.loc[game_id, "score"]), float(mine.loc[game_id, "score"])
            relative = (b - a) / max(abs(a), abs(b), 1.0)
            agree = abs(b - a) <= REVISITING_TOLERANCE * max(abs(a), abs(b)) + 1e-9
            note = (f"{'within' if agree else 'not within'} 20% (derived, not stated: the upstream README finds the "
                    f"REVISITING column '{revisiting}' read off Dopamine's sticky-action 200M-frame runs)")
            out.append((dopamine, game_id, f"{theirs.loc[game_id, 'source_id']} {theirs.loc[game_id, 'provenance']} "
                        f"(entry {revisiting})", a,
                        f"entry {dopamine}: the mean of its five runs at 200M frames "
                        f"({mine.loc[game_id, 'provenance'].split(';')[0]})", b, round(relative, 6), agree, note))
    return out

# --- protocol evidence (data/protocol_evidence.csv, through scripts/update_protocol_evidence.py) ---------------------

DOPAMINE_EVIDENCE = (  # field, value, location in both DQN configurations (read with the search tool)
    ("sticky_action_probability", "0.25", "JAX dqn.gin lines 26-27 and TensorFlow dqn.gin lines 26-27: '# Sticky "
                                          "actions with probability 0.25, as suggested by (Machado et al., 2017).' "
                                          "and sticky_actions = True"),
    ("max_episode_frames", "108000", "JAX dqn.gin line 34 and TensorFlow dqn.gin line 31: max_steps_per_episode "
                                     "27,000 agent steps (108,000 frames at frame skip 4)"),
    ("training_frames", "200000000", "JAX dqn.gin lines 31-32 and TensorFlow dqn.gin lines 28-29: num_iterations 200, "
                                     "training_steps 250,000 agent steps (200M frames at frame skip 4)"),
)


def evidence_rows() -> list[list[str]]:
    """Where each imported entry's sticky actions and training frames (and Dopamine's episode cap) are stated, or
    that they are not."""
    rows = []
    for agent in AGENTS_DOPAMINE:
        source = f"{DOPAMINE_REPO} {DQN_GIN} and {TF_DQN_GIN}"
        rows += [[agent["id"], field, value, "stated", source, where, "read"] for field, value, where in DOPAMINE_EVIDENCE]
    for agent in AGENTS_CLEANBA:
        source = f"{CLEANBA_REPO}@{CLEANBA_COMMIT[:7]} README.md and {CLEANBA_FOLDER}/*.csv"
        rows.append([agent["id"], "sticky_action_probability", "0.25", "stated", source,
                     "README.md line 14: 'in Atari with sticky actions'; the files' game ids <Game>-v5 (Gymnasium ALE v5, "
                     "repeat_action_probability 0.25 by default)", "read"])
        rows.append([agent["id"], "training_frames", "", "not-stated", source,
                     "neither the README nor the results files state the training frames (the figures' x axes are not "
                     "data here)", "read"])
    return sorted(rows)


def record_evidence(package: Path) -> None:
    """data/protocol_evidence.csv gains evidence_rows() (one data version; a replay writes nothing)."""
    import update_protocol_evidence

    update_protocol_evidence.record_rows(package, evidence_rows(), "protocol_evidence_2027")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("upstream", type=Path, help="folder with the upstream-2027 raw files (dopamine/, cleanba/)")
    parser.add_argument("--package", type=Path, default=ROOT, help="data package to merge into (default: this repository)")
    parser.add_argument("--only", nargs="*", default=None, help="import only these agent ids")
    parser.add_argument("--dry-run", action="store_true", help="write the folders, check them, merge nothing")
    args = parser.parse_args(argv)
    if not args.only or any(i.startswith("dopamine") for i in args.only):
        worst = max(dopamine_repeats(args.upstream), key=lambda r: r[2] / r[3])
        print(f"dopamine: no configuration repeats another (most shared: {worst[0]} and {worst[1]} agree on "
              f"{worst[2]} of {worst[3]} iterations)")
        if worst[2] > 0.01 * worst[3]:
            raise SystemExit(f"dopamine: {worst[0]} and {worst[1]} agree on {worst[2]} of {worst[3]} iterations: "
                             "a repeat? Decide before importing both.")
    if not import_agents(AGENTS, lambda agent, upstream: agent["make"](agent, upstream, args.package), args.upstream,
                         args.package, "scripts/import_2027.py", only=args.only, dry_run=args.dry_run):
        return 1
    if not args.dry_run and not args.only:
        write_cross_checks(args.package, cleanba_cross_checks(args.package, args.upstream)
                           + revisiting_cross_checks(args.package))
        record_evidence(args.package)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
