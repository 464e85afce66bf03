"""Record the 26 games of the Atari 100k benchmark: data/benchmark_games.csv (data 1.32.0, issue 26).

Usage::

    python scripts/add_atari100k_field.py [PACKAGE_DIR]

The Atari 100k benchmark (Kaiser et al. 2020, the SimPLe paper) trains for 100k agent steps (400k frames) and
its papers report 26 of the 57 games. Only two of the Atari-5 games (Battle Zone, Q*bert) are among them, so no
pinned subset can score that field; the leaderboard ranks it by its own statistic instead, the measured median
human-normalised score over the 26 games (:mod:`atari5_spec.scoring.field`), and for that the package must say
which games they are.

This script, run once on a package at data 1.31.0 or later whose ``schemas/`` holds
``benchmark-games.schema.json`` (it ships with the code that reads the table), adds the resource
``benchmark_games`` (with that schema; a new table, so a minor version as for protocol_evidence in 1.25.0):
one row per (benchmark, game), the benchmark named by its entries' regime label (``atari-100k``); bumps the
data package's minor version and sets the descriptor's hashes; one transaction.

The list is read from the results files of Micheli et al. 2023 (eloialonso/iris ``results/data/*.json`` at
75e5ab57e8bdeca240f8a0e376dac98c0aa6672a: every file there, HUMAN.json and RANDOM.json included, has exactly
these 26 games as keys), and the Atari 100k entries of the package agree with it (tests/test_atari100k_field.py).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from atari5_spec.data.datapackage import read_descriptor, table_resource  # noqa: E402
from atari5_spec.data.transaction import package_transaction  # noqa: E402
from atari5_spec_maintainers.versioning import bumped_descriptor_text  # noqa: E402
from atari5_spec.data.writing import csv_text  # noqa: E402

FIRST_VERSION = "1.31.0"
RESOURCE = ("benchmark_games", "Benchmark games", "data/benchmark_games.csv", "schemas/benchmark-games.schema.json",
            "The games a benchmark's papers all report when it is not the canonical 57 (Atari 100k: 26 games).")
BENCHMARK = "atari-100k"
SOURCE = ("Kaiser et al. 2020 (SimPLe), the benchmark; list read from Micheli et al. 2023's results files "
          "(eloialonso/iris results/data @75e5ab5)")
LOCATION = "the 26 game keys of results/data/HUMAN.json (and of every other results file there)"
ATARI_100K_GAMES = (
    "alien", "amidar", "assault", "asterix", "bank_heist", "battle_zone", "boxing", "breakout", "chopper_command",
    "crazy_climber", "demon_attack", "freeway", "frostbite", "gopher", "hero", "jamesbond", "kangaroo", "krull",
    "kung_fu_master", "ms_pacman", "pong", "private_eye", "qbert", "road_runner", "seaquest", "up_n_down")


def apply(root: Path) -> dict[str, str]:
    """The new text of every file the change writes (relative path -> text)."""
    descriptor = read_descriptor(root)
    if tuple(map(int, descriptor["version"].split("."))) < tuple(map(int, FIRST_VERSION.split("."))):
        raise SystemExit(f"{root}: data package version {descriptor['version']}, expected {FIRST_VERSION} or later")
    name, title, path, schema, description = RESOURCE
    if any(r["name"] == name for r in descriptor["resources"]):
        raise SystemExit(f"{root}: the benchmark games are recorded already (resource {name})")
    reader = csv.DictReader(io.StringIO((root / "data" / "games.csv").read_text(encoding="utf-8"), newline=""))
    canonical = {r["game_id"] for r in reader if r["in_57"] == "true"}
    unknown = sorted(set(ATARI_100K_GAMES) - canonical)
    if unknown:
        raise SystemExit(f"{root}: not canonical games in data/games.csv: {', '.join(unknown)}")
    columns = [f["name"] for f in json.loads((root / schema).read_text(encoding="utf-8"))["fields"]]
    texts = {path: csv_text(columns, ([BENCHMARK, g, SOURCE, LOCATION] for g in sorted(ATARI_100K_GAMES)))}
    at = next(i for i, r in enumerate(descriptor["resources"]) if r["name"] == "games") + 1
    descriptor["resources"].insert(at, table_resource(name, path, schema, title, description))
    texts["datapackage.json"] = bumped_descriptor_text(root, descriptor, texts)
    return texts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT,
                        help="data package directory (default: this repository)")
    args = parser.parse_args(argv)
    with package_transaction(args.package, "add_atari100k_field") as change:
        texts = apply(args.package)
        change.commit(texts)
    print(f"{args.package}: {RESOURCE[2]} recorded, data package {read_descriptor(args.package)['version']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
