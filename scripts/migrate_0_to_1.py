"""Migrate a data package from the 0.x layout to 1.0 (the protocol of every number).

Usage::

    python scripts/migrate_0_to_1.py [PACKAGE_DIR] [--backfill scripts/protocol_backfill.csv]

What changes (a major version: columns are added, removed and retyped):

* ``data/algorithms.csv``: ``sticky_actions`` (boolean, "repeat probability
  0.25") becomes ``sticky_action_probability`` (true -> 0.25, false -> 0); new
  protocol columns ``noop_max``, ``action_set``, ``life_loss_episode_end``,
  ``frame_skip``, ``regime``, ``evaluation``, ``eval_episodes``, ``statistic``,
  ``seeds``, ``env_family`` and ``protocol_note``, filled from the backfill
  table (facts the sources state, each with its citation) and otherwise empty;
* ``data/scores.csv``: a new ``std`` column (empty for every existing row);
* ``data/sources.csv``: new ``repository``, ``commit``, ``licence`` and
  ``curve_rule`` columns (the upstream commit of every table);
* new resources ``data/seed_scores.csv`` and ``data/budget_scores.csv``;
* ``published/irt_seed003_table1.csv`` becomes
  ``published/irt_martinez_plumed_2017_table1.csv`` (resource
  ``published-irt-martinez-plumed-2017``): papers are named by authors and year;
* ``datapackage.json``: the new resources, hashes, and the version 1.0.0.

A fork with rows of its own migrates the same way: every existing value is
kept; the script refuses to run on a package that is not 0.x, and refuses a
backfill fact that contradicts a value the package already has.
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

from atari5_spec.data.datapackage import CSV_DIALECT, descriptor_text, read_descriptor, table_resource  # noqa: E402
from atari5_spec.data.validation import regime_label  # noqa: E402
from atari5_spec_maintainers.versioning import descriptor_with_stats  # noqa: E402
from atari5_spec.data.writing import csv_text, write_text_atomic  # noqa: E402

# The Atari-5 paper's raw tables: every 0.x source but the contributions.
ATARI5_REPOSITORY = "maitchison/Atari-5"
ATARI5_COMMIT = "118cad542c94bc6e57181bb259a17d020e0a330f"
# Papers with Code content is CC-BY-SA-4.0; the Atari-5 repository's own files are MIT.
SOURCE_LICENCES = {"pwc-2022": "CC-BY-SA-4.0", "pwc-export": "CC-BY-SA-4.0"}
NEW_RESOURCES = [
    ("seed_scores", "Per-seed scores", "data/seed_scores.csv", "schemas/seed-scores.schema.json",
     "Per-seed final scores, where the source gives each run's number."),
    ("budget_scores", "Scores at training budgets", "data/budget_scores.csv", "schemas/budget-scores.schema.json",
     "Per-seed scores at fixed training budgets (10M, 25M, 50M, 100M, 200M frames; 400k for Atari 100k), "
     "read off learning curves with the source's curve_rule."),
]
# 1.0 names papers by authors and year, never by the order of a reading list.
RENAMED_RESOURCES = {"published-irt-seed003": (
    "published-irt-martinez-plumed-2017", "published/irt_martinez_plumed_2017_table1.csv",
    "schemas/published-irt-martinez-plumed-2017.schema.json",
    "Martinez-Plumed & Hernandez-Orallo (2017), Table 1 (as printed)")}
# Protocol facts a 0.x import took from the entry's name or source table.
NAME_FACTS = ("start_condition", "max_episode_frames", "training_frames")


def read_csv(text: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    return list(reader.fieldnames or []), list(reader)


def schema_columns(root: Path, schema: str) -> list[str]:
    return [f["name"] for f in json.loads((root / schema).read_text(encoding="utf-8"))["fields"]]


# Readers of Data Package v1 need "profile"; v2 readers read "$schema" and "type". "created" is
# the date of the 1.0.0 release, fixed so that the migration is byte-for-byte reproducible.
PACKAGE_KEYS = {"$schema": "https://datapackage.org/profiles/2.0/datapackage.json",
                "profile": "tabular-data-package", "created": "2026-11-22T00:00:00Z"}
CONTRIBUTORS = [
    {"title": "Matthew Aitchison", "role": "author", "roles": ["creator"],
     "description": "Atari-5 paper and its raw score tables (maitchison/Atari-5)"},
    {"title": "Penny Sweetser", "role": "author", "roles": ["creator"], "description": "Atari-5 paper"},
    {"title": "Marcus Hutter", "role": "author", "roles": ["creator"], "description": "Atari-5 paper"},
    {"title": "atari5-spec maintainers", "role": "maintainer", "roles": ["maintainer"],
     "description": "This data package: import code, schemas, contributions and pinned versions"},
]


def interoperable(descriptor: dict) -> dict:
    """The descriptor with what Data Package v1 and v2 readers need, keys in a fixed order."""
    head = {"$schema": PACKAGE_KEYS["$schema"], "profile": PACKAGE_KEYS["profile"]}
    # The repository's address is not settled yet: no placeholder homepage (README says where to find it).
    out = {**head, **{k: v for k, v in descriptor.items() if k not in head and k != "homepage"}}
    out["created"] = PACKAGE_KEYS["created"]
    out["contributors"] = CONTRIBUTORS
    resources = []
    for resource in descriptor["resources"]:
        entry = {}
        for key, value in resource.items():
            if key in ("profile", "dialect"):
                continue
            entry[key] = value
            if key == "type":
                entry["profile"] = "tabular-data-resource"
            if key == "encoding":
                entry["dialect"] = dict(CSV_DIALECT)
        resources.append(entry)
    out["resources"] = resources
    return out


def migrate_algorithms(rows: list[dict[str, str]], backfill: dict[str, dict[str, str]], columns: list[str]
                       ) -> list[dict[str, str]]:
    """The 1.0 rows of data/algorithms.csv: old values kept, stated facts added, each with its citation."""
    out = []
    for row in rows:
        new = {c: row.get(c, "") for c in columns}
        # 0.x defined sticky_actions as "repeat probability 0.25".
        new["sticky_action_probability"] = {"true": "0.25", "false": "0", "": ""}[row.get("sticky_actions", "")]
        from_name = [c for c in NAME_FACTS + ("sticky_action_probability",) if new[c]]
        facts = backfill.get(new["algorithm_id"], {})
        for column, value in facts.items():
            if column in ("algorithm_id", "protocol_note") or value == "":
                continue
            if new[column] not in ("", value):
                raise SystemExit(f"{new['algorithm_id']}: backfill says {column}={value}, the package has {new[column]}")
            new[column] = value
        notes = []
        if from_name:
            notes.append(f"{', '.join(from_name)}: stated by the entry's name or source table (0.x import)")
        if facts.get("protocol_note"):
            notes.append(facts["protocol_note"])
        new["protocol_note"] = "; ".join(notes)
        if new["training_frames"] and not new["regime"]:
            new["regime"] = regime_label(int(new["training_frames"]))
        out.append(new)
    return out


def migrate_scores(rows: list[dict[str, str]], columns: list[str]) -> list[dict[str, str]]:
    return [{c: row.get(c, "") for c in columns} for row in rows]


def migrate_sources(rows: list[dict[str, str]], columns: list[str]) -> list[dict[str, str]]:
    out = []
    for row in rows:
        new = {c: row.get(c, "") for c in columns}
        if row["kind"] != "contribution":
            new.update(repository=ATARI5_REPOSITORY, commit=ATARI5_COMMIT,
                       licence=SOURCE_LICENCES.get(row["source_id"], "MIT"))
        out.append(new)
    return out


def render(columns: list[str], rows: list[dict[str, str]]) -> str:
    return csv_text(columns, ([row[c] for c in columns] for row in rows))


def migrate(root: Path, backfill_path: Path) -> dict[str, str]:
    """The new text of every file the migration writes (relative path -> text; None: delete the file)."""
    descriptor = read_descriptor(root)
    if not descriptor["version"].startswith("0."):
        raise SystemExit(f"{root}: data package version {descriptor['version']} is not 0.x; nothing to migrate")
    _, facts = read_csv(backfill_path.read_text(encoding="utf-8"))
    backfill = {row["algorithm_id"]: row for row in facts}
    texts = {}
    for name, function in (("algorithms", migrate_algorithms), ("scores", migrate_scores), ("sources", migrate_sources)):
        resource = next(r for r in descriptor["resources"] if r["name"] == name)
        columns = schema_columns(root, resource["schema"])
        _, rows = read_csv((root / resource["path"]).read_text(encoding="utf-8"))
        new_rows = function(rows, backfill, columns) if name == "algorithms" else function(rows, columns)
        texts[resource["path"]] = render(columns, new_rows)
    unknown = sorted(set(backfill) - {r["algorithm_id"] for r in read_csv(texts["data/algorithms.csv"])[1]})
    for name, title, path, schema, description in NEW_RESOURCES:
        texts[path] = render(schema_columns(root, schema), [])
        if not any(r["name"] == name for r in descriptor["resources"]):
            at = next(i for i, r in enumerate(descriptor["resources"]) if r["name"] == "scores") + 1
            descriptor["resources"].insert(at, table_resource(name, path, schema, title, description))
    descriptor = interoperable(descriptor)
    removed = []
    for resource in descriptor["resources"]:
        if resource["name"] in RENAMED_RESOURCES:
            name, path, schema, title = RENAMED_RESOURCES[resource["name"]]
            texts[path] = (root / resource["path"]).read_text(encoding="utf-8")
            removed.append(resource["path"])
            resource.update(name=name, path=path, schema=schema, title=title)
    descriptor["version"] = "1.0.0"
    descriptor = descriptor_with_stats(root, descriptor, texts)
    texts["datapackage.json"] = descriptor_text(descriptor)
    texts.update({path: None for path in removed})  # None: the file moved
    if unknown:
        print(f"note: backfill rows for entries not yet in the package (added by their contributions): {', '.join(unknown)}")
    return texts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT, help="data package directory (default: this repository)")
    parser.add_argument("--backfill", type=Path, default=ROOT / "scripts" / "protocol_backfill.csv",
                        help="protocol facts with citations (default: scripts/protocol_backfill.csv)")
    args = parser.parse_args(argv)
    texts = migrate(args.package, args.backfill)
    for relative, text in texts.items():
        if text is not None:
            write_text_atomic(args.package / relative, text)
    for relative, text in texts.items():
        if text is None:
            (args.package / relative).unlink()
    print(f"migrated {args.package} to data package 1.0.0 ({len(texts)} files written)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
