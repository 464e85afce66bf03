"""SPEC.md's conformance vectors: the reference, the score path and a port written from SPEC.md alone all give them.

The site's JavaScript scorer runs the same file in tests/test_site_browser.py.
"""

from __future__ import annotations

import ast
import copy
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import atari5_spec
from atari5_spec.data.datapackage import package_root
from atari5_spec.method import reference
from atari5_spec.method.calibration import read_calibration_intervals, read_named_calibration
from atari5_spec.method.conformance import read_vectors, run_case, vector_problems
from atari5_spec.method.pinned import load_coefficient_set
from atari5_spec.scoring.estimate import _prediction_interval

ROOT = package_root()
PORT = ROOT / "conformance" / "port.py"
DEFAULT_CALIBRATION = "paper-2023.formula.3"  # score's default: the vectors' cases that name no other calibration


@pytest.fixture(scope="module")
def vectors():
    return read_vectors(ROOT)


def test_the_vectors_follow_their_schema_and_cover_what_the_spec_names(vectors):
    import jsonschema

    jsonschema.validate(vectors, json.loads((ROOT / "conformance" / "vectors.schema.json").read_text()))
    cases = vectors["cases"]
    assert len(cases) >= 30 and vectors["spec_version"] == reference.SPEC_VERSION
    scored = [c for c in cases if c["kind"] == "score" and "refused" not in c["expected"]]
    subsets = set(load_coefficient_set("paper-2023").subsets)
    assert {c["subset"] for c in scored} == subsets  # every subset
    assert any(all(len(v) == 1 for v in c["scores"].values()) for c in scored)  # one seed
    assert any(all(len(v) > 1 for v in c["scores"].values()) and c["seed_interval"] for c in scored)  # several
    assert any(min(c["expected"]["normalised"].values()) < 0 for c in scored)  # a game below random
    edge = [c["expected"]["estimate"] for c in scored if abs(c["expected"]["estimate"] - 40) < 0.5]
    assert min(edge) < reference.IN_RANGE_MIN <= max(edge)  # either side of the range edge
    assert any(c["expected"]["status"] == "withheld" for c in scored)
    assert {c["calibration"] for c in cases} >= {"paper-2023.formula.3", "paper-2023.reselected", "paper-2023"}  # a pooled one too
    ratios = [c for c in cases if c["kind"] == "ratio" and "refused" not in c["expected"]]
    assert {c["same_setup"] for c in ratios} == {True, False}
    # spec 1.1: every refusal reason, and the cases spec 1.0 left silent
    refused = {c["id"]: c["expected"]["refused"] for c in cases if "refused" in c["expected"]}
    assert {r["reason"] for r in refused.values()} == set(reference.REFUSALS)
    assert {"12,000", "-inf", "1e999"} <= {x for c in cases if c["kind"] == "score" for v in c["scores"].values()
                                           for x in v if isinstance(x, str)}
    assert any(c["seed_interval"] and not c["seed_interval"][0] <= c["expected"]["estimate"] <= c["seed_interval"][1]
               for c in scored)  # a seed interval that does not contain E
    assert any(c["expected"]["prediction_interval"] and c["expected"]["prediction_interval"][0] < 0 for c in scored)
    assert any(c["expected"]["ratio"] > 1000 for c in ratios) and any(c["expected"]["ratio"] == 0 for c in ratios)
    assert any(c["ratio_seed_interval"] and c["ratio_seed_interval"][0] <= 0 for c in ratios)
    assert {c["expected"]["decision"] for c in ratios} >= {"higher", "cannot tell", None}


def test_verify_recomputes_every_vector_from_the_pinned_parameters():
    compared, problems = vector_problems(ROOT)
    assert compared >= 30 and problems == []


