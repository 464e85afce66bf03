"""Issue 35, item 1: a write journal that atari5-spec did not write is refused, and read-only commands never write.

A fork commits ``.atari5-transaction/`` with ``git add -f`` (git ignores it, but a forced add commits it). On
1.2.0 every command but ``validate`` "finished the interrupted change" it describes: an absolute path, a path
climbing out with ``..`` and ``.git/hooks/pre-commit`` were all written when a maintainer ran the documented
``atari5-spec contribute add contributions/<id>`` on the pull request's branch. Each attack here is that
branch, cloned as a maintainer would clone it, and the documented command (or a read-only one) run on it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from git_helpers import git_in

from conftest import copy_package
from test_faults import make_submission, run_apply, small_package, snapshot
from test_review_workflow import _add_submission, _push_pull_request, github, run_workflow  # noqa: F401 (fixture)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

CLI = [sys.executable, "-c", "import sys; from atari5_spec.cli.main import main; sys.exit(main(sys.argv[1:]))"]
STAGING = ".atari5-transaction"
PAYLOAD = b"#!/bin/sh\necho pwned > \"$HOME/pwned\"\n"


def cli(*argv, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + list(argv), cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "ATARI5_LOCK_TIMEOUT": "5"})


def _plant(work: Path, paths: list[str], payload: bytes = PAYLOAD) -> None:
    """A journal naming ``paths``, each with a staged new version, as the attacker commits it."""
    staging = work / STAGING
    (staging / "new").mkdir(parents=True)
    targets = []
    for number, path in enumerate(paths):
        (staging / "new" / str(number)).write_bytes(payload)
        targets.append({"path": path, "old": None, "new": hashlib.sha256(payload).hexdigest(),
                        "staged": f"new/{number}"})
    journal = {"command": "contribute add", "pid": 1, "made": [], "targets": targets,
               "written": "2026-11-20T10:00:00+00:00"}
    (staging / "journal.json").write_text(json.dumps(journal, indent=1), encoding="utf-8")


def _fork_clone(tmp_path: Path, paths: list[str], submission: bool = True) -> Path:
    """The pull request's branch (a hostile journal committed with `git add -f`), cloned by the maintainer."""
    fork = copy_package(tmp_path / "fork", ("CHANGELOG.md",))
    git_in(fork, "init", "-q", "-b", "main")
    git_in(fork, "add", "-A")
    git_in(fork, "commit", "-qm", "base")
    (fork / ".gitignore").write_text(f"{STAGING}/\n.atari5.lock\n", encoding="utf-8")  # as the project has it
    if submission:
        make_submission(fork / "contributions", "new-agent")
    _plant(fork, paths)
    git_in(fork, "add", "-A")
    git_in(fork, "add", "-f", STAGING)
    git_in(fork, "commit", "-qm", "pull request")
    assert f"{STAGING}/journal.json" in git_in(fork, "ls-files")
    clone = tmp_path / "maintainer"
    git_in(tmp_path, "clone", "-q", str(fork), str(clone))
    return clone


def _tree(root: Path) -> dict:
    """Every file under ``root`` with its sha256 (the .git folder included: hooks live there)."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


ATTACKS = {
    "absolute": lambda tmp: str(tmp / "outside" / "pwned.sh"),
    "parent": lambda tmp: "../escaped.sh",
    "git-hook": lambda tmp: ".git/hooks/pre-commit",
    "deep-parent": lambda tmp: "data/../../escaped.sh",
}
VICTIMS = {
    "absolute": lambda tmp: tmp / "outside" / "pwned.sh",
    "parent": lambda tmp: tmp / "escaped.sh",
    "git-hook": lambda tmp: tmp / "maintainer" / ".git" / "hooks" / "pre-commit",
    "deep-parent": lambda tmp: tmp / "escaped.sh",
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_contribute_add_on_a_branch_with_a_committed_journal_writes_nothing(tmp_path, attack):
    """The documented merge, run by a maintainer on the pull request's branch: refused before any rename."""
    (tmp_path / "outside").mkdir()
    clone = _fork_clone(tmp_path, [ATTACKS[attack](tmp_path)])
    before, outside = _tree(clone), sorted(p.name for p in tmp_path.iterdir())
    done = cli("contribute", "add", "contributions/new-agent", cwd=clone)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    message = done.stdout + done.stderr
    assert f"{STAGING}/journal.json" in message and "not written by atari5-spec" in message, message
    assert "nothing was changed" in message.lower()
    assert not VICTIMS[attack](tmp_path).exists()
    assert _tree(clone) == before  # not a byte in the clone, its .git folder included
    assert sorted(p.name for p in tmp_path.iterdir()) == outside
    assert (tmp_path / "outside").exists() and list((tmp_path / "outside").iterdir()) == []
    assert git_in(clone, "status", "--porcelain", "--ignored") == ""


