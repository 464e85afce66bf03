"""Bring the Atari 100k comparison field into the data package, through the front door (issue 26).

Usage::

    python scripts/import_atari100k.py UPSTREAM_DIR [--package DIR] [--only ID ...] [--dry-run]

UPSTREAM_DIR holds the raw files exactly as their public repository holds them:

* ``iris/IRIS.json``, ``iris/SPR.json``, ``iris/DrQ(eps).json``, ``iris/EfficientZero.json``, ``iris/MuZero.json``,
  ``iris/SimPLe.json``: eloialonso/iris
  ``results/data/<name>.json`` at 75e5ab57e8bdeca240f8a0e376dac98c0aa6672a, "raw scores (for each game, and for
  each training run) for IRIS and the baselines" (README.md at 4112616dc8ed230d25a541296c67293c5a799f67), the
  26 games of Atari 100k. Licence: GPL-3.0 as the repository declares it on GitHub; the LICENSE file is not in
  the index the files were read from, so the licence is recorded as declared, not as read. Numbers are facts;
  nothing else of the repository is copied.

Not imported, and why:

* weipu-zhang/STORM ``results/storm.json``: the repository holds no licence file (scripts/import_2026.py).
* CURL from the same folder: ``CURL_10_evals.json`` holds human-normalised scores, not raw scores. TWM, DER,
  OTRainbow, DrQ, PlayVirtual and CURL (raw, per run) were found later in other repositories and come in through
  ``scripts/import_atari100k_field.py``; SR-SPR still has no per-game results file. Agents trained for more than
  1M frames are out of this import by rule (the project keeps such public results aside to test its intervals).

For each agent the script writes ``contributions/<id>/`` (metadata.yaml + scores.csv) as a contributor would
and merges it with ``atari5-spec contribute add`` (one data version per agent). Then it compares the IRIS
repository's SimPLe runs with the SimPLe numbers already in the package (Kaiser et al. 2020's table, source
simple-2020) and writes the comparison to ``data/cross_checks.csv`` (one more data version): a difference is
recorded, neither number is dropped.

Decisions, per file:

* IRIS.json: {game: [one number per run]} over several lines; run id = the position in the list; provenance the
  line of the number. The per-game number is the mean over the five runs (derived by ``contribute add``).
* SPR.json, DrQ(eps).json: one line, {game: [100 numbers]}; run id = the position in the list; provenance
  ``line 1, key <Game>, run <i>``; the per-game number is the mean over the 100 runs. The files do not say who
  ran the 100 runs; the README credits google-research/rliable, whose Atari 100k data holds 100 runs per game
  for these agents (Agarwal et al. 2021), so the numbers are not the SPR or DrQ papers' own (fewer) runs.
* EfficientZero.json, MuZero.json: one line, one number per game (a list of one); the file does not say what the
  number is (a mean over runs, or one run), so statistic and seeds stay null; provenance ``line 1, key <Game>``.
  The MuZero numbers are MuZero trained on Atari 100k, not the 20B-frame MuZero already in the package.
* Each value keeps its text as the file writes it (``510`` stays ``510``, ``196.0`` stays ``196.0``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/submissions.py

from submissions import CONTRIBUTOR, import_agents, protocol  # noqa: E402
from atari5_spec.data.writing import csv_text  # noqa: E402

IRIS_REPO, IRIS_COMMIT = "eloialonso/iris", "75e5ab57e8bdeca240f8a0e376dac98c0aa6672a"
IRIS_README = "README.md at 4112616dc8ed230d25a541296c67293c5a799f67"
IRIS_LICENCE = "GPL-3.0"  # as the repository declares it on GitHub; its LICENSE file was not in the index read
IRIS_PAPER = dict(title="Transformers are Sample-Efficient World Models",
                  authors=["Vincent Micheli", "Eloi Alonso", "François Fleuret"], year=2023, arxiv="2209.00588",
                  url="https://github.com/eloialonso/iris")
EZ_PAPER = dict(title="Mastering Atari Games with Limited Data",
                authors=["Weirui Ye", "Shaohuai Liu", "Thanard Kurutach", "Pieter Abbeel", "Yang Gao"], year=2021,
                arxiv="2111.00210", url="https://github.com/eloialonso/iris")
MUZERO_PAPER = dict(title="Mastering Atari, Go, Chess and Shogi by Planning with a Learned Model",
                    authors=["Julian Schrittwieser", "Ioannis Antonoglou", "Thomas Hubert", "Karen Simonyan",
                             "Laurent Sifre", "Simon Schmitt", "Arthur Guez", "Edward Lockhart", "Demis Hassabis",
                             "Thore Graepel", "Timothy Lillicrap", "David Silver"], year=2020, arxiv="1911.08265",
                    url="https://github.com/eloialonso/iris")
IRIS_CONFIG = ("config/env/default.yaml and src/envs/wrappers.py at 75e5ab57 / faa2d343: test environment "
               "*NoFrameskip-v4 (the README's command; the wrapper asserts NoFrameskip ids: no sticky actions), "
               "TimeLimit 108000 steps of the unskipped environment (108,000 frames), NoopResetEnv with noop_max 1 "
               "(exactly one no-op at reset), MaxAndSkipEnv skip 4; training episodes end on a lost life, test "
               "episodes do not; 100k agent steps (400k frames)")


def iris_rows(path: Path) -> list[tuple[str, str, int, str]]:
    """(game, value text, run, 'line N') of a multi-line {game: [values]} file, checked value by value."""
    text = path.read_text(encoding="utf-8")
    data = json.loads(text, parse_float=str, parse_int=str)
    lines = text.splitlines()
    out, line = [], 0
    for game, values in data.items():
        line = next(n for n in range(line, len(lines)) if lines[n].strip().startswith(f'"{game}"'))
        for run, value in enumerate(values):
            line += 1
            if lines[line].strip().rstrip(",") != value:
                raise SystemExit(f"{path.name} line {line + 1}: expected {value}, found {lines[line]!r}")
            out.append((game, value, run, f"line {line + 1}"))
    return out


def one_line_rows(path: Path) -> list[tuple[str, str, str]]:
    """(game, value text, 'line 1, key <game>') of a one-line {game: [value]} file."""
    text = path.read_text(encoding="utf-8")
    if text.rstrip("\n").count("\n"):
        raise SystemExit(f"{path.name}: expected one line")
    data = json.loads(text, parse_float=str, parse_int=str)
    out = []
    for game, values in data.items():
        if len(values) != 1:
            raise SystemExit(f"{path.name}: {game} has {len(values)} values, expected one")
        out.append((game, values[0], f"line 1, key {game}"))
    return out


def one_line_runs(path: Path) -> list[tuple[str, str, int, str]]:
    """(game, value text, run, 'line 1, key <game>, run <i>') of a one-line {game: [one value per run]} file."""
    text = path.read_text(encoding="utf-8")
    if text.rstrip("\n").count("\n"):
        raise SystemExit(f"{path.name}: expected one line")
    data = json.loads(text, parse_float=str, parse_int=str)
    return [(game, value, run, f"line 1, key {game}, run {run}") for game, values in data.items()
            for run, value in enumerate(values)]


def runs_table(agent: dict, upstream: Path) -> tuple[dict, str]:
    rows = one_line_runs(upstream / "iris" / agent["file"])
    return _metadata(agent, agent["file"], "one number per game and run"), csv_text(
        ["game", "score", "seed", "provenance"], rows)


def iris_table(agent: dict, upstream: Path) -> tuple[dict, str]:
    rows = iris_rows(upstream / "iris" / "IRIS.json")
    return _metadata(agent, "IRIS.json", "one number per game and run"), csv_text(
        ["game", "score", "seed", "provenance"], rows)


def single_table(agent: dict, upstream: Path) -> tuple[dict, str]:
    rows = one_line_rows(upstream / "iris" / agent["file"])
    return _metadata(agent, agent["file"], "one number per game"), csv_text(["game", "score", "provenance"], rows)


def _metadata(agent: dict, file: str, shape: str) -> dict:
    path = f"results/data/{file}"
    return dict(name=agent["name"],
                paper=dict(agent["paper"], location=f"{path} of eloialonso/iris ({shape}; {IRIS_README}: raw "
                                                    "scores for IRIS and the baselines)"),
                protocol=agent["protocol"],
                upstream=dict(repository=IRIS_REPO, commit=IRIS_COMMIT, path=path, licence=IRIS_LICENCE),
                contributor=CONTRIBUTOR, notes=agent["notes"] + " Licence GPL-3.0 as the repository declares it; "
                                                                "its LICENSE file was not read.")


BASELINE_NOTE = ("the IRIS repository's baseline file; it gives one number per game of the 26 Atari 100k games and "
                 "names neither the statistic nor the environment settings, which the paper's own text was not read "
                 "for here: only the budget (Atari 100k, 400k frames) is stated, by the folder's README")
RUNS_NOTE = ("the IRIS repository's baseline file, 100 runs per game of the 26 Atari 100k games; the file names "
             "neither the statistic nor the environment settings and does not say who ran the runs (the README "
             "credits google-research/rliable, whose Atari 100k data has 100 runs per game for this agent): only the "
             "budget (Atari 100k, 400k frames) is stated, by the folder's README")
RUNS_NOTES = "The 26 games of Atari 100k, 100 runs each; run ids are the positions in each game's list."
SPR_PAPER = dict(title="Data-Efficient Reinforcement Learning with Self-Predictive Representations",
                 authors=["Max Schwarzer", "Ankesh Anand", "Rishab Goel", "R Devon Hjelm", "Aaron Courville",
                          "Philip Bachman"], year=2021, arxiv="2007.05929", url="https://github.com/eloialonso/iris")
DRQ_EPS_PAPER = dict(title="Deep Reinforcement Learning at the Edge of the Statistical Precipice",
                     authors=["Rishabh Agarwal", "Max Schwarzer", "Pablo Samuel Castro", "Aaron Courville",
                              "Marc G. Bellemare"], year=2021, arxiv="2108.13264",
                     url="https://github.com/eloialonso/iris")
AGENTS = [
    dict(id="iris", make=iris_table, name="IRIS", paper=IRIS_PAPER,
         protocol=protocol(start_condition="no-op", noop_max=1, sticky_action_probability=0, life_loss_episode_end=True,
                           frame_skip=4, max_episode_frames=108_000, training_frames=400_000, regime="atari-100k",
                           evaluation=None, seeds=5, statistic="mean",
                           statistic_note="Derived here: the mean of the five per-run numbers of each game (the file "
                                          "does not name the statistic it reports).",
                           env_family="NoFrameskip-v4", protocol_note=IRIS_CONFIG),
         notes="The 26 games of Atari 100k, five runs each; run ids are the positions in each game's list. Of the "
               "Atari-5 games only Battle Zone and Q*bert are among them."),
    dict(id="spr", make=runs_table, file="SPR.json", name="SPR", paper=SPR_PAPER,
         protocol=protocol(start_condition=None, sticky_action_probability=None, max_episode_frames=None,
                           training_frames=400_000, regime="atari-100k", seeds=100, statistic="mean",
                           statistic_note="Derived here: the mean of the 100 per-run numbers of each game.",
                           protocol_note="SPR numbers from " + RUNS_NOTE),
         notes=RUNS_NOTES),
    dict(id="drq-eps", make=runs_table, file="DrQ(eps).json", name="DrQ(ε)", paper=DRQ_EPS_PAPER,
         protocol=protocol(start_condition=None, sticky_action_probability=None, max_episode_frames=None,
                           training_frames=400_000, regime="atari-100k", seeds=100, statistic="mean",
                           statistic_note="Derived here: the mean of the 100 per-run numbers of each game.",
                           protocol_note="DrQ(ε) (DrQ of Kostrikov et al. 2021 with the ε-greedy settings of Agarwal "
                                         "et al. 2021) numbers from " + RUNS_NOTE),
         notes=RUNS_NOTES),
    dict(id="efficientzero", make=single_table, file="EfficientZero.json", name="EfficientZero", paper=EZ_PAPER,
         protocol=protocol(start_condition=None, sticky_action_probability=None, max_episode_frames=None,
                           training_frames=400_000, regime="atari-100k", seeds=None, statistic="other",
                           statistic_note="The file gives one number per game and does not say whether it is a mean over runs or one run.",
                           protocol_note="EfficientZero numbers from " + BASELINE_NOTE),
         notes="One number per game as the IRIS repository gives it; the 26 games of Atari 100k."),
    dict(id="muzero-atari100k", make=single_table, file="MuZero.json", name="MuZero (Atari 100k)",
         paper=MUZERO_PAPER,
         protocol=protocol(start_condition=None, sticky_action_probability=None, max_episode_frames=None,
                           training_frames=400_000, regime="atari-100k", seeds=None, statistic="other",
                           statistic_note="The file gives one number per game and does not say whether it is a mean over runs or one run.",
                           protocol_note="MuZero trained on Atari 100k, numbers from " + BASELINE_NOTE + "; who ran "
                                         "these runs is not stated in the file"),
         notes="MuZero at the Atari 100k budget (not the 20B-frame MuZero of the package's entry muzero); one "
               "number per game as the IRIS repository gives it."),
]

# --- cross-checks ---------------------------------------------------------------------------------------------

CROSS_COLUMNS = ["algorithm_id", "game_id", "source_a", "value_a", "source_b", "value_b", "relative_difference",
                 "agree", "note"]


def printed_half_unit(text: str) -> float:
    """Half the last printed digit of a number's text ('616.9' -> 0.05, '74' -> 0.5)."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10 ** -decimals


