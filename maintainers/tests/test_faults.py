"""Faults while writing into a package: kills at each step of the commit, I/O errors, full and read-only
disks, concurrent writers. Each asserts that the package is byte-identical to its state before or after the
change (and valid), that no temporary file survives, and that the rerun succeeds.

The commit's steps are named in atari5_spec.data.transaction; ``ATARI5_FAULT_KILL=<step>`` ends the
process there (os._exit, as a kill would) and ``ATARI5_FAULT_IO=<step>`` raises EIO there.
"""

import errno
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import copy_package

from atari5_spec.cli import main
from atari5_spec.data.datapackage import package_root
from atari5_spec.data.errors import InputError
from atari5_spec.data.transaction import LOCK_NAME, STAGING_NAME, package_transaction, pending_commit, recover
from atari5_spec_maintainers.versioning import apply_changes

CLI = [sys.executable, "-c", "import sys; from atari5_spec.cli.main import main; sys.exit(main(sys.argv[1:]))"]
KILL_STEPS = ["locked", "staged", "journal-written", "renamed-1", "renamed-2", "applied", "journal-removed"]
HIDDEN = (STAGING_NAME, LOCK_NAME)


def snapshot(root: Path) -> dict:
    """sha256 of every file under ``root`` and the list of folders (hidden transaction files included)."""
    files = {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in sorted(root.rglob("*")) if p.is_file()}
    return {"files": files, "dirs": sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir())}


