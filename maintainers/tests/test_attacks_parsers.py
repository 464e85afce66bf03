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
from test_review_workflow import github  # noqa: F401 (a fixture)

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
    from atari5_spec_maintainers.contributions.scores_table import parse_scores
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
    from atari5_spec_maintainers.contributions.metadata import _as_written, metadata_problems, parse_yaml
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


# --- the review step's own time limit: the comment always says what happened to this head -------------------------

def test_the_review_step_has_its_own_time_limit_and_the_post_step_always_runs():
    from test_review_workflow import WORKFLOW

    job = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["review"]
    steps = {s.get("id"): s for s in job["steps"] if s.get("id")}
    assert steps["review"]["timeout-minutes"] <= job["timeout-minutes"] - 5
    assert steps["post"]["if"] == "always()"
    assert "steps.review.outcome" in steps["post"]["env"]["REVIEW_OUTCOME"]
    first = job["steps"][0]
    assert "github-script" in first["uses"] and "Review running for the head" in first["with"]["script"]


@pytest.mark.skipif(__import__("shutil").which("node") is None or __import__("shutil").which("git") is None,
                    reason="needs git and node (the workflow's steps)")
def test_a_review_that_runs_out_of_time_is_posted_as_such_for_its_head(github):
    from test_review_workflow import _add_submission, _push_pull_request, run_workflow

    _add_submission(github / "author", "new-agent")
    head = _push_pull_request(github)
    result = run_workflow(github, head, timed_out="Review")
    running, posted = result["comments"]
    assert f"Review running for the head `{head[:12]}`" in running
    assert "Verdict: needs a maintainer.** The review of the head " f"`{head[:12]}` did not finish" in posted
    assert "review step: failure; its time limit is 12 minutes" in posted
    assert "ready to merge" not in posted
    assert result["statuses"][-1][:2] == ('Fail unless the verdict is "ready to merge"', 1)


def test_a_run_overtaken_by_a_newer_push_posts_no_verdict(tmp_path):
    from test_review_workflow import PR_NUMBER, WORKFLOW, _run_github_script

    job = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["review"]
    script = next(s for s in job["steps"] if s.get("id") == "post")["with"]["script"]
    env = {**__import__("os").environ, "RUNNER_TEMP": str(tmp_path), "PR_NUMBER": str(PR_NUMBER),
           "HEAD_SHA": "ab" * 20, "CURRENT_HEAD": "cd" * 20, "REVIEW_OUTCOME": "cancelled"}
    assert _run_github_script(script, env, tmp_path) == []
