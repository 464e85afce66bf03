"""Each data rule fails on a package that breaks it, naming file, line and column."""

import pytest

from atari5_spec.data.datapackage import refresh_resource_stats
from atari5_spec.data.validation import validate_package


def edit_cell(root, relative, line, column, value):
    """Set one cell (line as an editor numbers it) and re-record hashes, as a careless edit would."""
    path = root / relative
    lines = path.read_text(encoding="utf-8").split("\n")
    header = lines[0].split(",")
    import csv
    import io

    row = next(csv.reader([lines[line - 1]]))
    row[header.index(column)] = value
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(row)
    lines[line - 1] = buffer.getvalue()
    path.write_text("\n".join(lines), encoding="utf-8")
    refresh_resource_stats(root)


def line_of(root, relative, prefix):
    for number, text in enumerate((root / relative).read_text(encoding="utf-8").split("\n"), start=1):
        if text.startswith(prefix):
            return number
    raise AssertionError(prefix)


def problems_at(root, relative, line=None, column=None):
    return [p for p in validate_package(root)
            if p.file == relative and (line is None or p.row == line) and (column is None or p.column == column)]


@pytest.mark.slow
@pytest.mark.parametrize("value", ["inf", "NaN", "-INF"])
def test_non_finite_score(package_copy, value):
    edit_cell(package_copy, "data/scores.csv", 2, "score", value)
    found = problems_at(package_copy, "data/scores.csv", 2, "score")
    assert any("finite" in p.message for p in found)


@pytest.mark.slow
def test_human_not_above_random(package_copy):
    line = line_of(package_copy, "data/games.csv", "pong,")
    edit_cell(package_copy, "data/games.csv", line, "human_score", "-25")
    found = problems_at(package_copy, "data/games.csv", line, "human_score")
    assert found and "above random" in found[0].message and found[0].fix


@pytest.mark.slow
def test_unknown_algorithm_id_in_scores(package_copy):
    edit_cell(package_copy, "data/scores.csv", 3, "algorithm_id", "no-such-agent")
    assert problems_at(package_copy, "data/scores.csv", 3, "algorithm_id")


@pytest.mark.slow
def test_unknown_game_id_in_scores(package_copy):
    edit_cell(package_copy, "data/scores.csv", 3, "game_id", "pacman")
    assert problems_at(package_copy, "data/scores.csv", 3, "game_id")


@pytest.mark.slow
def test_disagreeing_numbers_for_a_pair_used_by_fits(package_copy):
    # Prior+Duel hs: Papers with Code lists Alien twice (two papers); both rows are used.
    text = (package_copy / "data/scores.csv").read_text(encoding="utf-8").split("\n")
    lines = [i for i, t in enumerate(text, start=1) if ",prior-duel-hs,alien," in t and ",pwc-2022," in t]
    assert len(lines) == 2
    edit_cell(package_copy, "data/scores.csv", lines[1], "score", "900")
    found = problems_at(package_copy, "data/scores.csv", column="use_in_fit")
    assert {p.row for p in found} == set(lines)


@pytest.mark.slow
def test_supersedes_must_point_at_an_earlier_row_of_the_same_pair(package_copy):
    edit_cell(package_copy, "data/scores.csv", 2, "supersedes", "5000")
    assert problems_at(package_copy, "data/scores.csv", 2, "supersedes")


@pytest.mark.slow
def test_schema_constraint_is_reported_with_line_and_column(package_copy):
    line = line_of(package_copy, "data/algorithms.csv", "agent57,")
    edit_cell(package_copy, "data/algorithms.csv", line, "start_condition", "random-starts")
    found = problems_at(package_copy, "data/algorithms.csv", line, "start_condition")
    assert found and found[0].fix


@pytest.mark.slow
def test_year_in_the_future(package_copy):
    line = line_of(package_copy, "data/algorithms.csv", "agent57,")
    edit_cell(package_copy, "data/algorithms.csv", line, "year", "2099")
    assert problems_at(package_copy, "data/algorithms.csv", line, "year")


