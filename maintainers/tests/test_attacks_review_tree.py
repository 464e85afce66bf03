"""Issue 35, item 2: the privileged review never writes a pull request's files to disk.

On 1.2.0 the review copied each new submission folder out of git into a scratch folder, writing
``into / folder / relative`` for whatever ``git ls-tree -r`` printed. A tree built with ``git mktree`` can hold
an entry named ``..``: its blob landed outside the scratch folder (overwriting a lazily imported module ran code in
the privileged job), and the verdict was "ready to merge". Now the review reads the two expected blobs from git
into memory and refuses every other tree shape. The first test pushes such a tree to a local bare origin and runs
the workflow's own steps, as tests/test_review_workflow.py does; the others build each shape and read it.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest
from git_helpers import git_in

from test_review_workflow import PR_NUMBER, _add_submission, github, run_workflow  # noqa: F401 (github: fixture)

LEVELS = 4  # scratch/contributions/<id>/.. x4 climbs out of $TMPDIR into the test's folder


def _mktree(repo: Path, entries: list[tuple[str, str, str, str]]) -> str:
    """A tree object holding exactly ``entries`` (mode, type, object, name), as git mktree writes it unchecked."""
    return git_in(repo, "mktree", "-z", stdin="".join(f"{m} {k} {o}\t{n}\0" for m, k, o, n in entries))


def _entries(repo: Path, tree: str) -> list[tuple[str, str, str, str]]:
    out = git_in(repo, "ls-tree", "-z", tree)
    rows = []
    for record in filter(None, out.split("\0")):
        meta, name = record.split("\t", 1)
        rows.append((*meta.split(" "), name))
    return rows


def _with_entries(repo: Path, folder: str, extra: list[tuple[str, str, str, str]], drop: tuple[str, ...] = ()) -> str:
    """A commit on HEAD whose ``folder`` (contributions/<id>) also holds ``extra`` (and lacks ``drop``)."""
    parts = folder.split("/")
    trees = [git_in(repo, "rev-parse", "HEAD^{tree}")]
    for part in parts:
        trees.append(next(o for m, k, o, n in _entries(repo, trees[-1]) if n == part))
    tree = _mktree(repo, [e for e in _entries(repo, trees[-1]) if e[3] not in drop] + extra)
    for part, parent in zip(reversed(parts), reversed(trees[:-1])):
        tree = _mktree(repo, [e for e in _entries(repo, parent) if e[3] != part] + [("040000", "tree", tree, part)])
    return git_in(repo, "commit-tree", tree, "-p", "HEAD", "-m", "pull request")


def _climbing_tree(repo: Path, levels: int, name: str = "escaped.txt") -> str:
    blob = git_in(repo, "hash-object", "-w", "--stdin", stdin="written outside the review's folder\n")
    tree = _mktree(repo, [("100644", "blob", blob, name)])
    for _ in range(levels - 1):
        tree = _mktree(repo, [("040000", "tree", tree, "..")])
    return tree


def test_a_tree_entry_named_dot_dot_writes_nothing_and_is_not_ready(github, monkeypatch):
    author = github / "author"
    _add_submission(author, "evil-agent")
    git_in(author, "add", "-A")
    git_in(author, "commit", "-qm", "a clean submission")
    head = _with_entries(author, "contributions/evil-agent", [("040000", "tree", _climbing_tree(author, LEVELS), "..")])
    git_in(author, "push", "-q", "-f", "origin", f"{head}:refs/pull/{PR_NUMBER}/head")
    scratch = github / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))  # where the review's scratch folder was made
    result = run_workflow(github, head)
    assert not (github / "escaped.txt").exists()
    assert [p for p in github.rglob("escaped.txt")] == []
    assert list(scratch.iterdir()) == []  # no scratch folder at all: nothing of the pull request is on disk
    comment = result["comments"][-1]
    assert "Verdict: ready to merge" not in comment and "Verdict: needs a maintainer" in comment, comment
    assert "crafted" in comment
    assert result["statuses"][-1][1] != 0  # the job fails


# --- every other tree shape, read directly (no workflow: fast) ------------------------------------------------


@pytest.fixture()
def fork(package_git, package_copy):
    """The package in git with a clean submission committed; returns the repository."""
    _add_submission(package_copy, "new-agent")
    package_git("add", "-A")
    package_git("commit", "-qm", "a clean submission")
    return package_copy


def _blob(repo: Path, text: str) -> str:
    return git_in(repo, "hash-object", "-w", "--stdin", stdin=text)


SHAPES = {
    "dot-dot blob": (lambda r: [("100644", "blob", _blob(r, "x\n"), "..")], (), "a crafted tree"),
    "dot blob": (lambda r: [("100644", "blob", _blob(r, "x\n"), ".")], (), "a crafted tree"),
    "dot-dot tree": (lambda r: [("040000", "tree", _climbing_tree(r, 3), "..")], (), "a crafted tree"),
    "git folder": (lambda r: [("040000", "tree", _climbing_tree(r, 1, "config"), ".git")], (), "a crafted tree"),
    "nested folder": (lambda r: [("040000", "tree", _climbing_tree(r, 1, "x.py"), "extra")], (), "a folder"),
    "symlink": (lambda r: [("120000", "blob", _blob(r, "/etc/passwd"), "scores.csv")], ("scores.csv",),
                "is a symbolic link (to '/etc/passwd')"),
    "submodule": (lambda r: [("160000", "commit", "1" * 40, "scores.csv")], ("scores.csv",), "a submodule"),
    "unexpected file": (lambda r: [("100644", "blob", _blob(r, "x\n"), "conftest.py")], (),
                        "unexpected file in the submission"),
    "duplicate name": (lambda r: [("100644", "blob", _blob(r, "game,score\n"), "scores.csv")], (),
                       "appears 2 times in the folder's tree"),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_other_tree_shape_is_refused_in_memory(fork, shape, monkeypatch, tmp_path):
    from atari5_spec_maintainers.contributions.files import folder_problems
    from atari5_spec_maintainers.contributions.pull_request import read_submission_tree

    extra, drop, message = SHAPES[shape]
    head = _with_entries(fork, "contributions/new-agent", extra(fork), drop)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    stored = read_submission_tree(fork, head, "contributions/new-agent")
    problems = folder_problems(stored)
    assert any(message in p.message for p in problems), problems
    assert stored.path == PurePosixPath("contributions/new-agent")
    assert set(stored.files) <= {"metadata.yaml", "scores.csv"}
    assert list(scratch.iterdir()) == [] and not (tmp_path / "escaped.txt").exists()


def test_a_clean_folder_reads_its_two_files_byte_for_byte(fork):
    from atari5_spec_maintainers.contributions.files import folder_problems
    from atari5_spec_maintainers.contributions.pull_request import read_submission_tree

    stored = read_submission_tree(fork, "HEAD", "contributions/new-agent")
    assert folder_problems(stored) == []
    for name in ("metadata.yaml", "scores.csv"):
        assert stored.files[name] == (fork / "contributions" / "new-agent" / name).read_bytes()


def test_the_review_of_a_crafted_tree_names_it_and_is_not_ready(fork):
    from atari5_spec_maintainers.contributions.pull_request import review_pull_request

    base = git_in(fork, "rev-parse", "HEAD~1")
    head = _with_entries(fork, "contributions/new-agent", [("040000", "tree", _climbing_tree(fork, 3), "..")])
    review = review_pull_request(fork, base, head)
    assert not review.ready
    assert "crafted" in review.text and "Verdict: needs a maintainer" in review.text
