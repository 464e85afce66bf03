"""Bring the results published after the Atari-5 paper into the data package, through the front door.

Usage::

    python scripts/import_2023.py UPSTREAM_2023_DIR [--package DIR] [--fixture tests/fixtures/upstream_2023_sample.json.gz]

UPSTREAM_2023_DIR holds the raw files as their authors published them:

* danijar/dreamerv3 @ e3f02248693a79dc8b0ebd62c93683888ddaccfe (MIT):
  ``scores/atari57-dreamerv3.json.gz``, ``atari57-muzero.json.gz``,
  ``atari57-ppo_fixhp.json.gz``, ``atari100k-dreamerv3.json.gz`` and
  ``atari100k-ppo_fixhp.json.gz`` (learning curves, one per game and seed),
  here named ``dreamerv3-repo_<file>``;
* openrlbenchmark/openrlbenchmark @ d67da557945475e465866071765048d8ffe1aa4a
  (MIT): ``static/cleanrl_vs_baselines_atari.csv`` ("mean ± std" per game for
  openai/baselines PPO2 and CleanRL's envpool PPO).

For each agent this script writes a submission ``contributions/<id>/``
(metadata.yaml + scores.csv) exactly as a contributor would, and merges it
with ``atari5-spec contribute add``: curves become per-seed rows at the
budgets 10M, 25M, 50M, 100M and 200M frames (400k for Atari 100k) and per-seed
final rows, by the rule of :mod:`atari5_spec_maintainers.contributions.curves` (written into each
source's ``curve_rule``); the per-game number fits would use is the mean over
seeds (MuZero: its single run), derived by the contribution code; the
openrlbenchmark cells enter verbatim as "mean ± std".

The protocol facts of every agent, with where each comes from, are in
``PROTOCOLS`` below. The package never reads the upstream folder; this script
is provenance. It also writes the small test fixture the import tests
recompute every number from (a few games' raw runs and table rows).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/submissions.py

from submissions import CONTRIBUTOR, import_agents, protocol  # noqa: E402
from atari5_spec_maintainers.contributions.curves import curve_rows, read_curves, rule_text  # noqa: E402
from atari5_spec.data.writing import csv_text  # noqa: E402

DREAMER_REPO, DREAMER_COMMIT = "danijar/dreamerv3", "e3f02248693a79dc8b0ebd62c93683888ddaccfe"
ORL_REPO, ORL_COMMIT = "openrlbenchmark/openrlbenchmark", "d67da557945475e465866071765048d8ffe1aa4a"
ORL_PATH = "static/cleanrl_vs_baselines_atari.csv"
BUDGETS_200M = [10_000_000, 25_000_000, 50_000_000, 100_000_000, 200_000_000]
BUDGETS_100K = [400_000]
FIXTURE_GAMES = ("double_dunk", "qbert")  # small, and one of them is in Atari-5

DREAMER_PAPER = dict(
    title="Mastering diverse control tasks through world models",
    authors=["Danijar Hafner", "Jurgis Pasukonis", "Jimmy Ba", "Timothy Lillicrap"],
    year=2025, arxiv="2301.04104", url="https://github.com/danijar/dreamerv3")
MUZERO_PAPER = dict(
    title="Mastering Atari, Go, chess and shogi by planning with a learned model",
    authors=["Julian Schrittwieser", "Ioannis Antonoglou", "Thomas Hubert", "Karen Simonyan", "Laurent Sifre",
             "Simon Schmitt", "Arthur Guez", "Edward Lockhart", "Demis Hassabis", "Thore Graepel",
             "Timothy Lillicrap", "David Silver"],
    year=2020, arxiv="1911.08265", url="https://github.com/danijar/dreamerv3")
ORL_PAPER = dict(
    title="Open RL Benchmark: Comprehensive Tracked Experiments for Reinforcement Learning",
    authors=["Shengyi Huang", "Quentin Gallouédec", "Florian Felten", "Antonin Raffin"],
    year=2024, arxiv="2402.03046", url="https://github.com/openrlbenchmark/openrlbenchmark")

# The DreamerV3 repository's Atari settings (configs.yaml env.atari / env.atari100k and
# embodied/envs/atari.py), which the upstream README confirms for DreamerV3 and its PPO runs.
DREAMER_ATARI = ("danijar/dreamerv3 at the commit above: configs.yaml env.atari (repeat 4, sticky on, actions all, "
                 "lives unused, noops 30) and embodied/envs/atari.py (repeat_action_probability 0.25 when sticky, "
                 "the full action set, a 108000-frame episode cap, 0 to 30 random no-ops at reset)")
DREAMER_100K = ("danijar/dreamerv3 at the commit above: configs.yaml env.atari100k (repeat 4, sticky off, actions "
                "needed = the minimal set, lives unused, noops 30) and embodied/envs/atari.py (108000-frame cap); "
                "Atari 100k = 100k agent steps = 400k frames")


ATARI57 = dict(start_condition="no-op", noop_max=30, sticky_action_probability=0.25, action_set="full",
               life_loss_episode_end=False, frame_skip=4, max_episode_frames=108000, training_frames=200_000_000,
               regime="200M", env_family="ale")
ATARI100K = dict(start_condition="no-op", noop_max=30, sticky_action_probability=0, action_set="minimal",
                 life_loss_episode_end=False, frame_skip=4, max_episode_frames=108000, training_frames=400_000,
                 regime="atari-100k", env_family="ale")
# Both Open RL Benchmark PPO columns: 10M agent steps of training episodes, mean +- std over seeds.
ORL_PPO = dict(start_condition="no-op", noop_max=30, sticky_action_probability=0, action_set="minimal",
               life_loss_episode_end=True, frame_skip=4, training_frames=40_000_000, regime="40M",
               evaluation="training-episodes", seeds=None, statistic="mean",
               statistic_note="Mean and standard deviation over seeds of the average return of training episodes "
                              "(openrlbenchmark's rlops report); the seed count is not in the file.")
CURVE_STAT = "Mean over seeds of each run's score at the budget, read off its learning curve by the curve_rule."

AGENTS = [
    dict(id="dreamerv3", name="DreamerV3", file="atari57-dreamerv3.json.gz", paper=DREAMER_PAPER,
         budgets=BUDGETS_200M, location="learning curves in the authors' repository, scores/atari57-dreamerv3.json.gz",
         protocol=protocol(**ATARI57, seeds=None, statistic="mean", statistic_note=CURVE_STAT,
                           protocol_note=DREAMER_ATARI + "; seeds vary from 3 to 6 per game in the curves file"),
         notes="Learning curves of 57 games x 3-6 seeds (299 runs); two runs stop before 200M frames "
               "(29.6M and 156M) and count only at the budgets they reach."),
    dict(id="dreamerv3-atari100k", name="DreamerV3 (Atari 100k)", file="atari100k-dreamerv3.json.gz",
         paper=DREAMER_PAPER, budgets=BUDGETS_100K,
         location="learning curves in the authors' repository, scores/atari100k-dreamerv3.json.gz",
         protocol=protocol(**ATARI100K, seeds=5, statistic="mean", statistic_note=CURVE_STAT,
                           protocol_note=DREAMER_100K), notes="Atari 100k: 26 games x 5 seeds."),
    dict(id="muzero-curves", name="MuZero (learning curves)", file="atari57-muzero.json.gz", paper=MUZERO_PAPER,
         budgets=BUDGETS_200M,
         location="learning curves to 200M frames as redistributed in danijar/dreamerv3, scores/atari57-muzero.json.gz",
         protocol=protocol(start_condition=None, sticky_action_probability=None, max_episode_frames=None,
                           training_frames=200_000_000, regime="200M", seeds=1, statistic="single-seed",
                           statistic_note="One run per game; its score at the budget read off the curve by the curve_rule.",
                           protocol_note="200M frames and 1 run per game: the curves file (all curves end between "
                                         "197M and 200M frames); the environment settings of these runs are not "
                                         "stated in the sources read"),
         notes="Not the MuZero entry of the Papers with Code tables (muzero), which reports a far larger budget."),
    dict(id="ppo-dreamerv3", name="PPO (DreamerV3 authors' runs)", file="atari57-ppo_fixhp.json.gz",
         paper=DREAMER_PAPER, budgets=BUDGETS_200M,
         location="PPO baseline learning curves in the authors' repository, scores/atari57-ppo_fixhp.json.gz",
         protocol=protocol(**ATARI57, seeds=5, statistic="mean", statistic_note=CURVE_STAT,
                           protocol_note="PPO with fixed hyper-parameters run by the DreamerV3 authors in the "
                                         "DreamerV3 Atari setting: " + DREAMER_ATARI),
         notes="PPO with fixed hyper-parameters across games (ppo_fixhp): 57 games x 5 seeds."),
    dict(id="ppo-dreamerv3-atari100k", name="PPO (DreamerV3 authors' runs, Atari 100k)",
         file="atari100k-ppo_fixhp.json.gz", paper=DREAMER_PAPER, budgets=BUDGETS_100K,
         location="PPO baseline learning curves in the authors' repository, scores/atari100k-ppo_fixhp.json.gz",
         protocol=protocol(**ATARI100K, seeds=5, statistic="mean", statistic_note=CURVE_STAT,
                           protocol_note="PPO run by the DreamerV3 authors in the Atari 100k setting: " + DREAMER_100K),
         notes="Atari 100k: 26 games x 5 seeds."),
    dict(id="ppo2-baselines", name="PPO2 (openai/baselines)", column=1, paper=ORL_PAPER,
         location=f"{ORL_PATH}, column openrlbenchmark/baselines/baselines-ppo2-cnn",
         protocol=protocol(**ORL_PPO, max_episode_frames=None, env_family="NoFrameskip-v4",
                           protocol_note="openai/baselines make_atari and wrap_deepmind (NoopResetEnv noop_max 30, "
                                         "MaxAndSkipEnv skip 4, EpisodicLifeEnv), *NoFrameskip-v4 ids (no sticky "
                                         "actions, minimal action set); the baselines PPO2 Atari runs are 10M agent "
                                         "steps = 40M frames"),
         notes="The upstream file says 10M; that is agent steps (x frame skip 4 = 40M frames)."),
    dict(id="ppo-cleanrl-envpool", name="PPO (CleanRL, envpool)", column=2, paper=ORL_PAPER,
         location=f"{ORL_PATH}, column openrlbenchmark/envpool-atari/ppo_atari_envpool_xla_jax_truncation",
         protocol=protocol(**ORL_PPO, max_episode_frames=108000, env_family="envpool-v5",
                           protocol_note="CleanRL ppo_atari_envpool_xla_jax_truncation: envpool -v5 ids with "
                                         "episodic_life on, 10M agent steps = 40M frames; envpool's Atari defaults: "
                                         "repeat_action_probability 0, noop_max 30, frame_skip 4, 27000 steps "
                                         "(108000 frames), minimal action set (not Gymnasium's ALE/X-v5 settings)"),
         notes="envpool's -v5 ids do not use sticky actions, unlike Gymnasium's ALE/X-v5."),
]

def curve_submission(agent: dict, upstream: Path) -> tuple[dict, str]:
    runs = read_curves(upstream / f"dreamerv3-repo_{agent['file']}")
    statistic = agent["protocol"]["statistic"]
    rule = rule_text(statistic="value of the single run" if statistic == "single-seed" else "mean")
    path = f"scores/{agent['file']}"
    rows = curve_rows(runs, agent["budgets"], agent["protocol"]["training_frames"])
    columns = ["game", "seed", "training_frames", "score", "points", "first_frame", "last_frame", "provenance"]
    metadata = dict(name=agent["name"], paper=dict(agent["paper"], location=agent["location"]),
                    protocol=agent["protocol"],
                    upstream=dict(repository=DREAMER_REPO, commit=DREAMER_COMMIT, path=path, licence="MIT",
                                  curve_rule=rule),
                    contributor=CONTRIBUTOR, notes=agent["notes"])
    return metadata, csv_text(columns, ([r[c] for c in columns] for r in rows))


def table_submission(agent: dict, upstream: Path) -> tuple[dict, str]:
    text = (upstream / "openrlbenchmark_cleanrl_vs_baselines_atari.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    body = [(line, row) for line, row in enumerate(rows[1:], start=2) if row and row[0]]
    columns = ["game", "score", "provenance"]
    out = [(row[0], row[agent["column"]], f"line {line}") for line, row in body]
    metadata = dict(name=agent["name"], paper=dict(agent["paper"], location=agent["location"]),
                    protocol=agent["protocol"],
                    upstream=dict(repository=ORL_REPO, commit=ORL_COMMIT, path=ORL_PATH, licence="MIT"),
                    contributor=CONTRIBUTOR, notes=agent["notes"])
    return metadata, csv_text(columns, out)


def write_fixture(upstream: Path, path: Path) -> None:
    """A few games' raw runs and table rows, in the upstream formats, for the import tests."""
    fixture = {"dreamerv3-repo": {}, "openrlbenchmark": []}
    for agent in AGENTS:
        if "file" in agent:
            runs = json.loads(gzip.decompress((upstream / f"dreamerv3-repo_{agent['file']}").read_bytes()))
            fixture["dreamerv3-repo"][agent["id"]] = [r for r in runs if r["task"].split("_", 1)[1] in FIXTURE_GAMES]
    text = (upstream / "openrlbenchmark_cleanrl_vs_baselines_atari.csv").read_text(encoding="utf-8")
    wanted = ("DoubleDunkNoFrameskip-v4", "QbertNoFrameskip-v4")
    fixture["openrlbenchmark"] = [row for row in csv.reader(io.StringIO(text)) if row and row[0] in wanted]
    data = json.dumps(fixture, sort_keys=True, separators=(",", ":")).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data, mtime=0))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("upstream", type=Path, help="folder with the upstream-2023 raw files")
    parser.add_argument("--package", type=Path, default=ROOT, help="data package to merge into (default: this repository)")
    parser.add_argument("--fixture", type=Path, default=ROOT / "tests" / "fixtures" / "upstream_2023_sample.json.gz",
                        help="where to write the test fixture")
    parser.add_argument("--only", nargs="*", default=None, help="import only these agent ids")
    args = parser.parse_args(argv)
    def make(agent, upstream):
        return (curve_submission if "file" in agent else table_submission)(agent, upstream)

    if not import_agents(AGENTS, make, args.upstream, args.package, "scripts/import_2023.py", only=args.only):
        return 1
    write_fixture(args.upstream, args.fixture)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
