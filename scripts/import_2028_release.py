"""The 2028 release (issue 46 item 1): rldb's IMPALA and NoisyNet tables, Open RL Benchmark's sticky-action PPO,
PFRL's IQN and Rainbow, nnabla-rl's C51, as never-selected evidence, through the front door.

Usage::

    python scripts/import_2028_release.py RELEASE_DIR [--package DIR] [--only ID ...] [--dry-run]

RELEASE_DIR holds the raw files exactly as their public repositories hold them (its README.md and MANIFEST.tsv say
where each came from); this script reads them in place and never copies them. Each agent becomes
``contributions/<id>/`` (metadata.yaml + scores.csv) exactly as a contributor would write it and is merged with
``atari5-spec contribute add`` (one data version per merge: the tooling bumps per submission). Every row names its
upstream file and line. A second run finds every folder merged and writes nothing.

Decisions:

* rldb (seungjaeryanlee/rldb@8c471c4, MIT): ``entries.py`` files are Python list literals, parsed with
  ``ast.literal_eval`` (never imported); each row's line range is the dict's in the file. Imported: IMPALA (shallow),
  IMPALA (deep, multitask) and the NoisyNet paper's DQN, NoisyNet DQN, DuDQN, A3C, NoisyNet A3C. Not imported:
  IMPALA (deep), equal to the package's ``impala-deep`` on every game (checked by ``rldb_cross_checks``), and
  NoisyNet DuDQN, the package's ``noisynet-dueling`` (same paper, same agent; equal on 53 of 54 games, Beam Rider
  differs): a second entry of one agent would count one result twice as evidence; the DMLab-30 folders are not
  Atari. The NoisyNet ``stddev`` goes to ``std`` (the files do not say over what).
* openrlbenchmark (openrlbenchmark/openrlbenchmark@1a4b090, MIT): the two sticky-action columns only (10M agent
  steps = 40M frames; 50M steps = 200M frames); the baseline column is already in the package (batch 2023,
  ``ppo-cleanrl-envpool``). Cells ``mean ± std`` go to score and std.
* PFRL (pfnet/pfrl@c8cb332, MIT): the ``PFRL Score`` column of the IQN and Rainbow reproduction READMEs; ``N/A``
  cells and the four games outside the 57 (AirRaid, Carnival, JourneyEscape, Pooyan) are left out; Markdown bold
  removed. The ``Original Reported Scores`` column is a cross-check only, not imported.
* nnabla-rl (sony/nnabla-rl@d6c9999, Apache-2.0): per seed (1, 10, 100) the final evaluation at 50M agent steps
  (200M frames), the last row of ``seed-N/evaluation_result_scalar.tsv`` (its ``mean``); the per-game number is the
  mean over the three seeds (derived by contribute add). The README table's best-over-training statistic is not
  what is imported.
"""

from __future__ import annotations

import argparse
import ast
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

SCRIPT = "scripts/import_2028_release.py"
OUTSIDE_57 = {"AirRaid", "Carnival", "JourneyEscape", "Pooyan"}

# --- rldb ---------------------------------------------------------------------------------------------------------

RLDB_REPO, RLDB_COMMIT = "seungjaeryanlee/rldb", "8c471c4666d6210c68f3cb468e439a2b168c785d"
IMPALA_PAPER = dict(title="IMPALA: Scalable Distributed Deep-RL with Importance Weighted Actor-Learner Architectures",
                    authors=["Lasse Espeholt", "Hubert Soyer", "Remi Munos", "Karen Simonyan", "Volodymir Mnih",
                             "Tom Ward", "Yotam Doron", "Vlad Firoiu", "Tim Harley", "Iain Dunning", "Shane Legg",
                             "Koray Kavukcuoglu"],
                    year=2018, arxiv="1802.01561", url="https://github.com/seungjaeryanlee/rldb")
NOISYNET_PAPER = dict(title="Noisy Networks for Exploration",
                      authors=["Meire Fortunato", "Mohammad Gheshlaghi Azar", "Bilal Piot", "Jacob Menick",
                               "Ian Osband", "Alex Graves", "Vlad Mnih", "Remi Munos", "Demis Hassabis",
                               "Olivier Pietquin", "Charles Blundell", "Shane Legg"],
                      year=2017, arxiv="1706.10295", url="https://github.com/seungjaeryanlee/rldb")
