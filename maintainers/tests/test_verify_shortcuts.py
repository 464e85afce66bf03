"""verify's shortcuts (issue 33 item 5) give exactly what the plain definitions give, to the last bit.

The interval tables and calibrations are recomputed by ``verify`` from sorted arrays, index arrays, integer
products and tables read once; each shortcut is compared here, on random inputs with ties and small groups, with
the straightforward computation it replaces (equality, not closeness).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest

from atari5_spec.method import training
from atari5_spec.method.claims import conformal_quantile, loso_half_widths, pool_quantiles
from atari5_spec.method.decision_margin import MARGINS, decisions, index_pair_set, nested_wrong_way
from atari5_spec_research.evaluation.reselection import _take
from atari5_spec.method.pairs import PairAgent, clustered_interval, clustered_proportion, pair_clusters, paper_draws, \
    same_paper_pair_halves, same_setup_model, two_paper_half_widths, two_paper_pair_halves, two_paper_pairs
from atari5_spec.method.pinned_reads import PinnedReads


def _group(estimate: float) -> str:
    return "in range" if estimate >= 40 else "extrapolation"


def _rows(seed: int, n: int, papers: int) -> list[dict]:
    rng = random.Random(seed)
    return [{"log_error": str(round(rng.gauss(0, 0.3), rng.choice([2, 6]))), "paper": f"p{rng.randrange(papers)}",
             "estimate": str(rng.choice([10.0, 39.9, 40.0, 250.0]))} for _ in range(n)]


def _loso_plain(rows, level, skip_paper=None) -> list[float]:
    """The definition: per row, the quantile of the other papers' |errors| (not skip_paper), of its range if in
    range."""
    out = []
    for r in rows:
        in_range = _group(float(r["estimate"])) == "in range"
        pool = [float(x["log_error"]) for x in rows if x["paper"] != r["paper"] and x["paper"] != skip_paper
                and (not in_range or _group(float(x["estimate"])) == "in range")]
        out.append(conformal_quantile(pool, level))
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", [0.8, 0.95])
def test_loso_half_widths_equal_the_quantile_of_each_pool(seed, level):
    rows = _rows(seed, 5 + 13 * seed, 1 + seed)
    skip = rows[0]["paper"] if seed % 2 else None
    assert loso_half_widths(rows, _group, level, skip) == _loso_plain(rows, level, skip)


def _agents(seed: int, n: int, papers: int) -> list[PairAgent]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        estimate, true = rng.uniform(40, 900), rng.uniform(20, 1200)
        out.append(PairAgent(f"a{i}", f"r{i // 2}", f"p{rng.randrange(papers)}", estimate, true,
                             math.log10((1 + true) / (1 + estimate)), math.log10(true / estimate)))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_two_paper_pairs_are_every_pair_of_two_papers_in_order(seed):
    agents = _agents(seed, 3 + 11 * seed, 1 + 2 * seed)
    halves = two_paper_half_widths(agents, 0.95)
    keep = {a.agent for a in agents[::2]}
    for kept in (None, keep):
        plain = [(a, b, math.hypot(halves[a.paper], halves[b.paper])) for i, a in enumerate(agents)
                 for b in agents[i + 1:] if a.paper != b.paper and (kept is None or (a.agent in kept and b.agent in kept))]
        assert two_paper_pair_halves(agents, 0.95, kept) == plain
    assert two_paper_pairs(agents, 0.95) == [(a, b, abs(a.plain_error - b.plain_error) <= h)
                                              for a, b, h in two_paper_pair_halves(agents, 0.95)]


@pytest.mark.parametrize("seed", range(5))
def test_clustered_proportion_weights_are_the_bootstrap_sums(seed):
    """Pairs from two papers: the clustered interval from integer weights equals the one from einsum's sums."""
    rng = np.random.default_rng(seed)
    n_papers = 3 + 9 * seed
    first, second = rng.integers(0, n_papers, 60 + 40 * seed), rng.integers(0, n_papers, 60 + 40 * seed)
    covered = rng.random(len(first)) < 0.8
    low, high, effective = clustered_proportion(covered, first, second, n_papers)
    counts = paper_draws(n_papers)
    total, hits = np.zeros((n_papers, n_papers)), np.zeros((n_papers, n_papers))
    np.add.at(total, (first, second), 1.0)
    np.add.at(hits, (first, second), covered.astype(float))
    weight_total = np.einsum("bi,ij,bj->b", counts, total, counts)
    weight_hits = np.einsum("bi,ij,bj->b", counts, hits, counts)
    ok = weight_total > 0
    p = float(covered.mean())
    variance = float(np.var(weight_hits[ok] / weight_total[ok], ddof=1))
    used = len({*first.tolist(), *second.tolist()})
    assert effective == min(max(p * (1 - p) / variance, float(used)), float(len(covered)))
    assert 0.0 <= low <= p <= high <= 1.0


