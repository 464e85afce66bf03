"""The documentation site (docs/): every public name has a reference entry; the site builds with no warning.

The build (slow: it executes the tutorial notebook headless) needs the docs extra; without it the test
skips saying so. CI's main job installs the extra and runs `python -m sphinx -W --keep-going -b html docs OUT`.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import atari5_spec

ROOT = Path(__file__).resolve().parents[1]


def test_every_public_name_is_in_the_api_reference():
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"\.\. auto(?:function|class):: atari5_spec\.(\w+)", api))
    public = set(atari5_spec.__all__) - {"__version__"}
    assert public - documented == set(), "add these to docs/api.md"
    assert documented - public == set(), "docs/api.md documents names atari5_spec does not export"


def test_every_user_guide_page_is_in_the_table_of_contents():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    pages = {p.stem for p in (ROOT / "docs").glob("*.md")} - {"index"}
    listed = set(re.findall(r"^([\w/-]+)$", index, re.M))
    assert pages <= listed, f"pages missing from docs/index.md: {sorted(pages - listed)}"


@pytest.mark.slow
def test_the_site_builds_with_no_warning_and_runs_the_tutorial(tmp_path):
    for module in ("sphinx", "myst_nb", "numpydoc", "pydata_sphinx_theme"):
        pytest.importorskip(module, reason="the docs extra is not installed: pip install '.[docs]'")
    out = tmp_path / "html"
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           str(ROOT / "docs"), str(out)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    tutorial = (out / "tutorial.html").read_text(encoding="utf-8")
    result = atari5_spec.score({"Battle Zone": 35000, "Double Dunk": -1.5, "Name This Game": 12000,
                                "Phoenix": 9000, "Q*bert": 15000})
    assert f"<td style=\"text-align:left\">{result.estimate:.1f}</td>" in tutorial  # the notebook ran: its table
    api = (out / "api.html").read_text(encoding="utf-8")
    assert all(f'id="atari5_spec.{name}"' in api for name in set(atari5_spec.__all__) - {"__version__"})
    commands = {p.stem for p in (out / "commands").glob("*.html")} - {"index"}
    assert {"score", "aggregate", "leaderboard", "contribute"} <= commands