IMPALA_TEXT = "park-brian/rts@cd69c7b:docs/papers/1802.01561-impala-vtrace.txt"
IMPALA_NOTE = (
    "rldb entries.py: env-variant 'No-op start' on every row, algo-frames 200M (__init__.py:20). IMPALA paper "
    f"({IMPALA_TEXT}): lines 1076-1079 and 1134-1135, a game's score is the mean of 200 evaluation episodes, each "
    "begun with 1-30 random no-ops; line 2308 (Table C.1) up to 30 no-ops; lines 2989-2995 action repeat 4, life-loss "
    "episode ends in training. Sticky actions: not stated (the text never mentions them; 0 is inferred from the "
    "no-op protocol of the time, recorded as not stated). Episode cap: not stated")
IMPALA_NOTE_MULTI = (IMPALA_NOTE + ". Multitask: one network trained on all 57 games, 200M frames per game "
                     "(11.4B in all, lines 1067-1071), full 18-action set (lines 2969-2977)")
IMPALA_NOTE_SHALLOW = IMPALA_NOTE + ". Experts (one network per game) use the minimal action sets (lines 2969-2977)"
NOISYNET_NOTE = (
    "rldb entries.py: env-variant 'No-op start' on every row; algo-frames (__init__.py:20) 200M for the DQN "
    "agents, 320M for the A3C agents. No full text of the paper was read: the evaluation statistic, whether the "
    "numbers are best or final agents, sticky actions, the episode cap and the no-op maximum are not stated here")

# (id, rldb paper folder, agent folder, name)
RLDB_AGENTS = [
    ("rldb-impala-shallow", "paper__impala", "algo__atari_impala_shallow", "IMPALA (shallow)"),
    ("rldb-impala-deep-multitask", "paper__impala", "algo__atari_impala_deep_multitask", "IMPALA (deep, multitask)"),
    ("rldb-noisynet-paper-dqn", "paper__noisynet", "algo__dqn", "DQN (NoisyNet paper)"),
    ("rldb-noisynet-dqn", "paper__noisynet", "algo__noisynet_dqn", "NoisyNet DQN"),
    ("rldb-noisynet-paper-dudqn", "paper__noisynet", "algo__dudqn", "DuDQN (NoisyNet paper)"),
    ("rldb-noisynet-paper-a3c", "paper__noisynet", "algo__a3c", "A3C (NoisyNet paper)"),
    ("rldb-noisynet-a3c", "paper__noisynet", "algo__noisynet_a3c", "NoisyNet A3C"),
]
# rldb agents already in the package: (paper folder, agent folder, package algorithm id).
RLDB_ALREADY = [("paper__impala", "algo__atari_impala_deep", "impala-deep"),
                ("paper__noisynet", "algo__noisynet_dudqn", "noisynet-dueling")]


def _rldb_path(paper: str, algo: str, name: str) -> str:
    return f"rldb/db/{paper}/{algo}/{name}"


def rldb_entries(release: Path, paper: str, algo: str) -> list[tuple[dict, int, int]]:
    """(entry, first line, last line) of each dict of entries.py, parsed as data (ast.literal_eval), not run."""
    path = release / "rldb" / _rldb_path(paper, algo, "entries.py")
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    assign = tree.body[0]
    if not (isinstance(assign, ast.Assign) and assign.targets[0].id == "entries" and isinstance(assign.value, ast.List)):
        raise SystemExit(f"{path}: not one 'entries = [...]' list literal")
    out = [(ast.literal_eval(node), node.lineno, node.end_lineno) for node in assign.value.elts]
    if len(tree.body) != 1 or len({e['env-title'] for e, _, _ in out}) != len(out):
        raise SystemExit(f"{path}: unexpected content (more statements or repeated games)")
    return out


def rldb_frames(release: Path, paper: str, algo: str) -> int:
    """algo-frames of the agent's __init__.py: an arithmetic expression of literals, evaluated as such."""
    text = (release / "rldb" / _rldb_path(paper, algo, "__init__.py")).read_text(encoding="utf-8")
    match = re.search(r'"algo-frames":\s*([0-9 *]+),', text)
    value = 1
    for factor in match.group(1).split("*"):
        value *= int(factor)
    return value


def rldb_game(title: str) -> str:
    return title.removeprefix("atari-").replace("-", "_")


