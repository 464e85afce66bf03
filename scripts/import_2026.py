"""Bring the field's results since 2022 (second batch) into the data package, through the front door.

Usage::

    python scripts/import_2026.py UPSTREAM_2026_DIR [--package DIR] [--only ID ...]

UPSTREAM_2026_DIR holds the raw files exactly as their public repositories hold them:

* ``bbf/``: google-research/google-research, folder ``bigger_better_faster/scores/`` (Apache-2.0), the
  per-run scores of Bigger, Better, Faster (Schwarzer et al. 2023) and its ablations, each file's commit in
  ``bbf/SOURCES.tsv``;
* ``slm-lab/BENCHMARKS.md``: kengz/SLM-Lab ``docs/BENCHMARKS.md`` at 96be3938d3239edb595f41190ae2ae035d83c65a
  (MIT), section "Phase 4: Atari";
* ``btr/results.csv``: VIPTankz/BeyondTheRainbowICML ``results.csv`` at
  86ee767289de5dfcc12450f84ab6c5543e233c09 (MIT; LICENSE at f52b50a0ae064a0d5ccd6b462303b70d5fdb24dd): Beyond
  The Rainbow, 19 games, 200 evaluations per game, one per million frames, each the mean of 100 episodes (the
  repository's README at 06edb85da7381ba8a90a14e31e8870850b929153 says so);
* ``diamond/DIAMOND.json``: eloialonso/diamond ``results/data/DIAMOND.json`` at
  a1311e98acb0675f637f869621b0f0e97e77b3a2 (MIT; LICENSE at 137b1a993ac262a9e8235131fbeee4d4c75c7b3a): DIAMOND
  (Alonso et al. 2024), Atari 100k, five runs per game ("the results for each game and seed used in the paper",
  README.md at 7ef7ee0119cfb0fdc2a55d35d66457e6c1ffb423);
* ``chainerrl/<agent>/README.md``: chainer/chainerrl ``examples/atari/reproduction/<agent>/README.md`` (MIT;
  LICENSE at f17a6d1f6c6a3fb48a63908f154c3e38ec07cb26): rainbow at 2d9f3328b1265862c912bf530bd615ea6781d679,
  iqn at cc3e7e0b09027482b749ae524bf096c9efe731dd.

Not imported: weipu-zhang/STORM ``results/storm.json`` (Atari 100k, 5 runs per game): the repository holds no
licence file, so nothing permits copying its numbers.

For each agent this script writes a submission ``contributions/<id>/`` (metadata.yaml + scores.csv) exactly
as a contributor would and merges it with ``atari5-spec contribute add`` (one data version per agent). The
protocol of each agent states only what its source says, and where (``protocol_note``); what a source leaves
unsaid stays null. The package never reads the upstream folder at run time; this script is provenance.

Decisions, per source:

* BBF: the files' ``seed`` column is a running row number, not a training seed. A run id is the position of
  the row among the rows of its game in the file (0, 1, 2, ...): in the RR2_BBF+sticky_* files, whose runs
  are consecutive blocks of 55 games, that is the block; in RR8_BBF and RR8_BBF+sticky, whose games have
  different numbers of runs (extra runs appended later), it numbers each game's runs in file order. The
  per-game number is the mean over runs (the BBF paper reports means over runs). RR2_BBF+sticky was run once
  per budget (20k ... 1M agent steps, one file each): the 100k file gives the per-run final rows, every file
  a budget row per run (points 1: the run's own evaluation at the end of its training).
* SLM-Lab: the MA column of the Phase 4 table is ``total_reward_ma``, a moving average of training-episode
  returns (evaluation ``training-moving-average``); PPO's row per game is the best of three GAE-lambda
  settings (statistic ``best-setting-per-game``), the spec name of each row kept in its provenance. CrossQ
  (6 games, marked experimental) is left out. Games outside the 57 (Air Raid, Carnival, Journey Escape,
  Pooyan) are stored and left out of fits.
* BTR: row k of results.csv is the evaluation after k million frames; row 200 is the published number, rows
  10, 25, 50 and 100 budget rows of the file's one series per game (run 0: the README does not say over how many
  runs a series is).
* DIAMOND: each game's list holds one number per seed; run id = the position in the list. The per-game
  number is derived by ``contribute add`` as the mean over the five runs (the file does not name a statistic).
  Games are named as Gym names them (``BattleZone``); each value keeps its text as the file writes it (``7330``
  stays ``7330``, ``84.0`` stays ``84.0``).
* ChainerRL: the README's results table, column "ChainerRL Score"; Markdown bold (the README's mark for
  beating the original paper) is not part of the number; N/A cells are left out.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/submissions.py

from submissions import CONTRIBUTOR, import_agents, protocol  # noqa: E402
from atari5_spec.data.writing import csv_text  # noqa: E402

# --- BBF ------------------------------------------------------------------------------------------------------

BBF_REPO, BBF_FOLDER = "google-research/google-research", "bigger_better_faster/scores"
BBF_PAPER = dict(title="Bigger, Better, Faster: Human-level Atari with human-level efficiency",
                 authors=["Max Schwarzer", "Johan Obando-Ceron", "Aaron Courville", "Marc Bellemare",
                          "Rishabh Agarwal", "Pablo Samuel Castro"],
                 year=2023, arxiv="2305.19452", url="https://github.com/google-research/google-research")
BBF_CONFIG = ("bbf/configs/BBF.gin at 83282e4ec6e140949e0f51d04e279be7949409ff (the default configuration): "
              "sticky_actions False, up to 30 no-op starts, terminal_on_life_loss True, 100 evaluation episodes, "
              "at most 27,000 agent steps (108,000 frames) per episode, 100k training steps (400k frames at frame "
              "skip 4)")
BBF_STICKY = ("the file name's +sticky says the runs used sticky actions; no file of the source states the "
              "probability, so sticky_action_probability is left empty")
BUDGET_STEPS = {"20k": 20_000, "40k": 40_000, "60k": 60_000, "80k": 80_000, "100k": 100_000, "200k": 200_000,
                "500k": 500_000, "1M": 1_000_000}
FRAME_SKIP = 4


def bbf_sources(upstream: Path) -> dict[str, str]:
    """file name -> commit, from bbf/SOURCES.tsv."""
    rows = csv.DictReader(io.StringIO((upstream / "bbf" / "SOURCES.tsv").read_text(encoding="utf-8")),
                          delimiter="\t")
    return {r["file"]: r["commit"] for r in rows}


def bbf_runs(path: Path) -> list[tuple[int, str, int, str]]:
    """(line, game, run, score text) of a BBF scores file; run = the row's position among its game's rows."""
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    header = rows[0]
    game_at, score_at = header.index("game"), header.index("GameScoreAverage")
    seen: dict[str, int] = {}
    out = []
    for line, row in enumerate(rows[1:], start=2):
        game = row[game_at]
        run = seen.get(game, 0)
        seen[game] = run + 1
        out.append((line, game, run, row[score_at]))
    return out


def bbf_table(agent: dict, upstream: Path) -> tuple[dict, str]:
    commits = bbf_sources(upstream)
    name = agent["file"]
    rows = [(game, score, run, "", "", "", "", f"line {line}")
            for line, game, run, score in bbf_runs(upstream / "bbf" / name)]
    for budget, steps in BUDGET_STEPS.items() if agent.get("budgets") else ():
        budget_file = f"RR2_BBF+sticky_{budget}.csv"
        if budget_file == name:
            continue  # its runs are the per-run final rows already (400k frames)
        frames = steps * FRAME_SKIP
        # Short, to keep the file under the 1 MiB limit: the full commits are in upstream.curve_rule.
        where = f"budget run {BBF_FOLDER}/{budget_file}@{commits[budget_file][:7]} line"
        rows += [(game, score, run, frames, 1, frames, frames, f"{where} {line}")
                 for line, game, run, score in bbf_runs(upstream / "bbf" / budget_file)]
    columns = ["game", "score", "seed", "training_frames", "points", "first_frame", "last_frame", "provenance"]
    upstream_meta = dict(repository=BBF_REPO, commit=commits[name], path=f"{BBF_FOLDER}/{name}", licence="Apache-2.0")
    if agent.get("budgets"):
        files = {}
        for budget in BUDGET_STEPS:
            files.setdefault(commits[f"RR2_BBF+sticky_{budget}.csv"], []).append(budget)
        upstream_meta["curve_rule"] = (
            "No curves: one training run per budget (files RR2_BBF+sticky_<budget>.csv, 20k to 1M agent steps = "
            "80k to 4M frames), each row the run's own final evaluation (GameScoreAverage): points 1, first_frame "
            "= last_frame = training_frames. Run ids: the row's position among its game's rows. Commits: "
            + "; ".join(f"{', '.join(b)} at {c}" for c, b in sorted(files.items())) + ".")
    metadata = dict(name=agent["name"], paper=dict(BBF_PAPER, location=agent["location"]),
                    protocol=agent["protocol"], upstream=upstream_meta, contributor=CONTRIBUTOR,
                    notes=agent["notes"])
    return metadata, csv_text(columns, rows)


def bbf_protocol(sticky: bool, note: str) -> dict:
    return protocol(start_condition="no-op", noop_max=30, sticky_action_probability=None if sticky else 0,
                    life_loss_episode_end=True, frame_skip=4, max_episode_frames=108_000, training_frames=400_000,
                    regime="atari-100k", evaluation="evaluation-phase", eval_episodes=100, seeds=None,
                    statistic="mean",
                    statistic_note="Mean over the runs of each game of GameScoreAverage (a run's mean evaluation "
                                   "return); the number of runs differs per game (data/seed_scores.csv has each).",
                    protocol_note=note)


RUN_IDS = ("run ids: the row's position among its game's rows (the file's seed column is a running row number, "
           "not a training seed)")
AGENTS_BBF = [
    dict(id="bbf", file="RR8_BBF.csv", name="BBF",
         location="per-run scores file bigger_better_faster/scores/RR8_BBF.csv (replay ratio 8)",
         protocol=bbf_protocol(False, f"{BBF_CONFIG}; RR8 = replay ratio 8; {RUN_IDS}"),
         notes="55 games (the 57 without Defender and Surround); 9 to 60 runs per game."),
    dict(id="bbf-sticky", file="RR8_BBF+sticky.csv", name="BBF (sticky actions)",
         location="per-run scores file bigger_better_faster/scores/RR8_BBF+sticky.csv (replay ratio 8)",
         protocol=bbf_protocol(True, f"{BBF_CONFIG}, except that {BBF_STICKY}; RR8 = replay ratio 8; {RUN_IDS}"),
         notes="55 games (the 57 without Defender and Surround); 43 to 67 runs per game."),
    dict(id="bbf-rr2", file="RR2_BBF.csv", name="BBF (replay ratio 2)",
         location="per-run scores file bigger_better_faster/scores/RR2_BBF.csv",
         protocol=bbf_protocol(False, f"{BBF_CONFIG}; RR2 = replay ratio 2 (an ablation); {RUN_IDS}"),
         notes="55 games; 12 to 14 runs per game."),
    dict(id="bbf-rr2-sticky", file="RR2_BBF+sticky_100k.csv", name="BBF (replay ratio 2, sticky actions)",
         location="per-run scores files bigger_better_faster/scores/RR2_BBF+sticky_{20k,40k,60k,80k,100k,200k,500k,"
                  "1M}.csv; the published numbers are the 100k file's",
         protocol=bbf_protocol(True, f"{BBF_CONFIG}, except that {BBF_STICKY}; RR2 = replay ratio 2; the file "
                                     f"suffix is the training budget in agent steps; {RUN_IDS}"),
         budgets=True,
         notes="55 games, 18 runs per game and budget; budgets 20k to 1M agent steps in data/budget_scores.csv."),
]

# --- SLM-Lab ----------------------------------------------------------------------------------------------------

SLM_REPO, SLM_COMMIT, SLM_PATH = "kengz/SLM-Lab", "96be3938d3239edb595f41190ae2ae035d83c65a", "docs/BENCHMARKS.md"
SLM_PAPER = dict(title="SLM Lab benchmark results, Phase 4: Atari", authors=["Wah Loon Keng"], year=2026,
                 url="https://github.com/kengz/SLM-Lab/blob/96be3938d3239edb595f41190ae2ae035d83c65a/docs/BENCHMARKS.md")
SLM_NOTE = ("docs/BENCHMARKS.md, Phase 4: Atari: Gymnasium ALE v5 with sticky actions (repeat_action_probability "
            "0.25) and life_loss_info=true, max_session 4 (four sessions per run), scores are total_reward_ma, a "
            "moving average of training-episode returns; the file does not state the no-op starts, the episode "
            "limit or how the four sessions are combined")


def slm_protocol(frames: int, statistic: str, statistic_note: str, extra: str) -> dict:
    return protocol(start_condition=None, sticky_action_probability=0.25, frame_skip=None, max_episode_frames=None,
                    training_frames=frames, evaluation="training-moving-average", seeds=4, statistic=statistic,
                    statistic_note=statistic_note, env_family="v5", protocol_note=f"{SLM_NOTE}; {extra}")


AGENTS_SLM = [
    dict(id="slm-lab-ppo", spec=re.compile(r"ppo_atari(_lam[0-9]+)?_arc"), name="PPO (SLM Lab)",
         protocol=slm_protocol(10_000_000, "best-setting-per-game",
                               "Per game the best of three GAE-lambda settings (0.95, 0.85, 0.70; the spec name of "
                               "each row is in its provenance), each a moving average of training-episode returns "
                               "over four sessions.",
                               "PPO: ppo_atari_arc.yaml, max_frame 10e6 (10M frames)")),
    dict(id="slm-lab-a2c", spec=re.compile(r"a2c_gae_atari_arc"), name="A2C (SLM Lab)",
         protocol=slm_protocol(10_000_000, "other", "A moving average of training-episode returns over four "
                                                    "sessions (total_reward_ma).",
                               "A2C: a2c_gae_atari_arc, max_frame 1e7 (10M frames)")),
    dict(id="slm-lab-sac", spec=re.compile(r"sac_atari_arc"), name="SAC (SLM Lab, categorical)",
         protocol=slm_protocol(2_000_000, "other", "A moving average of training-episode returns over four "
                                                   "sessions (total_reward_ma).",
                               "SAC: sac_atari_arc.yaml, categorical SAC, max_frame 2e6 (2M frames)")),
]


def slm_rows(upstream: Path) -> list[tuple[int, str, str, str]]:
    """(line, ALE id, MA text, spec name) of the Phase 4 table; a row with an empty ENV continues the game above."""
    lines = (upstream / "slm-lab" / "BENCHMARKS.md").read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("### Phase 4: Atari"))
    out, game = [], None
    for number, line in enumerate(lines[start + 1:], start=start + 2):
        if line.startswith(("### ", "## ")):
            break
        if not line.startswith(("| ALE/", "| |")):  # the table's data rows; the header and rule are skipped
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        game = cells[0] or game
        out.append((number, game, cells[1], cells[2]))
    return out


# Rows the plausibility rule refuses (below random - 10 x (human - random)): a Tennis match ends long before a
# player can lose thousands of points, so these moving averages are not game scores. Left out, said in notes.
SLM_REFUSED = {("slm-lab-a2c", "ALE/Tennis-v5"): "-2873", ("slm-lab-sac", "ALE/Tennis-v5"): "-397.44"}


def slm_table(agent: dict, upstream: Path) -> tuple[dict, str]:
    rows, left_out = [], []
    for line, game, score, spec in slm_rows(upstream):
        if not agent["spec"].fullmatch(spec):
            continue
        if SLM_REFUSED.get((agent["id"], game)) == score:
            left_out.append(f"{game} {score} (line {line})")
            continue
        rows.append((game, score, f"line {line} ({spec})"))
    metadata = dict(name=agent["name"],
                    paper=dict(SLM_PAPER, location="docs/BENCHMARKS.md, section Phase 4: Atari, results table, "
                                                   "column MA"),
                    protocol=agent["protocol"],
                    upstream=dict(repository=SLM_REPO, commit=SLM_COMMIT, path=SLM_PATH, licence="MIT"),
                    contributor=CONTRIBUTOR,
                    notes="Games outside the 57 (Air Raid, Carnival, Journey Escape, Pooyan) are kept as the file "
                          "gives them; Montezuma's Revenge, Pitfall, Private Eye and Venture were not run."
                          + (f" Left out: {', '.join(left_out)}, below random - 10 x (human - random), which no "
                             "Tennis match allows (the plausibility rule of CONTRIBUTING.md)." if left_out else ""))
    return metadata, csv_text(["game", "score", "provenance"], rows)


# --- ChainerRL ----------------------------------------------------------------------------------------------------

CHAINERRL_REPO = "chainer/chainerrl"
CHAINERRL_PAPER = dict(title="ChainerRL: A Deep Reinforcement Learning Library",
                       authors=["Yasuhiro Fujita", "Prabhat Nagarajan", "Toshiki Kataoka", "Takahiro Ishikawa"],
                       year=2021, arxiv="1912.00167", url="https://github.com/chainer/chainerrl")
BOLD = re.compile(r"\*\*(?P<inner>.*)\*\*")


def chainerrl_table(agent: dict, upstream: Path) -> tuple[dict, str]:
    """The README's results table, column 'ChainerRL Score': N/A rows skipped, Markdown bold (** **) removed."""
    lines = (upstream / "chainerrl" / agent["folder"] / "README.md").read_text(encoding="utf-8").split("\n")
    header = next(i for i, line in enumerate(lines) if line.startswith("| Game ") and "ChainerRL Score" in line)
    column = [c.strip() for c in lines[header].strip().strip("|").split("|")].index("ChainerRL Score")
    rows = []
    for number, line in enumerate(lines[header + 2:], start=header + 3):
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        value = cells[column]
        bold = BOLD.fullmatch(value)
        value = bold.group("inner") if bold else value
        if value != "N/A":
            rows.append((cells[0], value, f"line {number}" + (" (printed in bold)" if bold else "")))
    path = f"examples/atari/reproduction/{agent['folder']}/README.md"
    metadata = dict(name=agent["name"],
                    paper=dict(CHAINERRL_PAPER, location=f"{path}, Results table, column ChainerRL Score "
                                                         f"({agent['version']})"),
                    protocol=agent["protocol"],
                    upstream=dict(repository=CHAINERRL_REPO, commit=agent["commit"], path=path, licence="MIT"),
                    contributor=CONTRIBUTOR,
                    notes="Markdown bold around a score (the README's mark for beating the original paper) is not "
                          "part of the number and was removed; games the README gives as N/A are left out.")
    return metadata, csv_text(["game", "score", "provenance"], rows)


