"""Issue 35, item 4: every parser of a contribution is linear and bounded.

On 1.2.0 the "mean ± std" pattern backtracked cubically: `contribute check` of a 4,935-byte scores.csv took 47 s
and eight 130,000-space cells held the review for 1,145 s. Each input here is timed under a deadline (SIGALRM
interrupts the regular-expression engine), so on that code the test fails after seconds instead of hanging.
"""

from __future__ import annotations

import contextlib
import signal
import time

import pytest
import yaml

from test_contributions import BASE_METADATA, make_submission

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM to bound the run")

FAST = 0.5  # seconds: "well under a second" for any one input


@contextlib.contextmanager
def deadline(seconds: float):
    """Raise TimeoutError in the block after ``seconds`` (the regular-expression engine checks for signals)."""
    def stop(*_):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _parse(text: str, dataset):
    from atari5_spec.contributions.scores_table import parse_scores
    from atari5_spec.data.datapackage import read_json_file

    schema = read_json_file(dataset.root, "schemas/contribution-scores.schema.json", "the scores schema")
    started = time.perf_counter()
    with deadline(10):
        rows, problems = parse_scores(text, "scores.csv", schema, dataset.games, 64)
    return time.perf_counter() - started, rows, problems


# The shapes that made the old "mean ± std" pattern (and the patterns after it) backtrack.
SHAPES = {
    "bracket then spaces": lambda n: "1(\u00b1" + " " * n + "x",
    "spaces inside": lambda n: "1" + " " * n + "2",
    "bracket and spaces": lambda n: "1 (" + " " * n + "x",
    "many signs": lambda n: "1" + "(\u00b1 " * (n // 3) + "x",
    "plus-minus then spaces": lambda n: "1 +/-" + " " * n + ")",
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_5_kb_scores_file_is_checked_in_well_under_a_second(dataset, shape):
    cells = [SHAPES[shape](930) for _ in range(5)]
    text = "game,score\n" + "".join(f"{game},{cell}\n" for game, cell in
                                    zip(("Pong", "Breakout", "Phoenix", "Qbert", "Alien"), cells))
    assert 4_700 < len(text) < 5_200  # characters, as the 4,935-byte file of the issue
    elapsed, rows, problems = _parse(text, dataset)
    assert elapsed < FAST, f"{elapsed:.2f} s"
    assert rows == [] and {p.row for p in problems} == {2, 3, 4, 5, 6}
    assert all(p.column == "score" and "characters" in p.message for p in problems), problems


@pytest.mark.parametrize("column", ["score", "game", "std", "seed", "provenance"])
def test_eight_130_000_space_cells_are_refused_in_well_under_a_second(dataset, column):
    header = ["game", "score", "seed", "std", "provenance"]
    rows = []
    for number in range(8):
        cells = {"game": "Pong", "score": "10", "seed": str(number), "std": "", "provenance": ""}
        cells[column] = (SHAPES["bracket then spaces"] if number % 2 else SHAPES["spaces inside"])(130_000)
        rows.append(",".join(cells[c] for c in header))
    text = ",".join(header) + "\n" + "\n".join(rows) + "\n"
    assert len(text) > 1_040_000
    elapsed, parsed, problems = _parse(text, dataset)
    assert elapsed < 8 * FAST, f"{elapsed:.2f} s"
    assert parsed == [] and len([p for p in problems if p.column == column]) == 8, problems
    # the message quotes the start of the cell, not 130,000 characters of it
    assert max(len(p.message) for p in problems) < 400


def test_the_spread_is_split_as_before():
    from atari5_spec.data.rawvalues import split_spread

    assert split_spread("1705.80 \u00b1 439.74") == ("1705.80", "439.74")
    assert split_spread("1705.80+-439.74") == ("1705.80", "439.74")
    assert split_spread("1705.80 +/- 439.74") == ("1705.80", "439.74")
    assert split_spread("1705.80 (\u00b1 439.74)") == ("1705.80", "439.74")
    assert split_spread("1705.80\u00a0\u00b1\u00a0439.74") == ("1705.80", "439.74")
    assert split_spread("1705.80") is None and split_spread("-12.5") is None


@pytest.mark.parametrize("field,value", [
    ("email", "a@" + "." * 60_000 + " "),
    ("github", "a" + "-a" * 30_000 + "!"),
])
def test_a_long_metadata_value_is_refused_in_well_under_a_second(dataset, field, value):
    from atari5_spec.contributions.metadata import _as_written, metadata_problems, parse_yaml
    from atari5_spec.data.datapackage import read_json_file

    meta = yaml.safe_load(yaml.safe_dump(BASE_METADATA, sort_keys=False))
    meta["contributor"] = {"name": "Mallory", field: value} if field == "email" else \
        {"name": "Mallory", "github": value}
    text = yaml.safe_dump(meta, sort_keys=False, width=10 ** 7)
    schema = read_json_file(dataset.root, "schemas/contribution-metadata.schema.json", "the metadata schema")
    plain, plain_node, _ = parse_yaml(yaml.safe_dump(BASE_METADATA, sort_keys=False), "metadata.yaml")
    metadata_problems(plain, plain_node, schema, "metadata.yaml", 2026)  # imports jsonschema: not timed
    data, node, problems = parse_yaml(text, "metadata.yaml")  # linear (and bounded: metadata.yaml <= 64 KiB)
    assert problems == []
    started = time.perf_counter()
    with deadline(10):
        problems = metadata_problems(_as_written(data, node, schema), node, schema, "metadata.yaml", 2026)
    elapsed = time.perf_counter() - started
    assert elapsed < 2 * FAST, f"{elapsed:.2f} s"
    assert any(p.column and field in p.column for p in problems), problems


def test_contribute_check_of_the_5_kb_file_ends_with_the_problem(package_copy, run):
    scores = "game,score\n" + "".join(f"{g},{SHAPES['bracket then spaces'](930)}\n"
                                      for g in ("Pong", "Breakout", "Phoenix", "Qbert", "Alien"))
    make_submission(package_copy / "contributions", "slow-agent", scores=scores)
    with deadline(60):
        status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "slow-agent"))
    assert status == 1 and "characters" in out, out


def test_a_metadata_file_over_64_kib_is_refused_before_it_is_parsed(package_copy, run):
    text = yaml.safe_dump(BASE_METADATA, sort_keys=False) + "notes: |\n" + "  padding\n" * 8_000
    assert len(text.encode("utf-8")) > 64 << 10
    make_submission(package_copy / "contributions", "big-agent", meta=text)
    with deadline(60):
        status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "big-agent"))
    assert status == 1 and "more than the limit of 65,536 bytes (64 KiB)" in out, out
