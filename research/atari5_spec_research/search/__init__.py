"""Exhaustive subset search of the Atari-5 paper (section 4.3), fast enough to run in seconds.

The paper fits, for every subset of games, OLS without intercept of
y = phi(median) on the games' phi scores, and ranks subsets by 10-fold CV MSE
(see ``atari5_spec.method.fitting`` for the exact definitions). There are 3,819,816
five-game subsets of the 56 searchable games, i.e. 38 million small fits.
This package computes exactly the same numbers, organised so that work is
shared between subsets. Final models are always recomputed with
``fitting.fit_subset_model``; this package only decides which subsets win.

How one CV fold is computed (the "sweep")
-----------------------------------------
Keep, per fold, the train and test cross-product matrices S = Z_tr' Z_tr and
T = Z_te' Z_te of the columns Z = [x_1, ..., x_p, y]. Regressing every
column on x_1 over the train rows (coefficient a_j = S_1j / S_11) and
replacing x_j by x_j - a_j x_1 is a rank-one update of S and T
(``_sweep_first``). After sweeping in every game of a subset, y has become
y - X beta_train on every row, so the test entry T[y, y] IS that fold's
held-out sum of squared errors (Frisch-Waugh-Lovell). The order in which
games are swept does not matter.

How the work is shared
----------------------
Subsets are visited as a prefix tree, in a fixed column order: all subsets
starting with games (g1, g2) share the state after sweeping g1 and g2
(stored, ``_extend``, in a few large preallocated "buckets" per tree level,
so that the next level reads its batches of nodes as views). The last three
games of every subset are finished together in one vectorised step per
(node, g3) (``_pair_mse``): the sweep of g3 is folded into it row by row,
and the last two games are solved in closed form. So each five-game subset
costs a few dozen arithmetic operations per fold instead of a fresh 5x5
solve. Work is split over up to two threads by newest game; numpy releases
the GIL in its loops.

Small searches (``_DIRECT_UP_TO``, e.g. the 20,825 subsets of the
Atari-3-Val stage) skip the tree: every subset is fitted from its row set's
tables in one batched pass (``_direct_mse``), which costs more per subset
but has no per-node Python overhead.

Missing scores
--------------
A subset is fitted on the rows where all its games (and the "always" games)
have a score, and the KFold assignment is made over exactly those rows. Each
tree node therefore carries the row set of its prefix (``_RowSets`` builds
the fold tables once per distinct row set). Games are visited least-complete
first, so the row set is usually fixed early in the prefix. A node whose
newest game lacks rows of its parent's row set (3% of the Atari-5 nodes)
gets its state rebuilt from its own row set's tables, as a low-rank update
of them (``_fresh_states``). Of the pairs that would change the row set
(2% of the Atari-5 subsets), those whose first game does it are finished
together per node (``_single_mse``), the few others fitted one by one
(``_direct_mse``), by the task that met them.

Scale
-----
A search is cut into tasks by prefix of the tree (``tasks``); each task
keeps only its best subsets (``topn``), merged into one ranking, so memory
does not grow with the number of subsets. Tasks run in this process, on
local processes or on a Dask cluster (``engine``), with the same results.

A lower bound
-------------
With one "fold" that trains and tests on every row, the same tree gives
each subset's in-sample residual sum of squares, and RSS / (K ceil(n / K))
never exceeds its K-fold CV MSE (``rowsets._BoundRowSets``; T would be S,
so the states carry S alone and the pair step is ``_pair_rss``, half the
arithmetic). Measuring the same residuals with a metric that counts, fold
by fold, the leverage of the games every subset keeps gives a tighter
bound (``_LeverageBoundRowSets``, the proof in its docstring). The bounded
search (``bounded_best``) cross-validates only the subsets the bound
cannot rule out and chooses among them by the same rule: the same choice,
at a third of the cost for the Atari-5 stage and under half for Atari-10.
The fold searches of the reselected calibration use it
(``staged_search(..., bounded=True)``).

Modules
-------
kernels (sweeps, pair step, direct solve), rowsets (row sets and their fold
tables), tree (stored levels, batches), exhaustive (one in-memory search:
``evaluate_all_subsets``), topn (bounded rankings), tasks (prefix tasks),
engine (where tasks run), selection (``best_subset``, ``search_best``),
staged (``staged_search``), stability (bootstrap over algorithms).
"""

from atari5_spec_research.search.exhaustive import SubsetScores, evaluate_all_subsets
from atari5_spec_research.search.selection import COEFFICIENT_ATOL, TIE_RTOL, SearchResult, best_subset, bounded_best, evaluate_subsets, search_best, searchable_games, top_subsets
from atari5_spec_research.search.stability import StabilityReport, selection_stability
from atari5_spec_research.search.staged import STAGES, staged_choice, staged_search
from atari5_spec_research.search.topn import TopSubsets

__all__ = ["SubsetScores", "evaluate_subsets", "evaluate_all_subsets", "best_subset", "bounded_best", "staged_search",
           "staged_choice", "searchable_games", "STAGES", "TopSubsets", "top_subsets", "SearchResult", "search_best",
           "StabilityReport", "selection_stability"]