AGENTS_CHAINERRL = [
    dict(id="chainerrl-rainbow", folder="rainbow", make=chainerrl_table, version="ChainerRL v0.7.0",
         commit="2d9f3328b1265862c912bf530bd615ea6781d679", name="Rainbow (ChainerRL reproduction)",
         protocol=protocol(start_condition="no-op", noop_max=30, sticky_action_probability=0, frame_skip=4,
                           max_episode_frames=108_000, training_frames=200_000_000, regime="200M",
                           evaluation="evaluation-phase", eval_episodes=200, seeds=1, statistic="best-checkpoint",
                           statistic_note="The best intermediate agent (evaluated every 1M frames) re-evaluated for "
                                          "200 episodes, epsilon-greedy with epsilon 0.001; one run per game.",
                           env_family="NoFrameskip-v4",
                           protocol_note="examples/atari/reproduction/rainbow/README.md, Results Summary and "
                                         "Evaluation Protocol: 200 evaluations one per 1M frames (200M frames), "
                                         "episodes capped at 30 minutes (108K frames), up to 30 no-op starts, "
                                         "4 frames per action, 1 seed; the README's commands use "
                                         "*NoFrameskip-v4 ids (no sticky actions)")),
]

AGENTS_CHAINERRL.append(
    dict(id="chainerrl-iqn", folder="iqn", make=chainerrl_table, version="ChainerRL v0.6.0",
         commit="cc3e7e0b09027482b749ae524bf096c9efe731dd", name="IQN (ChainerRL reproduction)",
         protocol=protocol(start_condition="no-op", noop_max=30, max_episode_frames=108_000,
                           training_frames=200_000_000, regime="200M", evaluation="evaluation-phase", seeds=None,
                           statistic="best-checkpoint",
                           statistic_note="Per run the best of the 200 intermediate evaluations (every 1M frames, "
                                          "the mean of the episodes completed in 500K frames), averaged over runs; "
                                          "the README says both one run and two seeds.",
                           protocol_note="examples/atari/reproduction/iqn/README.md, Results and Evaluation "
                                         "Protocol: 200 evaluations one per 1M frames (200M frames), episodes "
                                         "capped at 30 minutes (108K frames), up to 30 no-op starts; it does not "
                                         "name the environment version, so sticky actions are not stated")))