@pytest.mark.parametrize("seed", range(5))
def test_pool_quantiles_are_the_quantile_of_each_pool(seed):
    rng = np.random.default_rng(seed)
    errors = np.sort(np.round(np.abs(rng.normal(0, 0.3, 4 * seed)), 2))  # ties; none at all for seed 0
    pools = rng.random((7, len(errors))) < 0.6
    for level in (0.8, 0.95):
        expected = [conformal_quantile(errors[pool].tolist(), level) for pool in pools]
        assert pool_quantiles(errors, pools, level).tolist() == expected


@pytest.mark.parametrize("seed", range(4))
def test_same_paper_pairs_are_every_pair_of_one_paper_in_paper_order(seed):
    agents = _agents(seed, 3 + 11 * seed, 1 + 2 * seed)
    plain = []
    for paper in sorted({a.paper for a in agents}):
        members = [a for a in agents if a.paper == paper]
        model = same_setup_model(agents, 0.95, exclude_paper=paper)
        plain += [(a, b, model.half_width if model else math.inf) for i, a in enumerate(members)
                  for b in members[i + 1:]]
    assert same_paper_pair_halves(agents, 0.95) == plain


def _interval_plain(covered, first, second, n_papers, one_paper):
    """The clustered interval's effective n from the bootstrap sums of pair counts per pair of papers."""
    counts = paper_draws(n_papers)
    total, hits = np.zeros((n_papers, n_papers)), np.zeros((n_papers, n_papers))
    np.add.at(total, (first, second), 1.0)
    np.add.at(hits, (first, second), covered.astype(float))
    if one_paper:
        weight_total, weight_hits = counts @ np.diag(total), counts @ np.diag(hits)
    else:
        weight_total = np.einsum("bi,ij,bj->b", counts, total, counts)
        weight_hits = np.einsum("bi,ij,bj->b", counts, hits, counts)
    ok = weight_total > 0
    p = float(covered.mean())
    used = len({*first.tolist(), *second.tolist()})
    if not 0.0 < p < 1.0 or ok.sum() <= 1:
        return float(used)
    variance = float(np.var(weight_hits[ok] / weight_total[ok], ddof=1))
    effective = p * (1 - p) / variance if variance > 0 else float(len(covered))
    return min(max(effective, float(used)), float(len(covered)))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("one_paper", [False, True])
def test_clustered_intervals_on_one_set_of_pairs_are_each_masks_own(seed, one_paper):
    """Several coverage masks on one PairClusters (the total weight shared, the uncovered pairs' subtracted) give
    what each mask's own bootstrap sums give."""
    rng = np.random.default_rng(seed)
    n_papers = 3 + 9 * seed
    first = rng.integers(0, n_papers, 60 + 40 * seed)
    second = first if one_paper else rng.integers(0, n_papers, len(first))
    clusters = pair_clusters(first, second, n_papers)
    for rate in (0.0, 0.7, 0.97, 1.0):
        covered = rng.random(len(first)) >= rate
        _, _, effective = clustered_interval(covered, clusters)
        assert effective == _interval_plain(covered, first, second, n_papers, one_paper)
        assert clustered_interval(covered, clusters) == clustered_proportion(covered, first, second, n_papers)


def _nested_plain(sets, margins=MARGINS):
    """The nested rule as defined: per pair, the smallest margin with no wrong-way decision among the pairs (of
    every set) that share none of its papers."""
    pairs = [(p.first.paper, p.second.paper, s, i) for s in sets for i, p in enumerate(s.pairs)]
    wrong = {k: [(a, b) for a, b, s, i in pairs if decisions(s, k)[1][i]] for k in margins}
    out = []
    for s in sets:
        folds = [(p.first.paper, p.second.paper) for p in s.pairs]
        k = [next((m for m in margins if all(a in fold or b in fold for a, b in wrong[m])), math.inf) for fold in folds]
        decided = np.abs(s.estimated) > np.array(k, float) * s.half
        out.append((decided, decided & (np.sign(s.estimated) != np.sign(s.true))))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_nested_wrong_way_is_the_rule_on_each_fold(seed):
    rng = np.random.default_rng(seed)
    agents = _agents(seed, 6 + 9 * seed, 2 + 2 * seed)
    sets = []
    for _ in range(2):
        first = rng.integers(0, len(agents), 30 + 10 * seed)
        second = rng.integers(0, len(agents), len(first))
        use = np.array([agents[i].paper != agents[j].paper for i, j in zip(first, second)], bool)
        sets.append(index_pair_set("made up", agents, first[use], second[use], rng.uniform(0.02, 0.4, use.sum())))
    decided, wrong = nested_wrong_way(sets)
    for (d, w), (plain_d, plain_w) in zip(zip(decided, wrong), _nested_plain(sets)):
        assert d.tolist() == plain_d.tolist() and w.tolist() == plain_w.tolist()