def leftovers(root: Path) -> list[str]:
    """Transaction files and temporary files anywhere in the package."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.name in HIDDEN or p.name.endswith(".tmp") or p.name.startswith("."))


def small_package(root: Path) -> Path:
    """A folder with a descriptor and two files: enough for the transaction, which knows nothing of tables."""
    (root / "data").mkdir(parents=True)
    (root / "datapackage.json").write_text('{"name": "x", "version": "1.0.0"}\n')
    (root / "data" / "a.csv").write_text("id\n1\n")
    (root / "data" / "b.csv").write_text("id\n2\n")
    return root


CHANGE = {"data/a.csv": "id\n1\n3\n", "data/b.csv": "id\n2\n4\n", "data/new/c.csv": "id\n5\n",
          "datapackage.json": '{"name": "x", "version": "1.1.0"}\n'}

APPLY_SCRIPT = ("import sys, json; from atari5_spec_maintainers.versioning import apply_changes; "
                "apply_changes(sys.argv[1], json.loads(sys.argv[2]), {'extra': json.loads(sys.argv[3])}, 'test change')")


def run_apply(root: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", APPLY_SCRIPT, str(root), json.dumps(CHANGE),
                           json.dumps({"x.txt": "folder file\n"})], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=60)


@pytest.fixture()
def states(tmp_path):
    """(before, after) snapshots of the small package, the after state made by an uninterrupted change."""
    before_root = small_package(tmp_path / "reference-before")
    after_root = small_package(tmp_path / "reference-after")
    apply_changes(after_root, dict(CHANGE), {"extra": {"x.txt": "folder file\n"}}, "test change")
    return snapshot(before_root), snapshot(after_root)


# --- kills at every step of the commit (the transaction alone: fast) -----------------------------------------

FAST_STEPS = ("staged", "renamed-2", "journal-removed")  # the rest run with `pytest --full`


@pytest.mark.parametrize("step", [step if step in FAST_STEPS else pytest.param(step, marks=pytest.mark.slow)
                                  for step in KILL_STEPS + ["renamed-4", "renamed-5"]])
def test_a_kill_at_each_step_leaves_before_or_after_and_the_next_command_recovers(tmp_path, states, step, capsys):
    before, after = states
    root = small_package(tmp_path / "package")
    result = run_apply(root, {"ATARI5_FAULT_KILL": step})
    assert result.returncode == 137, result.stderr
    committed = step not in ("locked", "staged")
    # Between the commit record and its removal the package is mid-change: validate reports it with its targets.
    pending = pending_commit(root)
    if step == "locked":
        assert pending is None and (root / LOCK_NAME).exists()
    else:
        assert bool(pending and pending["targets"]) == (step not in ("staged", "journal-removed"))
    done = recover(root)
    assert done == {"locked": None, "staged": "discarded"}.get(step, "finished")
    assert leftovers(root) == []
    assert snapshot(root) == (after if committed else before)
    if not committed:  # the rerun makes the change
        assert run_apply(root, {}).returncode == 0
        assert snapshot(root) == after


def test_reading_the_package_refuses_an_interrupted_commit_and_writes_nothing(tmp_path, states, capsys):
    """A command that only reads never writes (issue 35): it names the fix; `recover` (or a writer) finishes."""
    root = small_package(tmp_path / "package")
    assert run_apply(root, {"ATARI5_FAULT_KILL": "renamed-1"}).returncode == 137
    before = snapshot(root)
    with pytest.raises(InputError, match=r"interrupted change: `test change`.*only reads.*atari5-spec recover"):
        package_root(root)  # every command that only reads opens the package this way
    assert snapshot(root) == before
    assert recover(root) == "finished"
    assert package_root(root) == root and snapshot(root) == states[1] and leftovers(root) == []
    assert "was finished" in capsys.readouterr().err


def test_a_commit_whose_staged_files_are_gone_is_undone(tmp_path, states, capsys):
    root = small_package(tmp_path / "package")
    assert run_apply(root, {"ATARI5_FAULT_KILL": "renamed-1"}).returncode == 137
    for staged in (root / STAGING_NAME / "new").iterdir():  # cannot roll forward any more
        if staged.is_file():
            staged.unlink()
    assert recover(root) == "undone"
    assert snapshot(root) == states[0] and leftovers(root) == []


def test_a_target_edited_after_the_kill_stops_recovery_with_a_message(tmp_path):
    root = small_package(tmp_path / "package")
    assert run_apply(root, {"ATARI5_FAULT_KILL": "renamed-1"}).returncode == 137
    (root / "data" / "b.csv").write_text("edited by hand\n")
    with pytest.raises(InputError, match="matching neither its state before nor after"):
        recover(root)


@pytest.mark.parametrize("damaged", ["staged", "backup"])
def test_a_damaged_staged_or_backup_file_stops_recovery_and_changes_nothing(tmp_path, damaged):
    """Recovery checks every file it could install against the journal's sha256 before renaming any."""
    root = small_package(tmp_path / "package")
    assert run_apply(root, {"ATARI5_FAULT_KILL": "renamed-1"}).returncode == 137
    journal = json.loads((root / STAGING_NAME / "journal.json").read_text())
    if damaged == "staged":  # the second target is not applied yet: its staged file would be installed
        target = journal["targets"][1]
        victim = root / STAGING_NAME / target["staged"]
    else:  # the first target is applied: its kept old version is what undoing would put back
        target = journal["targets"][0]
        victim = root / STAGING_NAME / "old" / Path(target["staged"]).name
        victim.unlink()  # a hard link to the old file: replace it rather than edit the shared inode
    victim.write_text("id\n666\n")
    (root / LOCK_NAME).unlink(missing_ok=True)  # the killed writer's stale lock, which recovery tidies anyway
    before = snapshot(root)
    with pytest.raises(InputError, match=r"cannot be recovered safely: the (staged new|kept old) version of "
                                         + target["path"] + r".*not the journal's.*Nothing was changed"):
        recover(root)
    assert snapshot(root) == before


def test_a_read_overlapping_a_commit_is_read_again(tmp_path):
    from atari5_spec.data.transaction import read_consistently

    root = small_package(tmp_path / "package")
    calls = []

    def read():
        first = (root / "data" / "a.csv").read_text()
        if not calls:
            assert run_apply(root, {}).returncode == 0  # a merge lands between the two files
        calls.append(1)
        return first, (root / "data" / "b.csv").read_text()

    assert read_consistently(root, read) == (CHANGE["data/a.csv"], CHANGE["data/b.csv"]) and len(calls) == 2