# --- Beyond The Rainbow ------------------------------------------------------------------------------------------

BTR_REPO, BTR_COMMIT, BTR_PATH = "VIPTankz/BeyondTheRainbowICML", "86ee767289de5dfcc12450f84ab6c5543e233c09", "results.csv"
BTR_PAPER = dict(title="Beyond The Rainbow: High Performance Deep Reinforcement Learning on a Desktop PC",
                 authors=["Tyler Clark", "Mark Towers", "Christine Evers", "Jonathon Hare"], year=2025,
                 url="https://github.com/VIPTankz/BeyondTheRainbowICML")
BTR_BUDGETS_M = (10, 25, 50, 100)  # budget rows; the 200th evaluation is the published number


def btr_table(agent: dict, upstream: Path) -> tuple[dict, str]:
    """results.csv: one column per game, row k = the evaluation after k million frames (the README says so)."""
    rows = list(csv.reader(io.StringIO((upstream / "btr" / "results.csv").read_text(encoding="utf-8"))))
    games, evaluations = rows[0], rows[1:]
    if len(evaluations) != 200:
        raise SystemExit(f"btr/results.csv: {len(evaluations)} evaluations, the README says 200")
    out = []
    for at, game in enumerate(games):
        final = evaluations[199][at]
        out.append((game, final, "", "", "", "", "", "line 201 (evaluation 200, 200M frames)"))
        for millions in BTR_BUDGETS_M:
            frames = millions * 1_000_000
            out.append((game, evaluations[millions - 1][at], 0, frames, 1, frames, frames,
                        f"line {millions + 1} (evaluation {millions}, {millions}M frames)"))
    columns = ["game", "score", "seed", "training_frames", "points", "first_frame", "last_frame", "provenance"]
    metadata = dict(
        name=agent["name"],
        paper=dict(BTR_PAPER, location="results.csv of the repository (one column per game, one row per "
                                       "evaluation); README.md describes it"),
        protocol=agent["protocol"],
        upstream=dict(repository=BTR_REPO, commit=BTR_COMMIT, path=BTR_PATH, licence="MIT",
                      curve_rule="Row k of results.csv is the evaluation after k million frames (the README at "
                                 "06edb85da7381ba8a90a14e31e8870850b929153: 200 evaluations, one per million "
                                 "frames, each the mean of 100 episodes). Budget rows: rows 10, 25, 50 and 100, "
                                 "points 1, first_frame = last_frame = training_frames; run 0 is the file's one "
                                 "series per game; the published number is row 200."),
        contributor=CONTRIBUTOR,
        notes="19 games, the five Atari-5 games among them. The README does not say over how many runs a series "
              "is, nor whether sticky actions were used (its environment is 'the same as the standard by "
              "default').")
    return metadata, csv_text(columns, out)


