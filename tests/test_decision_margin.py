"""Issue 33: a direction only with a measured guarantee. The decision margin's rule on made-up pairs (what it picks,
what the nested count charges), the reference's decision with a margin, and the pinned direction rows against the
rule recomputed on the default calibration."""

from __future__ import annotations

import math

import numpy as np

from atari5_spec.method import reference
from atari5_spec.method.calibration import NEVER_SELECTED, read_calibration, read_calibration_intervals
from atari5_spec.method.decision_margin import (
    MARGINS,
    Pair,
    PairSet,
    choose_margin,
    decisions,
    nested_wrong_way,
    pinned_margin,
    same_setup_pair_set,
    two_paper_pair_set,
)
from atari5_spec.method.pairs import PairAgent, pair_agents
from atari5_spec.method.pinned import load_coefficient_set


def _agent(name: str, paper: str, estimate: float, true: float) -> PairAgent:
    return PairAgent(name, name, paper, estimate, true, math.log10((1 + true) / (1 + estimate)),
                     math.log10(true / estimate))


def _set(pairs: list[tuple[PairAgent, PairAgent, float]]) -> PairSet:
    from atari5_spec.method.decision_margin import _pair_set

    return _pair_set("made up", [Pair(a, b, h) for a, b, h in pairs])


def test_the_smallest_margin_without_a_wrong_way_decision_is_chosen():
    # estimated 2x, truly 0.9x: the 95% interval (half-width 0.2 in log10) excludes 1 on the wrong side
    wrong = (_agent("a", "P", 200, 90), _agent("b", "Q", 100, 100), 0.2)
    right = (_agent("c", "R", 400, 400), _agent("d", "S", 100, 100), 0.2)
    pairs = _set([wrong, right])
    decided, bad = decisions(pairs, 1.0)
    assert decided.tolist() == [True, True] and bad.tolist() == [True, False]
    k = choose_margin([pairs])
    assert k == min(m for m in MARGINS if m * 0.2 >= math.log10(2))  # the first margin that takes in 1
    assert not decisions(pairs, k)[1].any() and decisions(pairs, k)[0].tolist() == [False, True]
    # no margin of the grid can save a pair decided the wrong way at 100x: no direction at all
    hopeless = _set([(_agent("e", "P", 10000, 90), _agent("f", "Q", 100, 100), 0.2)])
    assert choose_margin([hopeless]) is None


def test_the_nested_count_charges_a_wrong_way_pair_no_other_paper_predicts():
    """The margin of a pair is chosen without its papers: a pair whose miss only its own paper shows is still
    decided the wrong way there; one whose miss another paper's pair repeats is not."""
    lone = _set([(_agent("a", "P", 200, 90), _agent("b", "Q", 100, 100), 0.2),
                 (_agent("c", "R", 400, 400), _agent("d", "S", 100, 100), 0.2)])
    decided, wrong = nested_wrong_way([lone])
    assert wrong[0].tolist() == [True, False]
    repeated = _set([(_agent("a", "P", 200, 90), _agent("b", "Q", 100, 100), 0.2),
                     (_agent("c", "R", 200, 90), _agent("d", "S", 100, 100), 0.2)])
    assert nested_wrong_way([repeated])[1][0].tolist() == [False, False]


def test_the_reference_decides_with_the_interval_widened_by_the_margin():
    interval, ratio = (1.2, 3.0), math.sqrt(1.2 * 3.0)
    assert reference.ratio_decision(interval) == "higher"
    assert reference.ratio_decision(interval, ratio, 1.0) == "higher"
    assert reference.ratio_decision(interval, ratio, 2.0) == "cannot tell"  # 1.897 / (1.897 / 1.2)^2 < 1
    assert reference.ratio_decision(interval, ratio, None) == "cannot tell"
    assert reference.ratio_decision((0.2, 0.5), math.sqrt(0.1), 1.5) == "lower"
    assert reference.ratio_decision((0.0, 0.5), 0.25, 1.5) == "lower"  # 0.25 x 2^1.5 < 1; 0 stays 0
    assert reference.ratio_decision((0.0, 0.5), 0.25, 3.0) == "cannot tell"  # 0.25 x 2^3 > 1


def test_the_pinned_direction_rows_are_the_rule_on_the_default_calibration():
    version = load_coefficient_set(None)
    calibration = read_calibration(version.path)
    table = read_calibration_intervals(version.path, calibration)
    for subset in ("Atari-5", "Atari-10"):
        agents = pair_agents(calibration, subset)
        never = {r["agent"] for r in calibration.rows if r["subset"] == subset and r["kind"] == NEVER_SELECTED}
        two = two_paper_pair_set(agents)
        margin = pinned_margin(table, "ratio-two-papers", subset, 0.95)
        assert margin == choose_margin([two])
        assert not decisions(two, margin)[1].any()  # in sample: none the wrong way, never-selected pairs included
        assert not decisions(two_paper_pair_set(agents, keep=never), margin)[1].any()
        if margin > 1:  # it is larger than 1 only because the interval itself went the wrong way somewhere
            assert decisions(two, MARGINS[MARGINS.index(margin) - 1])[1].any()
        same = same_setup_pair_set(agents)
        assert pinned_margin(table, "ratio-same-setup", subset, 0.95) == choose_margin([same])
        row = table.rows[("direction-two-papers", subset, "in range", 0.95)]
        nested = nested_wrong_way([two])[1][0]
        assert (row.agents, row.agents - row.agents_covered) == (len(two.pairs), int(np.sum(nested)))
    assert pinned_margin(table, "ratio-two-papers", "Atari-5", 0.9) is None  # no margin pinned at another level