# --- I/O errors, full and read-only disks (in process, os functions replaced) --------------------------------

@pytest.mark.parametrize("step", ["locked", "staged", "journal-written", "renamed-1", "renamed-3", "applied",
                                  "journal-removed"])
def test_an_io_error_at_each_step_leaves_before_or_after(tmp_path, states, step, monkeypatch):
    before, after = states
    root = small_package(tmp_path / "package")
    monkeypatch.setenv("ATARI5_FAULT_IO", step)
    with pytest.raises(OSError if step in ("locked", "staged") else InputError):
        apply_changes(root, dict(CHANGE), {"extra": {"x.txt": "folder file\n"}})
    monkeypatch.delenv("ATARI5_FAULT_IO")
    recover(root)
    assert leftovers(root) == []
    assert snapshot(root) in (before, after)
    assert snapshot(root) == (after if step in ("applied", "journal-removed") else before)


def _failing(function, error_number, after_calls=0, times=None):
    """``function`` that fails with ``error_number`` after ``after_calls`` calls (``times`` times, or always)."""
    calls = {"n": 0}

    def fail(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > after_calls and (times is None or calls["n"] <= after_calls + times):
            raise OSError(error_number, os.strerror(error_number), str(args[0]) if args else None)
        return function(*args, **kwargs)

    return fail


@pytest.mark.parametrize("error_number", [errno.ENOSPC, errno.EIO, errno.EROFS, errno.EACCES])
@pytest.mark.parametrize("where", ["write", "replace-late"])
def test_disk_errors_leave_the_package_unchanged_and_say_so_in_one_line(tmp_path, states, monkeypatch, capsys,
                                                                        error_number, where):
    before, _ = states
    root = small_package(tmp_path / "package")
    if where == "write":  # the disk fills (or fails) while the new files are staged
        monkeypatch.setattr(os, "write", _failing(os.write, error_number, after_calls=2))
    else:  # a rename fails after two targets were replaced: the old files are put back by renames
        monkeypatch.setattr(os, "replace", _failing(os.replace, error_number, after_calls=3, times=1))
    with pytest.raises((InputError, OSError)) as raised:
        apply_changes(root, dict(CHANGE))
    monkeypatch.undo()
    assert "\n" not in str(raised.value)
    recover(root)
    assert snapshot(root) == before and leftovers(root) == []


def test_a_restore_that_fails_too_leaves_a_journal_the_next_command_finishes(tmp_path, states, monkeypatch):
    _, after = states
    root = small_package(tmp_path / "package")
    monkeypatch.setattr(os, "replace", _failing(os.replace, errno.EIO, after_calls=3))
    with pytest.raises(InputError, match=r"`atari5-spec recover` \(or the next command that writes\) finishes it"):
        apply_changes(root, dict(CHANGE), {"extra": {"x.txt": "folder file\n"}})
    monkeypatch.undo()
    assert recover(root) == "finished"
    assert snapshot(root) == after and leftovers(root) == []


def test_a_read_only_package_is_refused_in_one_line(tmp_path, capsys):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    root = small_package(tmp_path / "package")
    before = snapshot(root)
    os.chmod(root, 0o555)
    try:
        with pytest.raises(InputError, match="write lock"):
            apply_changes(root, dict(CHANGE))
    finally:
        os.chmod(root, 0o755)
    assert snapshot(root) == before


def test_cli_turns_disk_errors_into_one_line_naming_the_path(monkeypatch, capsys, tmp_path):
    import atari5_spec.cli.package as package_cli

    def full(args):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "data" / "scores.csv"))

    monkeypatch.setattr(package_cli, "_cmd_recover", full)
    assert main(["recover", "--package", str(small_package(tmp_path / "p"))]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "scores.csv: the disk is full" in err and "Traceback" not in err


# --- the lock ----------------------------------------------------------------------------------------------

def test_a_second_writer_waits_then_is_refused_naming_the_holder(tmp_path):
    root = small_package(tmp_path / "package")
    before = snapshot(root)
    with package_transaction(root, "contribute add held-by-test"):
        started = time.monotonic()
        result = run_apply(root, {"ATARI5_LOCK_TIMEOUT": "0.5"})
        waited = time.monotonic() - started
    assert result.returncode == 1 and waited >= 0.5
    assert "contribute add held-by-test" in result.stderr and f"process {os.getpid()}" in result.stderr
    assert "PackageLockedError" in result.stderr  # the CLI prints it as one line (tests below)
    assert snapshot(root) == before


def test_a_lock_left_by_a_killed_writer_is_taken_over(tmp_path, states):
    root = small_package(tmp_path / "package")
    assert run_apply(root, {"ATARI5_FAULT_KILL": "locked"}).returncode == 137
    assert (root / LOCK_NAME).exists()  # the file stays; the kernel released the lock
    result = run_apply(root, {"ATARI5_LOCK_TIMEOUT": "0"})
    assert result.returncode == 0 and "no longer running" in result.stderr
    assert snapshot(root) == states[1]


@pytest.mark.slow
def test_concurrent_changes_through_the_lock_are_all_kept(tmp_path):
    """Four processes each append a line to the same file under the lock: no update is lost."""
    root = small_package(tmp_path / "package")
    script = ("import sys, time; from pathlib import Path; from atari5_spec.data.transaction import package_transaction\n"
              "root = Path(sys.argv[1])\n"
              "with package_transaction(root, 'append ' + sys.argv[2]) as change:\n"
              "    text = (root / 'data/a.csv').read_text(); time.sleep(0.3)\n"
              "    change.commit({'data/a.csv': text + sys.argv[2] + '\\n'})\n")
    processes = [subprocess.Popen([sys.executable, "-c", script, str(root), str(n)]) for n in range(4)]
    assert [p.wait(timeout=60) for p in processes] == [0] * 4
    lines = (root / "data" / "a.csv").read_text().split()
    assert sorted(lines[2:]) == ["0", "1", "2", "3"] and leftovers(root) == []


# --- the real commands (slow: each runs a merge or a fit) --------------------------------------------------------

METADATA = {
    "name": "FaultAgent",
    "paper": {"title": "An Agent Merged Under Faults", "authors": ["Ada Example"], "year": 2024,
              "arxiv": "2401.12345", "location": "Table 5"},
    "protocol": {"start_condition": "no-op", "sticky_action_probability": 0.25, "max_episode_frames": 108000,
                 "training_frames": 200000000, "seeds": 3, "statistic": "mean"},
    "contributor": {"name": "Grace Hopper", "github": "grace-hopper"},
}


def make_submission(parent: Path, submission_id: str, factor: float = 1.0) -> Path:
    folder = parent / submission_id
    folder.mkdir(parents=True)
    meta = dict(METADATA, name=f"Agent {submission_id}")
    (folder / "metadata.yaml").write_text(yaml.safe_dump(meta, sort_keys=False), encoding="utf-8")
    rows = [("Battle Zone", 41230.5), ("Double Dunk", -1.2), ("Name This Game", 12450), ("Phoenix", 35120.7),
            ("Q*bert", 18230)]
    (folder / "scores.csv").write_text("game,score\n" + "".join(f"{g},{s * factor:g}\n" for g, s in rows))
    return folder


def cli(*argv, env=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + list(argv), env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=600, cwd=cwd)


def _after(tmp_path_factory, *argv: str) -> dict:
    """snapshot() of a package copy after ``atari5-spec ARGV --package COPY`` ran uninterrupted: the state a killed
    run's rerun must reach. Made once per module (the tests only compare with it)."""
    root = copy_package(tmp_path_factory.mktemp("after") / "package", ("CHANGELOG.md",))
    done = cli(*argv, "--package", str(root))
    assert done.returncode == 0, done.stdout + done.stderr
    return snapshot(root)


@pytest.fixture(scope="module")
def after_merge(tmp_path_factory):
    submission = make_submission(tmp_path_factory.mktemp("submissions"), "fault-agent")
    return _after(tmp_path_factory, "contribute", "add", str(submission))


@pytest.fixture(scope="module")
def after_fit(tmp_path_factory):
    return _after(tmp_path_factory, "fit", "--name", "fault-test")


@pytest.fixture(scope="module")
def after_pin(tmp_path_factory):
    return _after(tmp_path_factory, "evaluate", "--pin-calibration")  # the pooled method's edition 2


@pytest.mark.slow
@pytest.mark.parametrize("step", KILL_STEPS)
def test_contribute_add_killed_at_each_step_recovers_and_the_rerun_succeeds(tmp_path, step, after_merge):
    submission = make_submission(tmp_path / "submissions", "fault-agent")
    root = copy_package(tmp_path / "package", ("CHANGELOG.md",))
    before = snapshot(root)
    temp = tmp_path / "tmp"
    temp.mkdir()
    killed = cli("contribute", "add", str(submission), "--package", str(root),
                 env={"ATARI5_FAULT_KILL": step, "TMPDIR": str(temp)})
    assert killed.returncode == 137
    assert list(temp.iterdir()) == []  # no copy of data/ in the temporary folder
    pending = pending_commit(root)
    if pending:
        report = cli("validate", "--package", str(root))
        assert report.returncode == 1 and "atari5-spec recover" in report.stdout
        assert ("interrupted commit" in report.stdout) == bool(pending["targets"])
    rerun = cli("contribute", "add", str(submission), "--package", str(root))
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert leftovers(root) == []
    assert snapshot(root) == after_merge != before
    assert cli("validate", "--package", str(root)).returncode == 0


@pytest.mark.slow
@pytest.mark.parametrize("writers", [2, 4])
def test_concurrent_merges_keep_every_submission(tmp_path, writers):
    root = copy_package(tmp_path / "package", ("CHANGELOG.md",))
    folders = [make_submission(tmp_path / "submissions", f"agent-{n}", 1 + n / 10) for n in range(writers)]
    processes = [subprocess.Popen(CLI + ["contribute", "add", str(f), "--package", str(root), "--approved"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for f in folders]
    outputs = [p.communicate(timeout=600) for p in processes]
    assert [p.returncode for p in processes] == [0] * writers, outputs
    sources = (root / "data" / "sources.csv").read_text()
    assert all(f"contrib-agent-{n}," in sources for n in range(writers))
    assert cli("validate", "--package", str(root)).returncode == 0
    check = cli("contribute", "check", *map(str, folders), "--package", str(root))  # each recognised as merged
    assert check.returncode == 0, check.stdout + check.stderr
    assert [f"agent-{n}: already merged" in check.stdout for n in range(writers)] == [True] * writers, check.stdout
    assert leftovers(root) == []


@pytest.mark.slow
@pytest.mark.parametrize("step", ["staged", "renamed-2", "applied"])
def test_fit_killed_mid_commit_recovers_and_the_rerun_succeeds(tmp_path, step, after_fit):
    root = copy_package(tmp_path / "package", ("CHANGELOG.md",))
    assert cli("fit", "--name", "fault-test", "--package", str(root), env={"ATARI5_FAULT_KILL": step}).returncode == 137
    rerun = cli("fit", "--name", "fault-test", "--package", str(root))
    assert rerun.returncode == 0, rerun.stderr
    assert snapshot(root) == after_fit and leftovers(root) == []


@pytest.mark.slow
@pytest.mark.parametrize("step", ["staged", "renamed-2"])
def test_pinning_a_calibration_edition_killed_mid_commit_leaves_before_or_after(tmp_path, step, after_pin):
    pin = ["evaluate", "--pin-calibration", "--package"]
    root = copy_package(tmp_path / "package", ("CHANGELOG.md",))
    before = snapshot(root)
    killed = cli(*pin, str(root), env={"ATARI5_FAULT_KILL": step})
    assert killed.returncode == 137, killed.stderr
    rerun = cli(*pin, str(root))
    if step == "staged":  # killed before the commit record: nothing changed, the rerun pins the edition
        assert rerun.returncode == 0, rerun.stderr
    else:  # killed after it: the rerun finishes the commit and reports it (or finds nothing new)
        assert rerun.returncode in (0, 1), rerun.stderr
    assert leftovers(root) == []
    assert snapshot(root) == after_pin != before
    # the old edition is never rewritten: the new one is beside it
    assert (root / "calibration" / "paper-2023.csv").read_bytes() == \
        (package_root() / "calibration" / "paper-2023.csv").read_bytes()
    assert (root / "calibration" / "paper-2023.2.csv").is_file()


# --- outputs: one policy, disk errors in one line ---------------------------------------------------------------

CURVES = "game,seed,frames,return\n" + "".join(f"Pong,{s},{f * 10_000_000},{s + f / 7:.3f}\n"
                                                 for s in range(2) for f in range(21))


def test_stability_out_is_refused_inside_a_package_before_the_work(package_copy, capsys):
    before = snapshot(package_copy)
    assert main(["stability", "--package", str(package_copy), "--resamples", "1",
                 "--out", str(package_copy / "data" / "games.csv")]) == 1
    assert "inside the data package" in capsys.readouterr().err
    assert snapshot(package_copy) == before


def test_contribute_curves_writes_an_unmerged_submissions_scores_in_the_package(package_copy, tmp_path, capsys):
    runs = tmp_path / "runs.csv"
    runs.write_text(CURVES)
    target = package_copy / "contributions" / "new-agent" / "scores.csv"
    assert main(["contribute", "curves", str(runs), "--final", "200M", "--out", str(target)]) == 0
    assert target.read_text().startswith("game,seed,training_frames,score")
    assert main(["contribute", "curves", str(runs), "--final", "200M",
                 "--out", str(package_copy / "data" / "scores.csv")]) == 1  # nowhere else in the package
    assert "inside the data package" in capsys.readouterr().err


@pytest.mark.parametrize("error_number", [errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EIO])
def test_an_output_on_a_failing_disk_is_one_line_naming_the_path(tmp_path, monkeypatch, capsys, error_number):
    import atari5_spec.data.paths as paths

    runs = tmp_path / "runs.csv"
    runs.write_text(CURVES)
    monkeypatch.setattr(paths.tempfile, "mkstemp", _failing(paths.tempfile.mkstemp, error_number))
    out = tmp_path / "out" / "scores.csv"
    assert main(["contribute", "curves", str(runs), "--final", "200M", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert str(out) in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists() and [p.name for p in out.parent.iterdir()] == []


# --- worker processes end with their parent -----------------------------------------------------------------

def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to find the workers")
@pytest.mark.parametrize("signal_number", [9, 15])
def test_stability_workers_end_with_their_killed_parent(tmp_path, signal_number):
    parent = subprocess.Popen(CLI + ["stability", "--resamples", "400", "--processes", "2"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(package_root()))
    deadline = time.monotonic() + 120
    workers = []
    while time.monotonic() < deadline and len(workers) < 2:
        time.sleep(0.5)
        # spawn starts a resource tracker too: the workers are the children running the pool's main loop
        workers = [c for c in _children(parent.pid)
                   if b"multiprocessing" in (Path("/proc") / str(c) / "cmdline").read_bytes()]
    assert workers, "no worker processes started"
    time.sleep(2.0)  # the workers are busy
    os.kill(parent.pid, signal_number)
    parent.wait(timeout=30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers)
