"""Write conformance/vectors.json, the conformance vectors of SPEC.md (issue 32), from the reference.

Usage::

    python scripts/make_conformance_vectors.py [PACKAGE_DIR] [--check]

Run once when the spec version changes (the file is pinned: ``atari5-spec verify`` recomputes every case and
compares by SPEC.md section 12's rule). Cases: every subset of the default coefficient version with one seed and with three seeds in
range and one seed below 40 (withheld there by the reselected calibration), a game below random play, estimates
either side of the range edge, the pooled and in-range calibrations, other levels (0.8 tabulated, 0.99 not),
ratios of two papers and of one setup, with and without seeds; since spec 1.1 the cases spec 1.0 left silent (a
seed interval that does not contain the estimate, a lower end below 0, printed ``-0.0``, a ratio above 1,000, an
agent and a baseline at random play, a same-setup ratio seed interval reaching 0, a game of the version outside
the subset) and the refusals (score text ``12,000``, ``-inf``, ``1e999``, a missing game, an unknown game; since
spec 1.2 section 1.1's input rules: a score above its game's bound, inside or outside the subset, and
human-normalised fractions, with the best published scores they use in ``input_rules``, kept as first written), whose
``expected`` is ``{"refused": {"reason": <code>, "games": [...]}}``. Scores are made for a target estimate by putting
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
from atari5_spec.data.datapackage import read_descriptor  # noqa: E402
from atari5_spec.data.errors import InputError  # noqa: E402

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
    version = load_coefficient_set(VERSION, ROOT)
    if all(len(v) < 2 for v in scores.values()) or reference.refusal(
            scores, version.constants, version.subsets[subset].games, version.constants, bounds_of(ROOT, version)):
        return None
    result = atari5_spec.score(scores, subset=subset, coefficients=VERSION, partial=True)
    return list(result.interval)


def best_published(root: Path, games: list[str]) -> dict[str, float]:
    """SPEC.md section 1.1's best published raw score of each game: the highest in the package's data/scores.csv."""
    from atari5_spec.scoring.estimate import published_extremes

    extremes = published_extremes(root)
    return {g: extremes[g][1] for g in games if g in extremes}


def bounds_of(root: Path, version) -> dict[str, float]:
    return reference.upper_bounds(version.constants, best_published(root, sorted(version.constants)))


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
    spec_1_1_cases(version, out, score_case)
    return out


def z_scores(version, games, z_values) -> dict:
    """Raw scores (2 decimals) at the given normalised scores, per game."""
    out = {}
    for g in games:
        random, human = version.constants[g]
        out[g] = [round(random + (human - random) * z / 100.0, 2) for z in z_values]
    return out


def ratio_of(out: list, id_: str, what: str, first: dict, second: dict, same_setup: bool, subset: str = "Atari-5",
             calibration: str = DEFAULT) -> None:
    case = {"id": id_, "kind": "ratio", "what": what, "subset": subset, "calibration": calibration, "level": 0.95,
            "same_setup": same_setup, "agent": agent(first, subset), "baseline": agent(second, subset),
            "ratio_seed_interval": None}
    if same_setup and case["agent"]["seed_interval"] and case["baseline"]["seed_interval"]:
        result = atari5_spec.relative_score(first, second, subset=subset, coefficients=VERSION, same_setup=True)
        case["ratio_seed_interval"] = None if result.interval is None else list(result.interval)
    out.append(case)


def spec_1_1_cases(version, out: list, score_case) -> None:
    """The cases added with spec 1.1: what spec 1.0 left silent, and the refusals."""
    five, ten, three = "Atari-5", "Atari-10", "Atari-3"
    one = scores_for(version, five, 100.0)
    score_case("atari-5-refused-thousands-separator", "qbert written 12,000: refused (never read as 12 or 12000)",
               five, {**one, "qbert": ["12,000"]})
    score_case("atari-5-refused-minus-inf", "battle_zone -inf: not finite, refused", five,
               {**one, "battle_zone": ["-inf"]})
    score_case("atari-5-refused-overflow", "phoenix 1e999: a plain number that is not finite in binary64, refused",
               five, {**one, "phoenix": ["1e999"]})
    score_case("atari-5-refused-missing-game", "no score for qbert: refused, naming it", five,
               {g: v for g, v in one.items() if g != "qbert"})
    score_case("atari-5-refused-unknown-game", "a game the coefficient version does not have (qbret): refused", five,
               {**one, "qbret": [15877.41]})
    # spec 1.2, section 1.1: the input rules
    score_case("atari-5-refused-above-game-bound", "double_dunk 150 (the best published is 24): above its bound, "
               "refused", five, {**one, "double_dunk": [150.0]})
    score_case("atari-5-refused-above-bound-outside-subset", "amidar, a game of the version outside Atari-5, at "
               "1e8: the input rules see every game given, refused", five, {**one, "amidar": [1e8]})
    score_case("atari-5-refused-looks-normalised", "five human-normalised fractions given as raw scores: refused, "
               "naming the games at or below random play", five,
               {"battle_zone": [0.4], "double_dunk": [-0.5], "name_this_game": [0.2], "phoenix": [0.9],
                "qbert": [0.1]})
    score_case("atari-5-fractions-rule-needs-most-below-random", "values within 2 of zero, but only two of five "
               "at or below random play: not fractions, scored", five,
               {**{g: [1.5] for g in ("double_dunk", "battle_zone")},
                **{g: one[g] for g in ("name_this_game", "phoenix", "qbert")}})
    score_case("atari-5-extra-game-not-used", "amidar is a game of the version, not of Atari-5: not used", five,
               {**one, "amidar": [1719.5]})
    # five games whose 30 seeds average just below random play, one seed far below: every resample is clipped at
    # or above the estimate in them, so the seed interval lies above the estimate (b < 0 counts as 0)
    above = z_scores(version, ["battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert"], [1600.0] * 3)
    positives = [5.0 + 2.0 * i for i in range(29)]
    above.update(z_scores(version, ["amidar", "bowling", "frostbite", "kung_fu_master", "riverraid"],
                          [-(sum(positives) + 0.01 * 30)] + positives))
    score_case("atari-10-seed-interval-above-estimate", "the seed interval lies above the estimate: the seed part "
               "below counts as 0, the lower end is the model's alone", ten, above)
    row = {(r["interval"], r["subset"], r["range"], r["level"]): r["half_width"] for r in
           parameters_from_package(ROOT, VERSION, ["paper-2023.in-range.2"])["interval_tables"]["paper-2023.in-range.2"]}
    h = row[("agent", five, "extrapolation", 0.95)]
    score_case("atari-5-lower-end-below-zero", "an estimate near random play: the lower end is below 0 (below random "
               "play), printed with its sign", five, scores_for(version, five, 0.5), "paper-2023.in-range.2")
    score_case("atari-5-lower-end-minus-zero", "a lower end in (-0.05, 0): printed -0.0", five,
               scores_for(version, five, 0.97 * 10.0 ** h - 1.0), "paper-2023.in-range.2")
    random_play = {g: [version.constants[g][0]] for g in version.subsets[five].games}
    ratio_of(out, "ratio-above-1000", "a ratio above 1,000: three decimals, no thousands grouping (since spec 1.2 "
             "the agent inside section 1.1's bounds)", scores_for(version, five, 3000.0),
             scores_for(version, five, 2.5), False)
    ratio_of(out, "ratio-agent-at-random", "the agent at random play (E_A = 0): the ratio 0, log10 of it -inf, so no "
             "interval", random_play, scores_for(version, five, 100.0), False, five, "paper-2023.in-range.2")
    ratio_of(out, "ratio-baseline-at-random", "the baseline at random play (E_B = 0): refused", scores_for(version, five, 100.0),
             random_play, False)
    ratio_of(out, "ratio-same-setup-seed-interval-reaches-zero", "same setup: over 2.5% of the agent's resamples are at "
             "random play, so the ratio's seed interval starts at 0 (r_lo <= 0): the lower end is 0",
             z_scores(version, version.subsets[three].games, [-50.0, -50.0, -50.0, 800.0]),
             scores_for(version, three, 100.0, seeds=3), True, three)


def cross_check(case: dict, expected: dict) -> None:
    """The package's score path gives the reference's numbers (default calibration only)."""
    if "refused" in expected:
        try:
            if case["kind"] == "score":
                atari5_spec.score(case["scores"], subset=case["subset"], coefficients=VERSION)
            else:
                atari5_spec.relative_score(case["agent"]["scores"], case["baseline"]["scores"], subset=case["subset"],
                                           coefficients=VERSION)
        except InputError:
            return
        raise AssertionError(f"{case['id']}: the score path does not refuse it")
    if case["calibration"] != DEFAULT:
        return
    if case["kind"] == "score":
        result = atari5_spec.score(case["scores"], subset=case["subset"], coefficients=VERSION,
                                   confidence=case["level"], partial=True)
        pi = result.prediction_interval
        assert result.estimate == expected["estimate"], case["id"]
        assert (None if pi is None else [pi.low, pi.high]) == expected["prediction_interval"], case["id"]
    else:
        result = atari5_spec.relative_score(case["agent"]["scores"], case["baseline"]["scores"], subset=case["subset"],
                                            coefficients=VERSION, same_setup=case["same_setup"])
        pi = result.prediction_interval
        assert result.ratio == expected["ratio"], case["id"]
        assert (None if pi is None else [pi.low, pi.high]) == expected["ratio_interval"], case["id"]


def vectors_text(root: Path, pinned: dict | None = None) -> str:
    """The file's text; a case of ``pinned`` (the file as it is) that this machine reproduces within SPEC.md section
    12's tolerance is kept as pinned, so that a rerun on another CPU writes the same bytes."""
    kept = {c["id"]: c for c in (pinned or {}).get("cases", [])}
    version = load_coefficient_set(VERSION, root)
    games = sorted({g for m in version.subsets.values() for g in m.games})
    vectors = {"spec_version": reference.SPEC_VERSION, "spec": "SPEC.md",
               "generated_by": "scripts/make_conformance_vectors.py (the reference, atari5_spec/method/reference.py)",
               "tolerance": "1e-9 x max(1, |expected|) for numbers; printed strings and nulls exactly",
               **parameters_from_package(root, VERSION, TABLES, games),
               # an input, not a pinned file's copy: kept as written (the data's best scores only grow)
               "input_rules": (pinned or {}).get("input_rules") or {
                   "data_version": read_descriptor(root)["version"], "best_published": best_published(root, games)},
               "cases": []}
    for case in cases(version):
        case["expected"] = run_case(vectors, case)
        cross_check(case, case["expected"])
        same = case["id"] in kept and not differences(kept[case["id"]], case, case["id"], TOLERANCE)
        vectors["cases"].append(kept[case["id"]] if same else case)
    return json.dumps(vectors, indent=1, ensure_ascii=False) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the file differs")
    args = parser.parse_args(argv)
    path = args.package / VECTORS_PATH
    written = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    # --check keeps no case as written (each is recomputed), only the input rules' inputs
    text = vectors_text(args.package, {"input_rules": (written or {}).get("input_rules")} if args.check else written)
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