@pytest.mark.slow
def test_shipped_package_has_no_problems():
    assert validate_package() == []


@pytest.mark.parametrize("relative, column, value", [
    ("data/scores.csv", "score", "6636"),            # raw_value says 6635
    ("data/scores.csv", "raw_value", "6.6k"),        # 6600, not 6635
])
@pytest.mark.slow
def test_score_must_be_what_raw_value_says(package_copy, relative, column, value):
    edit_cell(package_copy, relative, 2, column, value)
    found = problems_at(package_copy, relative, 2, "raw_value")
    assert found and "raw_value" in found[0].message


def test_raw_value_forms():
    from atari5_spec.data.rawvalues import raw_value_number

    assert raw_value_number("189.1k") == (189100.0, None)
    assert raw_value_number("1705.80 ± 439.74") == (1705.8, 439.74)
    assert raw_value_number("-12.5") == (-12.5, None)
    assert raw_value_number("１２") is None  # full-width digits are not a published number here
    assert raw_value_number("12,300") is None


@pytest.mark.slow
def test_a_budget_row_whose_score_differs_from_its_raw_value_is_reported(package_copy):
    line = line_of(package_copy, "data/budget_scores.csv", "dreamerv3,alien,10000000,0,")
    edit_cell(package_copy, "data/budget_scores.csv", line, "score", "1")
    assert problems_at(package_copy, "data/budget_scores.csv", line, "raw_value")


def test_background_work_is_forked_only_from_a_single_threaded_process(package_copy):
    import os
    import subprocess
    import sys
    import threading

    from atari5_spec.data.validation import frictionless_problems, in_background

    (package_copy / "data" / "games.csv").write_bytes(
        (package_copy / "data" / "games.csv").read_bytes().replace(b"\n", b"\nnot,a,game,row\n", 1))
    expected = frictionless_problems(package_copy)
    assert expected  # the edit is found
    # one Python thread: forked, Frictionless runs on the other core. A fresh interpreter, because earlier tests
    # in this worker may leave threads running (a Dask cluster's, a server's)
    single_threaded = ("import os; from atari5_spec.data.validation import in_background; "
                       "print(in_background(os.getpid)() != os.getpid())")
    assert subprocess.run([sys.executable, "-c", single_threaded], capture_output=True, text=True,
                          check=True).stdout.strip() == "True"
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        # a fork would copy the locks the waiting thread may hold: the work runs in this process instead
        assert in_background(os.getpid)() == os.getpid()
        assert in_background(frictionless_problems, package_copy)() == expected
    finally:
        release.set()
        other.join()


def test_worker_pools_fork_only_from_a_single_threaded_process():
    """verify's workers: forked at once while one thread runs (they inherit the imports), else spawned."""
    import subprocess
    import sys
    import threading

    from atari5_spec.data.processes import forked_pool, worker_pool

    # a fresh interpreter with one thread: every worker is forked before the pool's thread starts, and a module
    # imported before the fork is there in the workers without being imported again
    single_threaded = ("import json; from atari5_spec.data.processes import worker_pool\n"
                       "import atari5_spec_research.search.kernels\n"
                       "pool = worker_pool(2)\n"
                       "method = pool._mp_context.get_start_method()\n"
                       "pids = {p.pid for p in pool._processes.values()}\n"
                       "inherited = pool.submit(eval, \"'atari5_spec_research.search.kernels' in __import__('sys').modules\").result()\n"
                       "print(json.dumps([method, len(pids), inherited]))\n"
                       "pool.shutdown()")
    out = subprocess.run([sys.executable, "-c", single_threaded], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == '["fork", 2, true]'
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        # a fork would copy the locks the waiting thread may hold: spawned (or, for in_background, inline)
        assert forked_pool(1) is None
        with worker_pool(1) as pool:
            assert pool._mp_context.get_start_method() == "spawn"
            assert pool.submit(abs, -3).result() == 3
    finally:
        release.set()
        other.join()
