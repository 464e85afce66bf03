"""git for tests that build a repository: a fixed author, no user or system configuration."""

import os
import subprocess


def git_in(cwd, *args: str, stdin: str | None = None) -> str:
    """Run git in ``cwd`` with a fixed author and no user or system configuration; its output, stripped.

    ``stdin``: text to give git on its standard input (``git mktree``, ``git hash-object --stdin``)."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "HOME": str(cwd), "PATH": os.environ["PATH"],
           "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True,
                          env=env, input=stdin).stdout.strip()