def rldb_table(agent: dict, release: Path) -> tuple[dict, str]:
    paper, algo = agent["paper"], agent["algo"]
    entries = rldb_entries(release, paper, algo)
    frames = rldb_frames(release, paper, algo)
    impala = paper == "paper__impala"
    with_std = "stddev" in entries[0][0]
    rows = [(rldb_game(e["env-title"]), repr(e["score"]) if isinstance(e["score"], float) else str(e["score"]),
             *((str(e["stddev"]),) if with_std else ()), f"entries.py lines {a}-{b}") for e, a, b in entries]
    columns = ["game", "score", *(["std"] if with_std else []), "provenance"]
    if impala:
        note = IMPALA_NOTE_MULTI if "multitask" in algo else IMPALA_NOTE_SHALLOW
        proto = protocol(start_condition="no-op", noop_max=30, sticky_action_probability=None, frame_skip=4,
                         max_episode_frames=None, training_frames=frames, regime="200M", evaluation="evaluation-phase",
                         eval_episodes=200, seeds=None, statistic="other",
                         statistic_note="The mean score of 200 evaluation episodes (IMPALA paper lines 1076-1079); "
                                        "which agent (final or best) and how many runs are not stated.",
                         action_set="full" if "multitask" in algo else "minimal", protocol_note=note)
    else:
        regime = f"{frames // 1_000_000}M"
        proto = protocol(start_condition="no-op", sticky_action_probability=None, max_episode_frames=None,
                         training_frames=frames, regime=regime, seeds=None, statistic="other",
                         statistic_note="The paper's per-game score as rldb copied it; the statistic, the runs "
                                        "behind it and what the stddev column spreads over are not stated.",
                         protocol_note=NOISYNET_NOTE)
    metadata = dict(
        name=agent["name"],
        paper=dict(IMPALA_PAPER if impala else NOISYNET_PAPER,
                   location=f"rldb {_rldb_path(paper, algo, 'entries.py')} (rldb's copy of the paper's per-game "
                            + ("table C.1)" if impala else "table)")),
        protocol=proto,
        upstream=dict(repository=RLDB_REPO, commit=RLDB_COMMIT, path=_rldb_path(paper, algo, "entries.py"),
                      licence="MIT"),
        contributor=CONTRIBUTOR,
        notes=(f"{len(rows)} games, one score each as rldb holds it (parsed with ast.literal_eval, not imported). "
               + ("The multitask agent's algo-frames is per game. " if "multitask" in algo else "")
               + "Never seen by the Atari-5 selection."))
    return metadata, csv_text(columns, rows)


def rldb_cross_checks(release: Path, package: Path) -> list[str]:
    """One line per rldb agent the package already holds: games equal / compared."""
    from atari5_spec.data.loading import load

    data = load(package)
    scores = data.scores[data.scores.use_in_fit.astype(bool) & data.scores.supersedes.isna()]
    out = []
    for paper, algo, algorithm_id in RLDB_ALREADY:
        mine = scores[scores.algorithm_id == algorithm_id].set_index("game_id")["score"]
        theirs = {rldb_game(e["env-title"]): float(e["score"]) for e, _, _ in rldb_entries(release, paper, algo)}
        shared = sorted(set(mine.index) & set(theirs))
        differ = [g for g in shared if abs(float(mine[g]) - theirs[g]) > 1e-9]
        out.append(f"{algo} vs {algorithm_id}: equal on {len(shared) - len(differ)} of {len(shared)} shared games"
                   + (f" (differ: {', '.join(f'{g} {float(mine[g]):g} vs {theirs[g]:g}' for g in differ)})"
                      if differ else "") + f"; rldb only: {', '.join(sorted(set(theirs) - set(mine.index))) or '-'}")
    return out


AGENTS_RLDB = [dict(id=i, paper=p, algo=a, name=n, make=rldb_table) for i, p, a, n in RLDB_AGENTS]

# --- openrlbenchmark ------------------------------------------------------------------------------------------------

ORLB_REPO, ORLB_COMMIT = "openrlbenchmark/openrlbenchmark", "1a4b0903a6eb838359f57365444de9afd236ca51"
ORLB_PAPER = dict(title="Open RL Benchmark: Comprehensive Tracked Experiments for Reinforcement Learning",
                  authors=["Shengyi Huang", "Quentin Gallouédec", "Florian Felten", "Antonin Raffin"],
                  year=2024, arxiv="2402.03046", url="https://github.com/openrlbenchmark/openrlbenchmark")