AGENTS_BTR = [
    dict(id="btr", make=btr_table, name="BTR (Beyond The Rainbow)",
         protocol=protocol(start_condition=None, sticky_action_probability=None, max_episode_frames=None,
                           training_frames=200_000_000, regime="200M", evaluation="evaluation-phase",
                           eval_episodes=100, seeds=None, statistic="other",
                           statistic_note="The evaluation after 200M frames, the mean return of 100 episodes; the "
                                          "README does not say over how many runs.",
                           protocol_note="README.md at 06edb85da7381ba8a90a14e31e8870850b929153: 200 evaluations, "
                                         "one per million frames (200M frames), each the mean of 100 episodes; the "
                                         "environment is 'exactly the same as the standard by default', which it "
                                         "does not spell out, so start condition, sticky actions and episode limit "
                                         "are left empty")),
]

DIAMOND_REPO, DIAMOND_COMMIT, DIAMOND_PATH = ("eloialonso/diamond", "a1311e98acb0675f637f869621b0f0e97e77b3a2",
                                              "results/data/DIAMOND.json")
DIAMOND_PAPER = dict(title="Diffusion for World Modeling: Visual Details Matter in Atari",
                     authors=["Eloi Alonso", "Adam Jelley", "Vincent Micheli", "Anssi Kanervisto", "Amos Storkey",
                              "Tim Pearce", "François Fleuret"], year=2024, arxiv="2405.12399",
                     url="https://github.com/eloialonso/diamond")


