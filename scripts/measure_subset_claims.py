"""Measure every subset's prediction interval as `score` uses it, per coefficient version and protocol group.

    python scripts/measure_subset_claims.py            # from the pinned calibrations (a few seconds)
    python scripts/measure_subset_claims.py --refold   # also rerun every fold's staged search from the data and
                                                       # check the pinned errors and games (about 1.5 s per paper
                                                       # on an idle core: 31 papers, shared by both versions)

Prints, per version, subset and group (in range, its protocol groups, extrapolation): what `score` does (shown,
widened, withheld), covered / agents with the runs and papers behind them and exact 95% bounds over runs, the
median width (high / low), and what the previous default calibration (weights refitted without the paper, games as
pinned) covers of its own agents. Then every calibration edition of paper-2023 judged on the never-selected agents
scored by the pinned formula (agents, runs, papers, sources, width; the two-paper ratio by band of true ratio) and
the calibration the rule of docs/out-of-sample.md picks. The same tables are what scripts/update_accuracy_docs.py
and scripts/update_comparison_docs.py write into docs/out-of-sample.md, docs/comparisons.md and the README
(tests/test_evaluation_docs.py and tests/test_comparisons.py keep them equal). With --refold, also the wall and CPU
time and the peak memory, and the formula calibrations are checked with the same searches.
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import atari5_spec
from atari5_spec_research.evaluation.calibration_choice import choice_blocks
from atari5_spec_research.evaluation.claims_report import REPORTED, claims_text

ROOT = Path(__file__).resolve().parents[1]
VERSIONS = ("paper-2023", "refit-2026-11")


def main(argv: list[str]) -> int:
    print(claims_text(ROOT, VERSIONS), end="")
    dataset = atari5_spec.load(ROOT, scores="all")
    for text in choice_blocks(dataset, "paper-2023", REPORTED).values():
        print("\n" + text, end="")
    if "--refold" not in argv:
        return 0
    from atari5_spec_maintainers.pinning.calibrations import calibration_mismatches

    wall, cpu = time.perf_counter(), time.process_time()
    searched: dict = {}
    failed = 0
    for name in [f"{version}.{method}" for version in VERSIONS for method in ("reselected", "formula")]:
        compared, problems = calibration_mismatches(dataset, name, 1e-9, True, searched)
        failed += bool(problems)
        print(f"{name}: {compared} pinned rows recomputed with every fold's search rerun: "
              + ("the same" if not problems else f"{len(problems)} differ: " + "; ".join(problems[:5])))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"refold: {time.perf_counter() - wall:.1f} s wall, {time.process_time() - cpu:.1f} s CPU, "
          f"peak memory {peak:.0f} MiB")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