# (id, file, column header prefix, training frames, README line of the statement)
ORLB_AGENTS = [
    ("ppo-cleanrl-envpool-machado-40m", "machado_10M", "ppo_atari_envpool_xla_jax_truncation_machado_10M ",
     40_000_000, 229, "PPO (CleanRL, envpool, Machado protocol, 10M steps)"),
    ("ppo-cleanrl-envpool-machado-200m", "machado_50M", "ppo_atari_envpool_xla_jax_truncation_machado ",
     200_000_000, 244, "PPO (CleanRL, envpool, Machado protocol, 50M steps)"),
]


def orlb_table(agent: dict, release: Path) -> tuple[dict, str]:
    path = release / "openrlbenchmark" / "static" / f"{agent['file']}.csv"
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    columns = [c for c, h in enumerate(rows[0]) if h.startswith(agent["prefix"])]
    if len(columns) != 1:
        raise SystemExit(f"{path}: no single column '{agent['prefix'].strip()} (...)' in the header")
    column, header = columns[0], rows[0][columns[0]]
    out = []
    for line, row in enumerate(rows[1:], start=2):
        mean, _, std = row[column].partition("±")
        out.append((row[0], mean.strip(), std.strip(), f"line {line}"))
    frames, readme_line = agent["frames"], agent["readme_line"]
    single = all(float(std) == 0 for _, _, std, _ in out)
    note = (f"README.md:{readme_line}: CleanRL PPO (JAX, EnvPool XLA) with Machado et al.'s recommended Atari setting, "
            f"'e.g. sticky action with probability 0.25', {frames // 4_000_000}M agent steps = {frames // 1_000_000}M "
            "frames at frame skip 4"
            + (" (README:229 says 200M frames, a slip: README:244 gives 200M for 50M steps and the repository later "
               "corrected :229 to 40M)" if frames == 40_000_000 else "")
            + "; README:233 W&B project openrlbenchmark/envpool-atari, metric charts/avg_episodic_return; README:86 a "
              "cell is per seed the mean return of the last 100 training episodes, then mean and std over seeds "
              "('we have 3 random seeds'). Not stated: action set, no-op starts, episode cap, life-loss episodes")
    metadata = dict(
        name=agent["name"],
        paper=dict(ORLB_PAPER, location=f"static/{agent['file']}.csv, column '{header}' (cells 'mean ± std')"),
        protocol=protocol(start_condition=None, sticky_action_probability=0.25, frame_skip=4, max_episode_frames=None,
                          training_frames=frames, regime=f"{frames // 1_000_000}M", evaluation="training-episodes",
                          seeds=None, statistic="mean",
                          statistic_note="Mean over seeds of each seed's average return of its last 100 training "
                                         "episodes (README:86, which says 3 seeds for its experiments); std the spread "
                                         "over seeds."
                                         + (" Every std is 0.00: one run per game is inferred, not stated; the "
                                            "seed count is left empty." if single else
                                            " The seed count for this column is not stated, left empty."),
                          env_family="envpool-v5", protocol_note=note),
        upstream=dict(repository=ORLB_REPO, commit=ORLB_COMMIT, path=f"static/{agent['file']}.csv", licence="MIT"),
        contributor=CONTRIBUTOR,
        notes=(f"{len(out)} games. The file's other column (ppo_atari_envpool_xla_jax_truncation, the baseline "
               "wrappers) is already in the package as ppo-cleanrl-envpool (batch 2023) and is not imported again. "
               "The file is gone at the repository's newest commit (removed in 751708b), so 1a4b090 is cited. "
               "Never seen by the Atari-5 selection."))
    return metadata, csv_text(["game", "score", "std", "provenance"], out)


AGENTS_ORLB = [dict(id=i, file=f, prefix=p, frames=fr, readme_line=ln, name=n, make=orlb_table)
               for i, f, p, fr, ln, n in ORLB_AGENTS]

# --- PFRL -----------------------------------------------------------------------------------------------------------

PFRL_REPO, PFRL_COMMIT = "pfnet/pfrl", "c8cb3328899509be9ca68ca9a6cd2bcfce95725c"
PFRL_PAPER = dict(title="ChainerRL: A Deep Reinforcement Learning Library",
                  authors=["Yasuhiro Fujita", "Prabhat Nagarajan", "Toshiki Kataoka", "Takahiro Ishikawa"],
                  year=2021, arxiv="1912.00167", url="https://github.com/pfnet/pfrl")
