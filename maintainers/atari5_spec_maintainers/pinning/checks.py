"""The checks ``atari5-spec verify`` runs when the maintainers' tools are installed: every pinned calibration recomputed.

Registered as the ``atari5_spec_verify`` entry point ``pinning`` (maintainers/pyproject.toml);
:func:`atari5_spec.verify` calls :func:`start` with its context. For every pinned coefficient version, every
edition of every calibration method (calibration/<version>[.<method>][.<edition>].csv: the out-of-sample errors
behind score's prediction interval) is recomputed from the data for the agents it lists (a reselected calibration
from the games its rows record; unless the searches are skipped, each fold's staged search is rerun and must choose
them); its interval table (calibration/intervals/<name>.csv, the half-widths ``score`` applies) equals the one
recomputed from its pinned errors (numbers to their last digits, relative 1e-12); and, unless skipped, the staged
subset search on the paper's training set selects the paper's games for every subset.

The fold searches (most of the time) and the interval tables run on verify's workers, started before the standard's
own checks, and are waited for last.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from atari5_spec.method import coefficients as coef
from atari5_spec.method.verification import PINNED_TOLERANCE, Check

__all__ = ["start", "check_calibration", "check_interval_table", "check_search"]


def start(context):
    """Start the slow work on ``context.workers`` (:class:`atari5_spec.method.verification.Context`); return the
    function that gives every check, in the report's order."""
    # the code the workers run (fold searches, interval tables), imported before they start so that forked ones
    # inherit it
    from atari5_spec.method import interval_table  # noqa: F401
    from atari5_spec_maintainers.pinning import calibrations  # noqa: F401
    from atari5_spec_research.evaluation import reselection  # noqa: F401
    from atari5_spec_research.search import shared_bounds  # noqa: F401

    dataset, workers = context.dataset, context.workers
    if dataset is None:
        return list
    waiter = ThreadPoolExecutor(max_workers=1)
    searched = fold_searches(dataset, waiter, workers) if context.search else {}
    tables = interval_table_checks(context.root, workers) if not searched else {}

    def finish() -> list[Check]:
        try:
            return _checks(context.root, dataset, context.search, searched, context.progress, tables)
        finally:
            # not waited on: each of its futures was waited for (bounded) above, and after a hung worker the thread
            # still waits on it until verify closes the pool
            waiter.shutdown(wait=False, cancel_futures=True)

    return finish


def check_calibration(dataset, name: str, search: bool = False, searched: dict | None = None, agents=None,
                      reads=None) -> Check:
    """The pinned out-of-sample errors (score's prediction interval) recomputed from the data for the same agents
    (``search``: a reselected calibration's fold searches rerun too; ``searched`` keeps them between versions;
    ``agents``: the data's agents, ``evaluation.agent_scores(dataset)``, computed once for every calibration;
    ``reads``: a :class:`~.pinned_reads.PinnedReads`, each version's tables read once for every calibration)."""
    from atari5_spec_maintainers.pinning.calibrations import calibration_mismatches

    compared, mismatches = calibration_mismatches(dataset, name, PINNED_TOLERANCE, search, searched, agents, reads)
    return Check(f"{name}: calibration (out-of-sample errors)", compared, mismatches)


def with_fold_searches(check: Check, dataset, name: str, searched: dict, recorded: dict) -> Check:
    """``check`` (a fold calibration's, made without its searches) with the searches' mismatches first, as
    :func:`check_calibration` with ``search`` lists them: the games the calibration ``name`` records (``recorded``,
    :func:`~.evaluation.pinning.recorded_selections`) against the searches' (waited for when ``searched`` holds
    futures)."""
    from atari5_spec.method.calibration import split_name
    from atari5_spec_maintainers.pinning.calibrations import searched_selections, selection_mismatches

    chosen = searched_selections(dataset, split_name(name)[0], searched)
    return check._replace(mismatches=selection_mismatches(name, recorded, chosen) + check.mismatches)


def interval_table_checks(root: Path, executor) -> dict:
    """calibration name -> future of its :func:`check_interval_table`, for every pinned calibration of every version,
    started on ``executor`` (a worker process: each table is a pure function of its pinned errors file, so they are
    recomputed there while this process recomputes the calibrations)."""
    from atari5_spec_maintainers.pinning.calibrations import pinned_calibration_names

    names = [c for v in coef.read_index(root / "coefficients")["versions"] for c in pinned_calibration_names(root, v)]
    return {name: executor.submit(check_interval_table, root, name) for name in names}


