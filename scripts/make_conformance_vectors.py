"""Write conformance/vectors.json, the conformance vectors of SPEC.md (issue 32), from the reference.

Usage::

    python scripts/make_conformance_vectors.py [PACKAGE_DIR] [--check]

Run once when the spec version changes (the file is pinned: ``atari5-spec verify`` recomputes every case and
compares by SPEC.md section 12's rule). Cases: every subset of the default coefficient version with one seed and with three seeds in
range and one seed below 40 (withheld there by the reselected calibration), a game below random play, estimates
either side of the range edge, the pooled and in-range calibrations, other levels (0.8 tabulated, 0.99 not),
ratios of two papers and of one setup, with and without seeds. Scores are made for a target estimate by putting
every game at the same normalised score ``Z = phi^-1(phi(target) / sum c_i)`` (no search). Expected outputs are
:func:`atari5_spec.method.conformance.run_case` of the reference; each case is also run through
``atari5_spec.score`` / ``relative_score`` where its calibration is the default one, and must agree. Seed
intervals (implementation-defined, SPEC.md section 11) are inputs, taken from the reference's bootstrap
(10,000 resamples, seed 0). ``--check``: write nothing, exit 1 when the file differs from what this writes by
more than SPEC.md section 12 allows (numbers within 1e-9 relative, strings, nulls and the rest exactly: numpy's
log10, powers and sums differ in the last bits between CPUs), listing each difference.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import atari5_spec  # noqa: E402
from atari5_spec.method import reference  # noqa: E402
from atari5_spec.method.conformance import (  # noqa: E402
    TOLERANCE, VECTORS_PATH, differences, parameters_from_package, run_case)
from atari5_spec.method.pinned import load_coefficient_set  # noqa: E402

VERSION = "paper-2023"
DEFAULT = "paper-2023.formula.3"  # score's default calibration (data 1.91.0); the cases of the others name theirs
TABLES = [DEFAULT, "paper-2023.reselected", "paper-2023.in-range.2", "paper-2023"]
SUBSETS = ["Atari-1", "Atari-3", "Atari-5", "Atari-10", "Atari-3-Val", "Atari-5-Val", "DQN-7"]
SPREAD = (0.9, 1.0, 1.12)  # three seeds around the one-seed score


def scores_for(version, subset: str, target: float, seeds: int = 1, below: dict | None = None) -> dict:
    model = version.subsets[subset]
    z = float(reference.inverse_log_transform(reference.log_transform(target) / sum(model.coefficients)))
    out = {}
    for g in model.games:
        random, human = version.constants[g]
        raw = round(random + (human - random) * z / 100.0, 2)
        out[g] = [round(raw * f, 2) for f in SPREAD] if seeds > 1 else [raw]
    for g, raw in (below or {}).items():
        out[g] = [raw]
    return out


def seed_interval(scores: dict, subset: str):
    if all(len(v) < 2 for v in scores.values()):
        return None
    result = atari5_spec.score(scores, subset=subset, coefficients=VERSION, partial=True)
    return list(result.interval)


def agent(scores: dict, subset: str) -> dict:
    return {"scores": scores, "seed_interval": seed_interval(scores, subset)}


def cases(version) -> list[dict]:
    out = []

    def score_case(id_, what, subset, scores, calibration=DEFAULT, level=0.95):
        out.append({"id": id_, "kind": "score", "what": what, "subset": subset, "calibration": calibration,
                    "level": level, **agent(scores, subset)})

    for subset in SUBSETS:
        key = subset.lower()
        score_case(f"{key}-one-seed", "one seed per game, in range", subset, scores_for(version, subset, 120.0))
        score_case(f"{key}-three-seeds", "three seeds per game: means before normalising, seed part combined",
                   subset, scores_for(version, subset, 300.0, seeds=3))
        score_case(f"{key}-below-40", "one seed, estimate below 40: extrapolation, withheld by the default "
                   "calibration", subset, scores_for(version, subset, 15.0))
    five = "Atari-5"
    score_case("atari-5-game-below-random", "double_dunk below random play: clipped to random (z < 0 -> 0)", five,
               scores_for(version, five, 200.0, below={"double_dunk": -23.5}))
    score_case("atari-5-edge-above", "estimate just above 40: in range", five, scores_for(version, five, 40.05))
    score_case("atari-5-edge-below", "estimate just below 40: extrapolation", five, scores_for(version, five, 39.95))
    score_case("atari-5-pooled-one-seed", "the pooled calibration (no ranges)", five,
               scores_for(version, five, 120.0), "paper-2023")
    score_case("atari-5-pooled-three-seeds", "pooled: the seed interval widened by h on both sides", five,
               scores_for(version, five, 120.0, seeds=3), "paper-2023")
    score_case("atari-5-reselected-one-seed", "the reselected calibration (the default before data 1.77.0)", five,
               scores_for(version, five, 120.0), "paper-2023.reselected")
    score_case("atari-5-in-range-extrapolation", "the in-range calibration shows an interval below 40", five,
               scores_for(version, five, 15.0), "paper-2023.in-range.2")
    score_case("atari-5-in-range-three-seeds", "the in-range calibration with seeds", five,
               scores_for(version, five, 90.0, seeds=3), "paper-2023.in-range.2")
    score_case("atari-5-level-80", "level 0.8 (tabulated)", five, scores_for(version, five, 120.0), DEFAULT, 0.8)
    score_case("atari-5-level-99", "level 0.99: no row in the table, so no interval", five,
               scores_for(version, five, 120.0), DEFAULT, 0.99)

    def ratio_case(id_, what, a, b, same_setup, seeds=1):
        first, second = scores_for(version, five, a, seeds), scores_for(version, five, b, seeds)
        case = {"id": id_, "kind": "ratio", "what": what, "subset": five, "calibration": DEFAULT, "level": 0.95,
                "same_setup": same_setup, "agent": agent(first, five), "baseline": agent(second, five),
                "ratio_seed_interval": None}
        if same_setup and seeds > 1:
            result = atari5_spec.relative_score(first, second, coefficients=VERSION, same_setup=True)
            case["ratio_seed_interval"] = list(result.interval)
        out.append(case)

    ratio_case("ratio-two-papers-one-seed", "two papers, one seed each", 250.0, 100.0, False)
    ratio_case("ratio-two-papers-three-seeds", "two papers, three seeds each", 250.0, 100.0, False, 3)
    ratio_case("ratio-close-cannot-tell", "two papers, close estimates: the interval holds 1", 110.0, 100.0, False)
    ratio_case("ratio-baseline-below-40", "the baseline's own interval is withheld: so is the ratio's", 250.0, 20.0,
               False)
    ratio_case("ratio-two-papers-far-apart", "two papers, far apart: the interval widened by the decision margin "
               "excludes 1 too", 600.0, 100.0, False)
    ratio_case("ratio-two-papers-within-margin", "two papers: the 95% interval excludes 1, the one widened by the "
               "decision margin does not (cannot tell)", 200.0, 100.0, False)
    ratio_case("ratio-same-setup-one-seed", "same setup, one seed each", 250.0, 100.0, True)
    ratio_case("ratio-same-setup-three-seeds", "same setup with the ratio's seed interval", 130.0, 100.0, True, 3)
    return out


def cross_check(case: dict, expected: dict) -> None:
    """The package's score path gives the reference's numbers (default calibration only)."""
    if case["calibration"] != DEFAULT:
        return
    if case["kind"] == "score":
        result = atari5_spec.score(case["scores"], subset=case["subset"], coefficients=VERSION,
                                   confidence=case["level"], partial=True)
        pi = result.prediction_interval
        assert result.estimate == expected["estimate"], case["id"]
        assert (None if pi is None else [pi.low, pi.high]) == expected["prediction_interval"], case["id"]
    else:
        result = atari5_spec.relative_score(case["agent"]["scores"], case["baseline"]["scores"], coefficients=VERSION,
                                            same_setup=case["same_setup"])
        pi = result.prediction_interval
        assert result.ratio == expected["ratio"], case["id"]
        assert (None if pi is None else [pi.low, pi.high]) == expected["ratio_interval"], case["id"]


def vectors_text(root: Path) -> str:
    version = load_coefficient_set(VERSION, root)
    games = sorted({g for m in version.subsets.values() for g in m.games})
    vectors = {"spec_version": reference.SPEC_VERSION, "spec": "SPEC.md",
               "generated_by": "scripts/make_conformance_vectors.py (the reference, atari5_spec/method/reference.py)",
               "tolerance": "1e-9 x max(1, |expected|) for numbers; printed strings and nulls exactly",
               **parameters_from_package(root, VERSION, TABLES, games), "cases": []}
    for case in cases(version):
        case["expected"] = run_case(vectors, case)
        cross_check(case, case["expected"])
        vectors["cases"].append(case)
    return json.dumps(vectors, indent=1, ensure_ascii=False) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the file differs")
    args = parser.parse_args(argv)
    text = vectors_text(args.package)
    path = args.package / VECTORS_PATH
    if args.check:
        if not path.is_file():
            print(f"{path}: missing")
            return 1
        pinned = path.read_text(encoding="utf-8")
        if pinned == text:
            print(f"{path}: as written")
            return 0
        problems = differences(json.loads(pinned), json.loads(text), "vectors", TOLERANCE)
        if not problems:
            print(f"{path}: as written, within SPEC.md section 12's tolerance (this machine's last bits differ)")
            return 0
        print(f"{path}: DIFFERS from what the reference writes")
        print("\n".join(f"  {problem}" for problem in problems))
        return 1
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"{path}: {len(json.loads(text)['cases'])} cases written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