PFRL_COMMON = ("both READMEs' Evaluation Protocol: an evaluation every 1M frames (250K steps), 200 in all (200M "
               "frames; --steps 5*10**7); each runs 125K steps and averages the completed episodes; episodes capped "
               "at 30 minutes = 108K frames; up to 30 uniformly random no-ops. Environment ids <Game>NoFrameskip-v4 "
               "(line 19): no sticky actions and the minimal action set are inferred from the id, not stated")
PFRL_AGENTS = [
    dict(id="pfrl-iqn", folder="iqn", name="IQN (PFRL reproduction)", table=(49, 109), seeds=3, epsilon=None,
         statistic="best-checkpoint",
         statistic_note="Per run the highest of the 200 intermediate evaluation means (line 41), averaged over the "
                        "3 seeds (lines 42, 121).",
         note=f"examples/atari/reproduction/iqn/README.md lines 36 and 112-121 (results of PFRL commit a0ad6a7, the "
              f"IQN paper's protocol), {PFRL_COMMON}; evaluation epsilon not stated in the README (train_iqn.py:36 "
              "defaults to 0.001)"),
    dict(id="pfrl-rainbow", folder="rainbow", name="Rainbow (PFRL reproduction)", table=(48, 110), seeds=None,
         epsilon=0.001, statistic="best-checkpoint",
         statistic_note="The best intermediate agent re-evaluated on 200 episodes capped at 27,000 steps (lines 40, "
                        "124). Seeds conflict: 2 in the summary (line 41), one run in line 124; left empty.",
         note=f"examples/atari/reproduction/rainbow/README.md lines 36 and 114-124 (results of PFRL commit a0ad6a7), "
              f"{PFRL_COMMON}; line 123 epsilon 0.001 in evaluation (train_rainbow.py:36 defaults to 0.0 at this "
              "commit)"),
]


def pfrl_table(agent: dict, release: Path) -> tuple[dict, str]:
    path = f"examples/atari/reproduction/{agent['folder']}/README.md"
    lines = (release / "pfrl" / path).read_text(encoding="utf-8").splitlines()
    first, last = agent["table"]
    if not lines[first - 1].startswith("| Game"):
        raise SystemExit(f"pfrl {path}:{first}: expected the table header '| Game | PFRL Score | ...'")
    rows, skipped = [], []
    for number in range(first + 2, last + 1):
        cells = [c.strip() for c in lines[number - 1].strip().strip("|").split("|")]
        game, cell = cells[0], cells[1]
        bold = cell.startswith("**")
        value = cell.strip("*").strip()
        if game in OUTSIDE_57 or value == "N/A":
            skipped.append(game)
            continue
        float(value)
        rows.append((game, value, f"line {number}" + (" (printed in bold)" if bold else "")))
    metadata = dict(
        name=agent["name"],
        paper=dict(PFRL_PAPER, location=f"{path}, Results table, column PFRL Score (PFRL commit a0ad6a7)"),
        protocol=protocol(start_condition="no-op", noop_max=30, sticky_action_probability=None, frame_skip=4,
                          max_episode_frames=108_000, training_frames=200_000_000, regime="200M",
                          evaluation="evaluation-phase", eval_episodes=200 if agent["folder"] == "rainbow" else None,
                          seeds=agent["seeds"], statistic=agent["statistic"], statistic_note=agent["statistic_note"],
                          env_family="NoFrameskip-v4", protocol_note=agent["note"]),
        upstream=dict(repository=PFRL_REPO, commit=PFRL_COMMIT, path=path, licence="MIT"),
        contributor=CONTRIBUTOR,
        notes=(f"{len(rows)} of the 57 games; left out: {', '.join(skipped)} (outside the 57 or N/A). Markdown "
               "bold (the README's mark for beating the paper) removed. The Original Reported Scores column "
               "(the paper's numbers) is a cross-check only, not imported. Never seen by the Atari-5 selection."))
    return metadata, csv_text(["game", "score", "provenance"], rows)


for _agent in PFRL_AGENTS:
    _agent["make"] = pfrl_table

# --- nnabla-rl ------------------------------------------------------------------------------------------------------

NNABLA_REPO, NNABLA_COMMIT = "sony/nnabla-rl", "d6c99991f9335e0e675d698110957a974f5fdaf7"
NNABLA_FOLDER = "reproductions/algorithms/atari/c51"
NNABLA_PAPER = dict(title="nnabla-rl: Deep reinforcement learning library built on top of Neural Network Libraries",
                    authors=["Sony Group Corporation"], year=2021, url="https://github.com/sony/nnabla-rl")