def test_verify_fails_on_a_changed_expectation_or_parameter(vectors):
    """Outputs by SPEC.md section 12's rule (1e-9 x max(1, |expected|)), parameters exactly."""
    changed = copy.deepcopy(vectors)
    estimate = changed["cases"][0]["expected"]["estimate"]
    changed["cases"][0]["expected"]["estimate"] = estimate * (1 + 2e-9)
    changed["cases"][1]["expected"]["estimate"] = math.nextafter(changed["cases"][1]["expected"]["estimate"], math.inf)
    changed["coefficients"]["subsets"]["Atari-5"]["weights"][0] += 1e-12
    from atari5_spec.method import conformance

    problems = [d for case in changed["cases"][:2]
                for d in conformance.differences(case["expected"], run_case(changed, case), case["id"],
                                                 conformance.TOLERANCE)]
    assert len(problems) == 1 and problems[0].startswith(f"{changed['cases'][0]['id']}.estimate: expected")
    pinned = conformance.parameters_from_package(ROOT, "paper-2023", ["paper-2023.formula.3"],
                                                 list(changed["coefficients"]["games"]))
    assert conformance.differences(pinned["coefficients"], changed["coefficients"], "coefficients") == [
        "coefficients.subsets.Atari-5.weights[0]: expected "
        f"{pinned['coefficients']['subsets']['Atari-5']['weights'][0]!r}, computed "
        f"{changed['coefficients']['subsets']['Atari-5']['weights'][0]!r}"]


def _pair(interval) -> list | None:
    return None if interval is None else [interval[0], interval[1]]


def _near(computed: list | None, pinned: list | None) -> bool:
    """The same seed interval as the vectors' input, by SPEC.md section 12's rule (the bootstrap's sums and
    quantiles, like log10, may differ in the last bits between machines)."""
    from atari5_spec.method.conformance import TOLERANCE, differences

    return (computed is None) == (pinned is None) and not differences(pinned, computed, "seed interval", TOLERANCE)


def test_the_score_path_gives_every_vector(vectors):
    """atari5_spec.score and relative_score (the code `atari5-spec score` runs) give each case's outputs exactly as
    the reference computes them on this machine from the seed intervals the score path drew (which are the
    vectors' inputs, within SPEC.md's tolerance); the reference meets the pinned outputs by SPEC.md's rule
    (test_verify_recomputes_every_vector_from_the_pinned_parameters)."""
    from atari5_spec.data.errors import InputError

    version = load_coefficient_set("paper-2023")
    for case in vectors["cases"]:
        if "refused" in case["expected"]:  # the score path refuses it too (a message, not the reason code)
            with pytest.raises(InputError):
                if case["kind"] == "score":
                    atari5_spec.score(case["scores"], subset=case["subset"], coefficients="paper-2023")
                else:
                    atari5_spec.relative_score(case["agent"]["scores"], case["baseline"]["scores"],
                                               subset=case["subset"], coefficients="paper-2023")
            continue
        if case["kind"] == "ratio":
            result = atari5_spec.relative_score(case["agent"]["scores"], case["baseline"]["scores"],
                                                subset=case["subset"], coefficients="paper-2023",
                                                same_setup=case["same_setup"])
            drawn = {"agent": _pair(result.agent.interval), "baseline": _pair(result.baseline.interval),
                     "ratio": _pair(result.interval) if case["same_setup"] else None}
            assert _near(drawn["agent"], case["agent"].get("seed_interval")), case["id"]
            assert _near(drawn["baseline"], case["baseline"].get("seed_interval")), case["id"]
            assert _near(drawn["ratio"], case.get("ratio_seed_interval")), case["id"]
            here = {**case, "agent": {**case["agent"], "seed_interval": drawn["agent"]},
                    "baseline": {**case["baseline"], "seed_interval": drawn["baseline"]},
                    "ratio_seed_interval": drawn["ratio"]}
            expected = run_case(vectors, here)
            pi = result.prediction_interval
            assert result.ratio == expected["ratio"], case["id"]
            assert (None if pi is None else [pi.low, pi.high]) == expected["ratio_interval"], case["id"]
            decision = None if pi is None else pi.decision
            if decision == "cannot be decided here":  # SPEC.md section 9's MAY: pair coverage not measured there
                assert pi.reasons and expected["decision"] in ("higher", "lower"), case["id"]
            else:
                assert decision == expected["decision"], case["id"]
            continue
        result = atari5_spec.score(case["scores"], subset=case["subset"], coefficients="paper-2023",
                                   confidence=case["level"], partial=True)
        assert _near(_pair(result.interval), case["seed_interval"]), case["id"]
        expected = run_case(vectors, {**case, "seed_interval": _pair(result.interval)})
        assert result.estimate == expected["estimate"], case["id"]
        assert {g: result.normalised[g] for g in expected["normalised"]} == expected["normalised"], case["id"]
        pi = result.prediction_interval
        if case["calibration"] != DEFAULT_CALIBRATION:  # another pinned calibration: its own table
            calibration = read_named_calibration(version.path, case["calibration"])
            pi = _prediction_interval(version.subsets[case["subset"]], {g: tuple(v) for g, v in case["scores"].items()},
                                      result.estimate, result.interval, calibration, case["level"],
                                      read_calibration_intervals(version.path, calibration))
        else:
            row = result.interval_row
            assert (row.status if row else None) == expected["status"], case["id"]
        assert (None if pi is None else [pi.low, pi.high]) == expected["prediction_interval"], case["id"]


