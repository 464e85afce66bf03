"""How many ranked agents have their sticky-action setting and training budget settled by cited evidence (issue 26).

Usage::

    python scripts/protocol_coverage.py [PACKAGE_DIR] [--json] [--list]

The ranked agents are those of ``atari5-spec leaderboard`` (the default table) and of
``leaderboard --only-regime atari-100k``, which ranks every Atari 100k entry with a score on each of the 26 games
of ``data/benchmark_games.csv`` by its 26-game median (data 1.32.0). A field counts as settled when
``data/protocol_evidence.csv`` has a row for it with status ``stated``, ``not-stated`` (the source was read and
is silent) or ``derived`` (statements read and joined; counted apart too); ``not-found`` and a missing row count as
unknown. Rows are also counted by verification (``read``:
the text was read; ``recalled``: from memory, to be checked). Prints the figures the report and CHANGELOG cite.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIELDS = ("sticky_action_probability", "training_frames")
SETTLED = ("stated", "not-stated", "derived")


def ranked_agents(dataset) -> list[str]:
    """Ids of the ranked agents, sorted: the default table and the Atari 100k table (its 26-game field)."""
    from atari5_spec.scoring.ranking import leaderboard

    ranked = {r.algorithm_id for r in leaderboard(dataset=dataset).rows if r.kind == "agent"}
    ranked |= {r.algorithm_id for r in leaderboard(dataset=dataset, regime="atari-100k").rows if r.kind == "agent"}
    return sorted(ranked)


def coverage(dataset) -> dict:
    """Per field: how many ranked agents have it settled, and the evidence rows of ranked agents read vs recalled."""
    agents = ranked_agents(dataset)
    evidence = dataset.protocol_evidence
    rows = evidence[evidence.algorithm_id.isin(agents)]
    status = {(r.algorithm_id, r.field): r.status for r in rows.itertuples()}
    out = {"ranked": len(agents), "agents": agents, "fields": {}}
    for field in FIELDS:
        settled = [a for a in agents if status.get((a, field)) in SETTLED]
        out["fields"][field] = {"settled": len(settled), "share": len(settled) / len(agents),
                                "derived": sum(status.get((a, field)) == "derived" for a in agents),
                                "unsettled": [a for a in agents if a not in settled]}
    out["rows_read"] = int((rows.verification == "read").sum())
    out["rows_recalled"] = int((rows.verification == "recalled").sum())
    out["recalled"] = sorted(f"{r.algorithm_id}:{r.field}" for r in rows.itertuples() if r.verification == "recalled")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT, help="data package directory")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--list", action="store_true", help="also name the unsettled agents and the recalled rows")
    args = parser.parse_args(argv)
    from atari5_spec.data.loading import load

    result = coverage(load(args.package))
    if args.json:
        print(json.dumps(result, indent=1, sort_keys=True))
        return 0
    print(f"ranked agents: {result['ranked']}")
    for field, figures in result["fields"].items():
        print(f"{field}: {figures['settled']} of {result['ranked']} settled ({100 * figures['share']:.1f}%; "
              f"{figures['derived']} of them derived)"
              + (f"; not: {', '.join(figures['unsettled'])}" if args.list else ""))
    print(f"evidence rows of ranked agents: {result['rows_read']} read, {result['rows_recalled']} recalled")
    if args.list and result["recalled"]:
        print("recalled: " + ", ".join(result["recalled"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