def check_interval_table(root: Path, name: str) -> Check:
    """calibration/intervals/<name>.csv equals the table recomputed from the pinned errors (numbers within 1e-12)."""
    from atari5_spec_maintainers.pinning.calibrations import interval_table_mismatches

    compared, mismatches = interval_table_mismatches(root, name)
    return Check(f"{name}: interval table (pinned half-widths)", compared, mismatches)


def check_search(name: str, content: dict, X, y, progress=None) -> Check:
    """Rerun the staged search on the version's training matrix (``X``, ``y``); it must select the version's
    subsets."""
    from atari5_spec_research.search import staged_choice

    # bounded: the exhaustive search's choices (tests/test_search_bound.py) at a third of its cost
    found = staged_choice(X, y, excluded=tuple(content["method"]["search"]["excluded_games"]), progress=progress,
                          bounded=True)
    mismatches = []
    for subset, games in found.items():
        expected = content["subsets"].get(subset)
        if expected is not None and list(games) != list(expected):
            mismatches.append(f"{name}: search selects {subset} = {' '.join(games)}, pinned {' '.join(expected)}")
    return Check(f"{name}: staged search selects the pinned subsets", len(found), mismatches)


def fold_searches(dataset, waiter, workers) -> dict:
    """search version -> future of its fold selections (``reselection.fold_selections``), one per search set that a
    pinned reselected or formula calibration needs, started on ``waiter`` (a thread that waits for them) and run on
    ``workers`` (a process pool)."""
    from atari5_spec_maintainers.pinning.calibrations import FOLD_METHODS, pinned_calibration_names
    from atari5_spec_research.evaluation.reselection import fold_selections, search_version
    from atari5_spec.method.calibration import split_name

    keys = []
    for name in coef.read_index(dataset.root / "coefficients")["versions"]:
        if any(split_name(c)[1] in FOLD_METHODS for c in pinned_calibration_names(dataset.root, name)):
            keys.append(search_version(dataset, name))
    return {key: waiter.submit(fold_selections, dataset, key, executor=workers) for key in dict.fromkeys(keys)}


def _checks(root: Path, dataset, search: bool, searched: dict, progress, tables: dict) -> list[Check]:
    """Every check, in the report's order (``searched``: the fold searches, started; ``tables``: the
    interval-table checks started on a worker, :func:`interval_table_checks`; any other is run here)."""
    from atari5_spec.method.calibration import pinned_calibration_names, split_name
    from atari5_spec.data.limits import WORKER_ANSWER_SECONDS
    from atari5_spec.data.processes import wait_for
    from atari5_spec.method.pinned_reads import PinnedReads
    from atari5_spec_maintainers.pinning.calibrations import FOLD_METHODS, recorded_selections
    from atari5_spec_research.evaluation.agents import agent_scores

    checks, searched_last = [], {}  # searched_last: report position -> a fold calibration, its searches compared last
    agents = agent_scores(dataset)  # every calibration's agents, from the data loaded once
    reads = PinnedReads(dataset)  # every version's tables and training matrix, read once
    for name in coef.read_index(root / "coefficients")["versions"]:
        for calibration in pinned_calibration_names(root, name):  # every method, every edition
            if search and split_name(calibration)[1] in FOLD_METHODS:
                searched_last[len(checks)] = calibration
            checks.append(check_calibration(dataset, calibration, search=False, agents=agents, reads=reads))
            checks.append(wait_for(tables[calibration], WORKER_ANSWER_SECONDS, f"{calibration}'s interval table")
                          if calibration in tables else check_interval_table(root, calibration))
        content, X, y = reads.training_matrix(name)
        if search and content.get("reproduces") == "paper":
            checks.append(check_search(name, content, X, y, progress))
    # the fold searches ran while everything else did: their choices are compared last, with the games each
    # calibration records read from its file again (small files) before waiting for them
    recorded = {position: recorded_selections(dataset, name) for position, name in searched_last.items()}
    for position, calibration in searched_last.items():
        checks[position] = with_fold_searches(checks[position], dataset, calibration, searched, recorded[position])
    return checks