def test_a_port_written_from_the_spec_alone_reproduces_every_vector(tmp_path):
    """conformance/port.py imports only the standard library (checked on its source) and runs in a fresh
    interpreter that cannot see the package (-I, another folder, no PYTHONPATH)."""
    tree = ast.parse(PORT.read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported <= {"json", "math", "re", "sys", "pathlib"}
    done = subprocess.run([sys.executable, "-I", str(PORT), str(ROOT / "conformance" / "vectors.json")],
                          cwd=tmp_path, env={}, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    n = len(json.loads((ROOT / "conformance" / "vectors.json").read_text(encoding="utf-8"))["cases"])
    assert done.stdout.strip().endswith(f"{n} of {n} cases reproduced from SPEC.md alone")


def test_the_port_fails_on_a_vector_it_does_not_reproduce(tmp_path, vectors):
    changed = copy.deepcopy(vectors)
    changed["cases"][3]["expected"]["prediction_interval"][1] *= 1.001
    changed["cases"][-1]["expected"]["printed"]["ratio"] = "9.999"
    path = tmp_path / "vectors.json"
    path.write_text(json.dumps(changed))
    done = subprocess.run([sys.executable, "-I", str(PORT), str(path)], cwd=tmp_path, env={}, capture_output=True,
                          text=True)
    assert done.returncode == 1
    assert changed["cases"][3]["id"] in done.stdout and changed["cases"][-1]["id"] in done.stdout


@pytest.mark.slow
def test_the_generator_writes_the_pinned_file_again():
    checkout = Path(__file__).resolve().parents[1]  # scripts/ is in the checkout, not in the installed package
    done = subprocess.run([sys.executable, str(checkout / "scripts" / "make_conformance_vectors.py"), "--check"],
                          capture_output=True, text=True, cwd=checkout)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_reference_module_imports_the_standard_library_and_numpy_only():
    path = Path(reference.__file__)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "numpy" in imported and imported <= set(sys.stdlib_module_names) | {"numpy"}


def test_a_hand_edited_interval_table_is_a_problem_naming_both_hashes(package_copy):
    from conftest import tamper_interval_table

    from atari5_spec.data.registry import hash_mismatch
    from atari5_spec.method.conformance import VECTORS_PATH

    relative, recorded, _ = tamper_interval_table(package_copy)
    compared, problems = vector_problems(package_copy)
    assert compared == len(read_vectors(ROOT)["cases"])  # the cases still run, on the vectors' own parameters
    assert problems == [f"{VECTORS_PATH} parameters: "
                        f"{hash_mismatch(relative, recorded, (package_copy / relative).read_bytes())}"]


def test_the_generator_check_names_a_number_beyond_the_tolerance(package_copy):
    checkout = Path(__file__).resolve().parents[1]
    path = package_copy / "conformance" / "vectors.json"
    changed = json.loads(path.read_text(encoding="utf-8"))
    case = changed["cases"][0]
    case["expected"]["estimate"] *= 1 + 1e-6
    path.write_text(json.dumps(changed, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(checkout / "scripts" / "make_conformance_vectors.py"),
                           str(package_copy), "--check"], capture_output=True, text=True, cwd=package_copy)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"vectors.cases[0].expected.estimate: expected {case['expected']['estimate']!r}, computed" in done.stdout


# --- spec 1.1: the rules spec 1.0 left silent, on numbers ---------------------------------------------------------

def _row(h: float, range_: str = "in range") -> reference.IntervalRow:
    return reference.IntervalRow("agent", "Atari-5", range_, 0.95, "shown", h, 1.0, 0, "", 0, 0, 0, 0, 0, 0, None,
                                 None, "")


def test_a_seed_interval_that_does_not_contain_the_estimate_adds_nothing_on_its_far_side():
    """SPEC.md section 7: b = max(0, phi(E) - phi(s_lo)), a = max(0, phi(s_hi) - phi(E)). E = 100, h = 0.18 and
    seeds 110-130: the lower end is the model's alone, 101 x 10^-0.18 - 1 = 65.730 (squaring b gave 65.025)."""
    low, high = reference.prediction_interval(100.0, _row(0.18), (110.0, 130.0))
    assert low == pytest.approx(101.0 * 10 ** -0.18 - 1.0, rel=1e-12) and round(low, 3) == 65.730
    assert low == reference.prediction_interval(100.0, _row(0.18))[0]
    a = math.log10(131.0 / 101.0)
    assert high == pytest.approx(101.0 * 10 ** math.hypot(0.18, a) - 1.0, rel=1e-12)
    below = reference.prediction_interval(100.0, _row(0.18), (80.0, 95.0))  # entirely below: the upper end is h's
    assert below[1] == pytest.approx(101.0 * 10 ** 0.18 - 1.0, rel=1e-12)
    # the lower end never decreases as the seed interval moves up past E
    lows = [reference.prediction_interval(100.0, _row(0.18), (s, s + 20.0))[0] for s in (90.0, 100.0, 110.0, 150.0)]
    assert lows == sorted(lows) and lows[1] == lows[2] == lows[3]


def test_a_same_setup_ratio_seed_interval_reaching_zero_gives_a_lower_end_of_zero():
    """SPEC.md section 9: r_lo <= 0 makes b infinite (lower end 0); the upper side keeps a = log10(r_hi / R)."""
    row = _row(0.2)._replace(interval="ratio-same-setup")
    low, high = reference.same_setup_ratio_interval(150.0, 100.0, row, (0.0, 3.0))
    assert low == 0.0 and high == pytest.approx(1.5 * 10 ** math.hypot(0.2, math.log10(3.0 / 1.5)), rel=1e-12)
    assert reference.same_setup_ratio_interval(150.0, 100.0, row, (-1.0, 3.0)) == (low, high)
    assert reference.ratio_decision((low, high), 1.5, 1.5) == "cannot tell"
    inside = reference.same_setup_ratio_interval(150.0, 100.0, row, (1.6, 3.0))  # r_lo above R: b counts as 0
    assert inside[0] == pytest.approx(1.5 * 10 ** -0.2, rel=1e-12)


def test_the_refusal_rules_give_their_reason_codes_in_order():
    games, known = ["a", "b"], {"a", "b", "c"}
    assert reference.refusal({"a": [1.0], "b": ["12,000"]}, known, games) == ("not-a-plain-number", ["b"])
    assert reference.refusal({"a": ["-inf"], "zz": [1.0]}, known, games) == ("not-a-plain-number", ["a"])
    assert reference.refusal({"a": [1.0], "zz": [1.0]}, known, games) == ("unknown-game", ["zz"])
    assert reference.refusal({"a": [1.0], "b": []}, known, games) == ("missing-game", ["b"])
    assert reference.refusal({"a": [1.0], "b": ["2.5e3"], "c": [7]}, known, games) is None
    # section 1.1 (spec 1.2): after unknown-game, before missing-game, only with the inputs the rules need
    constants = {"a": (100.0, 1100.0), "b": (-18.6, -16.4), "c": (0.0, 10.0)}
    bounds = reference.upper_bounds(constants, {"a": 5000.0, "b": 24.0})
    assert bounds == {"a": 100.0 + 3 * 4900.0, "b": -18.6 + 3 * (24.0 + 18.6)}
    assert reference.refusal({"a": [1.0, 20000.0], "c": [1e9]}, known, games, constants, bounds) == (
        "above-game-bound", ["a"])  # c has no published score: no bound
    assert reference.refusal({"a": [1.0], "zz": [1e9]}, known, games, constants, bounds) == ("unknown-game", ["zz"])
    fractions = {"a": [0.4], "b": [-0.5], "c": [-0.1]}  # a and c at or below random play, b above it
    assert reference.refusal(fractions, known, games, constants, bounds) == ("looks-normalised", ["a", "c"])
    assert reference.refusal({"a": [0.4], "b": [1.5], "c": [1.9]}, known, games, constants, bounds) is None  # 1 of 3
    assert reference.refusal({"a": [0.4], "b": [-0.5]}, known, games, constants, bounds) is None  # 2 games say too little
    assert reference.refusal(fractions, known, games) is None  # without constants: spec 1.1's rules only
    assert [reference.read_score(x) for x in ("12000", "-1.5", ".5", "1e3", "1e999", "12k", " 1", True, math.nan)] == [
        12000.0, -1.5, 0.5, 1000.0, None, None, None, None, None]


def test_printing_a_ratio_has_no_grouping_and_a_lower_end_below_zero_keeps_its_sign():
    assert reference.printed(1200.0958760989945, "ratio") == "1200.096"
    assert reference.printed(1234.5, "estimate") == "1,234.5"
    assert reference.printed(-0.0347822511794752, "interval") == "-0.0"
    assert reference.printed(-0.06458783361935472, "interval") == "-0.1"
    assert reference.printed(-math.inf, "ratio interval") == "-inf" and reference.printed(math.inf, "ratio") == "inf"


def test_the_new_vectors_pin_these_numbers(vectors):
    cases = {c["id"]: c for c in vectors["cases"]}
    above = cases["atari-10-seed-interval-above-estimate"]
    e, h = above["expected"]["estimate"], above["expected"]["half_width"]
    assert above["seed_interval"][0] > e  # the bootstrap's own interval lies above E
    assert above["expected"]["prediction_interval"][0] == pytest.approx((1 + e) * 10 ** -h - 1, rel=1e-12)
    above_1000 = cases["ratio-above-1000"]["expected"]
    assert above_1000["ratio"] > 1000 and above_1000["printed"]["ratio"] == f"{above_1000['ratio']:.3f}"  # no comma
    assert cases["ratio-agent-at-random"]["expected"]["ratio"] == 0.0
    assert cases["ratio-agent-at-random"]["expected"]["ratio_interval"] is None
    assert cases["ratio-baseline-at-random"]["expected"] == {
        "refused": {"reason": "baseline-at-random", "games": [], "side": "baseline"}}
    zero = cases["ratio-same-setup-seed-interval-reaches-zero"]
    assert zero["ratio_seed_interval"][0] == 0.0 and zero["expected"]["ratio_interval"][0] == 0.0
    assert cases["atari-5-lower-end-minus-zero"]["expected"]["printed"]["prediction_interval"][0] == "-0.0"
    assert cases["atari-5-extra-game-not-used"]["expected"]["estimate"] == cases["ratio-two-papers-one-seed"][
        "expected"]["baseline"]["estimate"]
    assert {c["expected"]["refused"]["games"][0] for c in cases.values()
            if c["kind"] == "score" and "refused" in c["expected"]} == {"qbert", "battle_zone", "phoenix", "qbret",
                                                                        "double_dunk", "amidar"}
    # spec 1.2, section 1.1: each input rule refuses by itself, the fractions rule names the games below random
    assert cases["atari-5-refused-above-game-bound"]["expected"]["refused"] == {"reason": "above-game-bound",
                                                                               "games": ["double_dunk"]}
    assert cases["atari-5-refused-looks-normalised"]["expected"]["refused"] == {
        "reason": "looks-normalised", "games": ["battle_zone", "name_this_game", "phoenix", "qbert"]}
    assert "refused" not in cases["atari-5-fractions-rule-needs-most-below-random"]["expected"]