@pytest.mark.parametrize("order", ["C", "F"])
def test_take_gives_iloc_values_in_iloc_layout(order):
    values = np.asarray(np.random.default_rng(1).normal(size=(40, 9)), order=order)
    frame = pd.DataFrame(values) if order == "C" else pd.DataFrame(values.T.copy()).T
    rows, columns = np.array([3, 1, 30, 7]), [8, 0, 4]
    expected = frame.iloc[rows, columns].to_numpy(float)
    taken = _take(frame.to_numpy(float), rows, columns)
    assert np.array_equal(taken, expected)
    assert (taken.flags.c_contiguous, taken.flags.f_contiguous) == (expected.flags.c_contiguous,
                                                                    expected.flags.f_contiguous)
    weights = np.random.default_rng(2).normal(size=3)
    assert np.array_equal(taken @ weights, expected @ weights)


def test_pinned_reads_reads_each_version_once(dataset, monkeypatch):
    from atari5_spec.method import coefficients as coef

    calls = []
    read = coef.read_version_tables
    monkeypatch.setattr(coef, "read_version_tables", lambda *a: calls.append(a[1]) or read(*a))
    reads = PinnedReads(dataset)
    manifest, X, y = reads.training_matrix("paper-2023")
    again = reads.training_matrix("paper-2023")
    assert reads.version_tables("paper-2023")[0] is manifest and again[1] is X and again[2] is y
    assert calls == ["paper-2023"]
    rows = read(dataset.root / "coefficients", "paper-2023")[1]["training_rows"]
    plain_X, plain_y = training.training_matrix(rows, dataset.games, dataset.algorithms)
    pd.testing.assert_frame_equal(X, plain_X)
    pd.testing.assert_series_equal(y, plain_y)


def _row_mismatches_plain(name: str, merged: pd.DataFrame, tolerance: float, texts: tuple) -> list[str]:
    """The definition: every row turned into a dict and compared value by value in Python."""
    from atari5_spec_maintainers.pinning.calibrations import CHECKED_COLUMNS

    problems = []
    for row in merged.to_dict("records"):
        where = f"{name} {row['subset']} {row['agent']}"
        if row["_merge"] != "both":
            problems.append(f"{where}: pinned, but no longer computable from the data")
            continue
        for column in (*CHECKED_COLUMNS, *texts):
            a, b = row[column], row[f"{column}_computed"]
            if (a != b) if column in texts else not abs(float(a) - float(b)) <= tolerance:
                problems.append(f"{where} {column}: pinned {a!r}, computed {b!r}")
    return problems


@pytest.mark.parametrize("seed", range(6))
def test_row_mismatches_are_the_row_by_row_comparisons_lines(seed):
    # calibration_mismatches compares column by column and turns only the differing rows into lines
    from atari5_spec_maintainers.pinning.calibrations import CHECKED_COLUMNS, _row_mismatches

    rng = np.random.default_rng(seed)
    n, tolerance = 400, 1e-9
    frame = {"subset": rng.choice(["Atari-5", "Atari-10"], n), "agent": [f"agent-{i}" for i in range(n)],
             "_merge": rng.choice(["both", "both", "both", "left_only"], n)}
    for column in CHECKED_COLUMNS:
        pinned = rng.normal(0, 1, n)
        step = rng.choice([0.0, 0.0, 0.0, 0.5e-9, 1e-9, 2e-9, np.nan, np.inf], n)
        frame[column], frame[f"{column}_computed"] = pinned, pinned + step
    for column in ("range", "games"):
        pinned = rng.choice(["in range", "extrapolation", "a b c"], n).astype(object)
        computed = np.where(rng.random(n) < 0.1, rng.choice(["in range", "x"], n), pinned).astype(object)
        computed[rng.random(n) < 0.03] = np.nan
        frame[column], frame[f"{column}_computed"] = pinned, computed
    merged = pd.DataFrame(frame)
    for texts in [(), ("range",), ("range", "games")]:
        plain = _row_mismatches_plain("cal", merged, tolerance, texts)
        assert plain and len(plain) < 4 * n
        assert _row_mismatches("cal", merged, tolerance, texts) == plain