def simple_cross_checks(package: Path, upstream: Path) -> list[tuple]:
    """The package's SimPLe numbers (Kaiser et al. 2020's table) against the mean of the IRIS repository's five
    SimPLe runs per game."""
    import pandas as pd

    from atari5_spec.data.loading import load

    data = load(package)
    games = data.games.set_index("game_id")
    # The file names games as Gym does (BattleZone, Hero): match the stem of gymnasium_id (ALE/Hero-v5).
    by_name = {str(i).split("/")[-1].split("-")[0].lower(): g for g, i in games["gymnasium_id"].items() if pd.notna(i)}
    rows = data.scores[(data.scores.algorithm_id == "simple") & data.scores.use_in_fit]
    file = upstream / "iris" / "SimPLe.json"
    runs = json.loads(file.read_text(encoding="utf-8"))
    source_b = (f"{IRIS_REPO}@{IRIS_COMMIT[:7]}:results/data/SimPLe.json, the mean of the game's "
                "five runs")
    out = []
    for game, values in runs.items():
        game_id = by_name.get(game.lower())
        if game_id is None:
            raise SystemExit(f"SimPLe.json: game {game!r} matches no game in data/games.csv")
        row = rows[rows.game_id == game_id]
        if len(row) != 1:
            continue
        row = row.iloc[0]
        a, b = float(row.score), sum(values) / len(values)
        diff = b - a
        tolerance = max(printed_half_unit(str(row.raw_value)), 0.005 * max(abs(a), abs(b)))
        agree = abs(diff) <= tolerance + 1e-9
        note = ("agree to the table's printed precision" if agree else
                f"disagree: the repository's runs average {b:.4g}, the table prints {row.raw_value}")
        out.append(("simple", game_id, f"simple-2020 {row.provenance}", a, source_b, round(b, 6),
                    round(diff / max(abs(a), abs(b), 1.0), 6), agree, note))
    return sorted(out, key=lambda r: (r[0], r[1]))


