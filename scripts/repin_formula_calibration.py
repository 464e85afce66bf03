"""Pin the next edition of the ``formula`` calibration from the data as it is now, and print how the widths moved.

    python scripts/repin_formula_calibration.py                      # paper-2023 and refit-2026-11
    python scripts/repin_formula_calibration.py --version paper-2023

For issue 33's re-pinning after new never-selected evidence lands (the public sticky-action baselines): for each
version it runs what ``atari5-spec evaluate --pin-calibration --calibration-method formula --version V`` runs
(every fold's staged search, about 1.5 s per paper of the search set; a data event: minor version bump, CHANGELOG
line, the errors file and its interval table, all in one transaction), then prints, per subset, the previous and
the new edition side by side on their own never-selected in-range agents (outside the training set, scored by the
pinned formula): coverage leave-one-paper-out with the runs, papers and sources behind it, the median width
(high / low), and the two-paper ratio interval on pairs of never-selected agents (coverage, width, decisions per
band of true ratio). When the newest edition already holds the errors the data give, it says so and exits 1
(nothing is written). Afterwards regenerate the documents:

    python scripts/update_accuracy_docs.py && python scripts/update_comparison_docs.py
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import atari5_spec
from atari5_spec.data.errors import InputError
from atari5_spec.method.calibration import read_calibration
from atari5_spec_research.evaluation.calibration_choice import Alternative, pair_results, single_results
from atari5_spec_research.evaluation.claims_report import REPORTED
from atari5_spec_maintainers.pinning.calibrations import pin_calibration

ROOT = Path(__file__).resolve().parents[1]


def summary(dataset, calibration) -> list[str]:
    """One line per subset: never-selected coverage and width, and the two-paper ratio of never-selected pairs."""
    sources_of = dict(zip(dataset.algorithms["algorithm_id"], dataset.algorithms["source_id"].astype(str)))
    alt = [Alternative(calibration.name, calibration, True)]
    singles = {r.subset: r for r in single_results(alt, calibration, REPORTED, sources_of)}
    pairs = {p.subset: p.measured for p in pair_results(alt, calibration, REPORTED)}
    lines = []
    for subset in REPORTED:
        r = singles.get(subset)
        if r is None:
            continue
        e = r.evidence
        single = ("withheld" if e is None else
                  f"{e.covered}/{e.n} agents, {e.runs_covered}/{e.runs} runs, {e.papers} papers, {r.sources} "
                  f"sources; width {r.median_width:.2f}")
        p = pairs.get(subset)
        ratio = "" if p is None else (f" | ratio {p.evidence.covered}/{p.evidence.n} pairs, width {p.median_width:.2f}"
                                      ", decided " + ", ".join(f"{d}/{n}" for d, n in p.bands))
        lines.append(f"  {calibration.name:28} {subset:12} {single}{ratio}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="append", help="coefficient version (repeatable)")
    args = parser.parse_args(argv)
    versions = args.version or ["paper-2023", "refit-2026-11"]
    failed = 0
    for version in versions:
        coefficients = ROOT / "coefficients" / version
        before = read_calibration(coefficients, "formula")
        try:
            path, data_version = pin_calibration(ROOT, version, "formula")
        except InputError as error:
            print(f"{version}: {error}")
            failed = 1
            continue
        print(f"wrote {path.relative_to(ROOT)} (data package {data_version})")
        dataset = atari5_spec.load(ROOT)
        after = read_calibration(coefficients, "formula")
        print(f"{version}: never-selected in-range agents, 95%, leave-one-paper-out (before, then after):")
        for calibration in (before, after):
            if calibration is not None:
                print("\n".join(summary(dataset, calibration)))
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