def diamond_table(agent: dict, upstream: Path) -> tuple[dict, str]:
    """results/data/DIAMOND.json: {game: [one number per seed]}, one number per line; the numbers' text kept."""
    import json

    text = (upstream / "diamond" / "DIAMOND.json").read_text(encoding="utf-8")
    data = json.loads(text, parse_float=str, parse_int=str)  # the number as the file writes it
    lines = text.splitlines()
    out, line = [], 0
    for game, values in data.items():
        line = next(n for n in range(line, len(lines)) if lines[n].strip().startswith(f'"{game}"'))
        for run, value in enumerate(values):
            line += 1
            if lines[line].strip().rstrip(",") != value:
                raise SystemExit(f"diamond/DIAMOND.json line {line + 1}: expected {value}, found {lines[line]!r}")
            out.append((game, value, run, f"line {line + 1}"))
    metadata = dict(
        name=agent["name"],
        paper=dict(DIAMOND_PAPER, location="results/data/DIAMOND.json of the repository: \"the results for each "
                                           "game and seed used in the paper\" (README.md)"),
        protocol=agent["protocol"],
        upstream=dict(repository=DIAMOND_REPO, commit=DIAMOND_COMMIT, path=DIAMOND_PATH, licence="MIT"),
        contributor=CONTRIBUTOR,
        notes="The 26 games of Atari 100k, five runs each; run ids are the positions in each game's list. Of the "
              "Atari-5 games only Battle Zone and Q*bert are among them.")
    return metadata, csv_text(["game", "score", "seed", "provenance"], out)