@pytest.mark.parametrize("command", [("leaderboard",), ("score", "--help"), ("recover",), ("validate",)])
def test_any_command_in_a_clone_of_such_a_fork_writes_nothing(tmp_path, command):
    clone = _fork_clone(tmp_path, [".git/hooks/pre-commit", "../escaped.sh"], submission=False)
    before = _tree(clone)
    done = cli(*command, cwd=clone)
    assert "Traceback" not in done.stderr
    assert _tree(clone) == before and not (tmp_path / "escaped.sh").exists()
    if command[-1] != "--help":
        assert done.returncode != 0, done.stdout + done.stderr
        assert "not written by atari5-spec" in done.stdout + done.stderr


def test_a_journal_written_here_and_committed_is_refused_in_a_clone(tmp_path):
    """A genuine journal (a commit killed mid-way) committed and cloned: it belongs to the first package folder."""
    original = small_package(tmp_path / "original")
    assert run_apply(original, {"ATARI5_FAULT_KILL": "renamed-1"}).returncode == 137
    git_in(original, "init", "-q", "-b", "main")
    git_in(original, "add", "-A")
    git_in(original, "add", "-f", STAGING)
    git_in(original, "commit", "-qm", "with the journal")
    clone = tmp_path / "clone"
    git_in(tmp_path, "clone", "-q", str(original), str(clone))
    before = snapshot(clone)
    done = cli("recover", "--package", str(clone), cwd=tmp_path)
    assert done.returncode != 0 and "not written by atari5-spec" in done.stdout + done.stderr, done.stderr
    assert "another package folder" in done.stderr
    assert snapshot(clone) == before
    # The original package, on the machine and in the folder that wrote it, is recovered as before.
    assert cli("recover", "--package", str(original), cwd=tmp_path).returncode == 0
    assert not (original / STAGING).exists()


def test_an_edited_journal_is_refused(tmp_path):
    """A journal this machine wrote, with one target's path changed afterwards: its seal no longer matches."""
    root = small_package(tmp_path / "package")
    assert run_apply(root, {"ATARI5_FAULT_KILL": "renamed-1"}).returncode == 137
    journal_path = root / STAGING / "journal.json"
    journal = json.loads(journal_path.read_text(encoding="utf-8"))
    journal["targets"][1]["path"] = "data/c.csv"
    journal_path.write_text(json.dumps(journal), encoding="utf-8")
    before = snapshot(root)
    done = cli("recover", "--package", str(root), cwd=tmp_path)
    assert done.returncode != 0 and "not written by atari5-spec" in done.stderr, done.stderr
    assert snapshot(root) == before


@pytest.mark.parametrize("staged", ["../../escaped.sh", "/etc/hostname", "new/../../../escaped.sh", "old/0"])
def test_a_journal_whose_staged_file_is_not_its_own_is_refused(tmp_path, staged):
    root = small_package(tmp_path / "package")
    _plant(root, ["data/a.csv"])
    journal_path = root / STAGING / "journal.json"
    journal = json.loads(journal_path.read_text(encoding="utf-8"))
    journal["targets"][0]["staged"] = staged
    journal_path.write_text(json.dumps(journal), encoding="utf-8")
    before = snapshot(root)
    done = cli("recover", "--package", str(root), cwd=tmp_path)
    assert done.returncode != 0 and "not written by atari5-spec" in done.stderr, done.stderr
    assert snapshot(root) == before and not (tmp_path / "escaped.sh").exists()


def test_a_read_only_command_reports_an_interrupted_change_and_leaves_it(tmp_path):
    """A genuine interrupted commit: `leaderboard` only reads, so it refuses and names the fix; `recover` finishes."""
    root = copy_package(tmp_path / "package", ("CHANGELOG.md",))
    submission = make_submission(tmp_path / "submissions", "fault-agent")
    killed = subprocess.run(CLI + ["contribute", "add", str(submission), "--package", str(root)], capture_output=True,
                            text=True, timeout=600, env={**os.environ, "ATARI5_FAULT_KILL": "renamed-1"})
    assert killed.returncode == 137
    before = snapshot(root)
    done = cli("leaderboard", cwd=root)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "atari5-spec recover" in done.stderr and "only reads" in done.stderr, done.stderr
    assert snapshot(root) == before
    assert cli("recover", "--package", str(root), cwd=tmp_path).returncode == 0
    assert cli("leaderboard", cwd=root).returncode == 0


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node (the workflow's github-script step)")
def test_the_review_names_a_committed_journal_and_lock_for_what_they_are(github):
    """The pull request's review (the workflow's own steps on a branch pushed to a local bare origin)."""
    author = github / "author"
    _add_submission(author, "new-agent")
    _plant(author, [".git/hooks/pre-commit"])
    (author / ".atari5.lock").write_text('{"pid": 1, "command": "contribute add", "host": "x"}', encoding="utf-8")
    git_in(author, "add", "-f", STAGING, ".atari5.lock")
    result = run_workflow(github, _push_pull_request(github))
    comment = result["comments"][-1]
    assert "Verdict: needs a maintainer" in comment, comment
    assert "commits atari5-spec's write journal" in comment and "commits atari5-spec's write lock" in comment
    assert not (result["checkout"] / ".git" / "hooks" / "pre-commit").exists()
    assert result["statuses"][-1][1] != 0