NNABLA_SEEDS = (1, 10, 100)
FINAL_STEP = 50_000_000
NNABLA_NOTE = (
    f"{NNABLA_FOLDER}/README.md: line 13 <Game>NoFrameskip-v4 ids (no sticky actions and the minimal action set "
    "inferred from the id, not stated); line 47 55 games, 3 seeds; line 51 an evaluation every 1M frames (250K "
    "steps); line 52 each runs 500K frames, the cut episode not counted; line 53 epsilon 0.001. Code at the cited "
    "commit (supporting, of 2024): c51_reproduction.py:89-91 50M steps; nnabla_rl/environments/wrappers/atari.py:"
    "115-118 up to 30 no-ops, frame skip 4. Episode cap: not stated")


def nnabla_table(agent: dict, release: Path) -> tuple[dict, str]:
    results = release / "nnabla-rl" / NNABLA_FOLDER / "reproduction_results"
    rows = []
    for game_dir in sorted(results.iterdir()):
        game = game_dir.name.removesuffix("_results")
        for seed in NNABLA_SEEDS:
            lines = (game_dir / f"seed-{seed}" / "evaluation_result_scalar.tsv").read_text(encoding="utf-8").splitlines()
            header = lines[0].split("\t")
            last = dict(zip(header, lines[-1].split("\t")))
            if int(last["iteration"]) != FINAL_STEP:
                raise SystemExit(f"{game_dir.name}/seed-{seed}: last evaluation at {last['iteration']}, not {FINAL_STEP}")
            rows.append((game, last["mean"], str(seed),
                         f"{game_dir.name}/seed-{seed}/evaluation_result_scalar.tsv line {len(lines)}"))
    metadata = dict(
        name=agent["name"],
        paper=dict(NNABLA_PAPER, location=f"{NNABLA_FOLDER}/reproduction_results/<Game>NoFrameskip-v4_results/"
                                          "seed-<N>/evaluation_result_scalar.tsv, last row (50M steps), column mean"),
        protocol=protocol(start_condition="no-op", noop_max=30, sticky_action_probability=None, frame_skip=4,
                          max_episode_frames=None, training_frames=200_000_000, regime="200M",
                          evaluation="evaluation-phase", seeds=len(NNABLA_SEEDS), statistic="mean",
                          statistic_note="Final score: per seed the mean of the completed episodes of its last "
                                         "evaluation (50M steps = 200M frames), averaged over the 3 seeds. Not the "
                                         "README table's best-over-training pooled mean (lines 61-117).",
                          env_family="NoFrameskip-v4", protocol_note=NNABLA_NOTE),
        upstream=dict(repository=NNABLA_REPO, commit=NNABLA_COMMIT, path=f"{NNABLA_FOLDER}/reproduction_results",
                      licence="Apache-2.0"),
        contributor=CONTRIBUTOR,
        notes=(f"{len(rows) // len(NNABLA_SEEDS)} games (the 57 without Defender and Surround), 3 seeds each (the "
               "folder names seed-1, seed-10, seed-100 are the --seed values). The results were committed by "
               "8354274 (2021-07-28); the README names no code commit for them. Never seen by the Atari-5 "
               "selection."))
    return metadata, csv_text(["game", "score", "seed", "provenance"], rows)


AGENTS_NNABLA = [dict(id="nnabla-rl-c51", name="C51 (nnabla-rl reproduction)", make=nnabla_table)]

AGENTS = [*AGENTS_RLDB, *AGENTS_ORLB, *PFRL_AGENTS, *AGENTS_NNABLA]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("release", type=Path, help="the upstream-2028 release folder (rldb/, openrlbenchmark/, ...)")
    parser.add_argument("--package", type=Path, default=ROOT, help="data package to merge into (default: this repository)")
    parser.add_argument("--only", nargs="*", default=None, help="import only these agent ids")
    parser.add_argument("--dry-run", action="store_true", help="write the folders, check them, merge nothing")
    args = parser.parse_args(argv)
    for line in rldb_cross_checks(args.release, args.package):
        print(f"rldb cross-check (not imported): {line}")
    if not import_agents(AGENTS, lambda agent, release: agent["make"](agent, release), args.release, args.package,
                         SCRIPT, only=args.only, dry_run=args.dry_run):
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
