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
from atari5_spec.method.claims import conformal_quantile, loso_half_widths
from atari5_spec.method.evaluation.reselection import _take
from atari5_spec.method.pairs import PairAgent, clustered_proportion, paper_draws, two_paper_half_widths, \
    two_paper_pair_halves, two_paper_pairs
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