AGENTS_DIAMOND = [
    dict(id="diamond", make=diamond_table, name="DIAMOND",
         protocol=protocol(start_condition=None, sticky_action_probability=0, max_episode_frames=None,
                           training_frames=400_000, regime="atari-100k", evaluation=None, seeds=5, statistic="mean",
                           statistic_note="Derived here: the mean of the five per-run numbers of each game (the file "
                                          "does not name the statistic it reports).",
                           env_family="NoFrameskip-v4",
                           protocol_note="README.md at 7ef7ee0119cfb0fdc2a55d35d66457e6c1ffb423 (Atari 100k; the "
                                         "results file holds each game's number per seed) and config/env/atari.yaml "
                                         "at a1311e98acb0675f637f869621b0f0e97e77b3a2 (training and test environments "
                                         "*NoFrameskip-v4: no sticky actions; a life lost ends a training episode, "
                                         "not a test one); start condition, episode limit and evaluation episodes "
                                         "are not stated there")),
]

AGENTS = [*AGENTS_BBF, *AGENTS_SLM, *AGENTS_CHAINERRL, *AGENTS_BTR, *AGENTS_DIAMOND]


def make_submission(agent: dict, upstream: Path) -> tuple[dict, str]:
    if "file" in agent:
        return bbf_table(agent, upstream)
    if "spec" in agent:
        return slm_table(agent, upstream)
    return agent["make"](agent, upstream)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("upstream", type=Path, help="folder with the upstream-2026 raw files")
    parser.add_argument("--package", type=Path, default=ROOT, help="data package to merge into (default: this repository)")
    parser.add_argument("--only", nargs="*", default=None, help="import only these agent ids")
    parser.add_argument("--dry-run", action="store_true", help="write the folders, check them, merge nothing")
    args = parser.parse_args(argv)
    if not import_agents(AGENTS, make_submission, args.upstream, args.package, "scripts/import_2026.py",
                         only=args.only, dry_run=args.dry_run):
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