def write_cross_checks(package: Path, rows: list[tuple]) -> None:
    """data/cross_checks.csv with ``rows`` added to what it holds (same key replaced), one minor data version."""
    import csv
    import io

    from atari5_spec.data.datapackage import read_descriptor
    from atari5_spec.data.transaction import package_transaction
    from atari5_spec_maintainers.versioning import bumped_descriptor_text

    with package_transaction(package, "import_atari100k cross-checks") as change:
        current = list(csv.DictReader(io.StringIO((package / "data" / "cross_checks.csv").read_text(encoding="utf-8"))))
        keep = {(r["algorithm_id"], r["game_id"], r["source_a"], r["source_b"]): [r[c] for c in CROSS_COLUMNS]
                for r in current}
        for r in rows:
            keep[(r[0], r[1], r[2], r[4])] = list(r)
        text = csv_text(CROSS_COLUMNS, [keep[k] for k in sorted(keep)])
        if text == (package / "data" / "cross_checks.csv").read_text(encoding="utf-8"):
            print("cross-checks: unchanged")
            return
        descriptor = read_descriptor(package)
        texts = {"data/cross_checks.csv": text}
        texts["datapackage.json"] = bumped_descriptor_text(package, descriptor, texts)
        change.commit(texts)
    disagree = sum(not r[7] for r in rows)
    print(f"cross-checks: {len(rows)} comparisons written ({disagree} disagreements kept), data {descriptor['version']}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("upstream", type=Path, help="folder with the upstream raw files (iris/)")
    parser.add_argument("--package", type=Path, default=ROOT, help="data package to merge into (default: this repository)")
    parser.add_argument("--only", nargs="*", default=None, help="import only these agent ids")
    parser.add_argument("--dry-run", action="store_true", help="write the folders, check them, merge nothing")
    args = parser.parse_args(argv)
    if not import_agents(AGENTS, lambda agent, upstream: agent["make"](agent, upstream), args.upstream,
                         args.package, "scripts/import_atari100k.py", only=args.only, dry_run=args.dry_run):
        return 1
    if not args.dry_run and not args.only:
        write_cross_checks(args.package, simple_cross_checks(args.package, args.upstream))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
