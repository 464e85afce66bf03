"""Issue 35, "stored script in the documentation": labels are labels.

A name like ``Agent <img src=x onerror=...>`` passed ``contribute check`` (1.2.0), ``contribute add`` wrote it
verbatim into CHANGELOG.md, MyST passed raw HTML through to the docs site, which had no content policy, and a
Markdown link in a name became a live link on the site's changelog page. Now the metadata gate refuses markup
and invisible characters in names and titles (naming the file and field), every writer of Markdown escapes
through atari5_spec.data.markdown.markdown_text, and the docs site shows raw HTML as text under the web home's
Content-Security-Policy (docs/_content_policy.py).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_contributions import make_submission, metadata

REPOSITORY = Path(__file__).resolve().parents[2]
HOSTILE = "Agent <img src=x onerror=\"window.pwned=1;alert(1)\"> [click](https://evil.example) `x`"


@pytest.mark.parametrize("field, meta", [
    ("name", metadata(name="Agent <img src=x onerror=alert(1)>")),
    ("name", metadata(name="Agent [click](https://evil.example)")),
    ("name", metadata(name="Agent `rm -rf`")),
    ("name", metadata(name="Agent https://evil.example")),
    ("paper.title", metadata(paper={"title": "A <script>alert(1)</script> agent"})),
    ("contributor.name", metadata(contributor={"name": "Mallory [me](https://evil.example)", "github": "m"})),
    ("paper.authors.0", metadata(paper={"authors": ["<b>Mallory</b>"]})),
])
def test_markup_in_a_name_or_title_is_refused_naming_the_file_and_field(package_copy, run, field, meta):
    make_submission(package_copy / "contributions", "new-agent", meta=meta)
    status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "new-agent"))
    assert status == 1, out
    assert f"new-agent/metadata.yaml, line" in out and f"column '{field}'" in out, out
    assert "would be markup (HTML, a link or code)" in out


@pytest.mark.parametrize("invisible", ["\u3164", "\u200b", "\u2060", "\ufe0f", "\u115f", "\u00ad", "\u2800"])
def test_a_character_that_renders_as_nothing_is_refused_in_a_name(package_copy, run, invisible):
    make_submission(package_copy / "contributions", "new-agent", meta=metadata(name=f"DreamerV3{invisible}"))
    status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "new-agent"))
    assert status == 1 and "column 'name'" in out, out
    assert f"contains U+{ord(invisible):04X}" in out and "renders as nothing" in out


def test_the_markdown_escape_leaves_nothing_live():
    from atari5_spec.data.markdown import markdown_text

    escaped = markdown_text(HOSTILE + " &lt;b&gt; a|b \\")
    assert "<" not in escaped.replace("\\<", "") and "[" not in escaped.replace("\\[", "")
    assert "\\&lt;" in escaped and "a\\|b" in escaped and "\\`x\\`" in escaped
    assert markdown_text("PPO_100k Q*bert") == "PPO_100k Q*bert"  # names show as typed


def _changelog_with_hostile_entry(package: Path) -> str:
    """CHANGELOG.md as `contribute add` writes it for a merge whose labels are hostile (past the gate)."""
    from atari5_spec_maintainers.contributions import check_submission, read_submission
    from atari5_spec_maintainers.contributions.merging import _changelog_line
    from atari5_spec.data.loading import load
    from atari5_spec_maintainers.versioning import changelog_with_entry

    folder = make_submission(package / "contributions", "new-agent", meta=metadata(name="HostileAgent"))
    report = check_submission(folder, package)
    assert report.ok, report
    merge = report.merge._replace(algorithm={**report.merge.algorithm, "name": HOSTILE,
                                             "paper_title": "Title [x](https://evil.example)"})
    submission, _ = read_submission(folder, load(package))
    submission.metadata["contributor"]["name"] = "<svg onload=alert(2)>"
    return changelog_with_entry("# Changelog\n\n## [Unreleased]\n", *_changelog_line(merge, submission, "9.9.9"))


def test_the_changelog_line_of_contribute_add_escapes_names_titles_and_contributors(package_copy):
    text = _changelog_with_hostile_entry(package_copy)
    assert "\\<img src=x" in text and "\\[click\\](https://evil.example)" in text and "\\<svg" in text
    assert "<img" not in text.replace("\\<img", "") and "](https" not in text.replace("\\](https", "")


def test_the_readme_table_escapes_agent_labels():
    from atari5_spec_research.analyses.contributed_results import ContributedResult, results_markdown

    table = results_markdown([ContributedResult("x", HOSTILE, "sticky | 0.25", 1.0, 1.0, 1.0)])
    row = table.splitlines()[2]
    assert "\\<img" in row and "\\[click\\]" in row and "sticky \\| 0.25" in row
    assert len(re.findall(r"(?<!\\)\|", row)) == 6  # five cells: the hostile label adds none


@pytest.mark.slow
def test_the_docs_site_shows_a_hostile_changelog_as_text_under_a_content_policy(package_copy, tmp_path):
    """A page built as docs/conf.py builds (MyST + docs/_content_policy.py): the escaped changelog line, and
    raw HTML as an older hand-written CHANGELOG could hold it; in Chromium nothing runs and no link is live."""
    for module in ("sphinx", "myst_nb", "pydata_sphinx_theme"):
        pytest.importorskip(module, reason="the docs extra is not installed: pip install '.[docs]'")
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(REPOSITORY / 'docs')!r})\n"
        "extensions = ['myst_nb', '_content_policy']\nhtml_theme = 'pydata_sphinx_theme'\n"
        "source_suffix = {'.md': 'myst-nb'}\nnb_execution_mode = 'off'\n", encoding="utf-8")
    escaped = _changelog_with_hostile_entry(package_copy)
    # Raw HTML only: a Markdown link a person writes into the changelog by hand is meant to be one.
    raw = "- Agent <img src=x onerror=\"window.pwned=1;alert(1)\">\n\n<script>window.pwned = 2</script>\n\n<img src=x onerror=\"window.pwned=3\">\n"
    (source / "index.md").write_text(escaped + "\n## Older\n\n" + raw, encoding="utf-8")
    out = tmp_path / "html"
    done = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(source), str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    html = (out / "index.html").read_text(encoding="utf-8")
    assert html.index('http-equiv="Content-Security-Policy"') < html.index("<script")
    assert "script-src 'self'" in html and "'unsafe-inline'" not in html
    assert "<img src=x" not in html and "<script>window.pwned" not in html and "<svg" not in html
    assert 'href="https://evil.example"' not in html
    assert "Agent &lt;img src=x" in html  # shown, as text

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if chromium is None:
        pytest.skip("chromium is not installed")
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox"])
        try:
            page = browser.new_page()
            dialogs = []
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            page.goto((out / "index.html").as_uri())
            page.wait_for_load_state("load")
            assert page.evaluate("window.pwned") is None and dialogs == []
            assert page.evaluate("document.querySelectorAll('img[onerror], svg[onload], a[href^=\"https://evil\"]')"
                                 ".length") == 0
            assert "Agent <img src=x" in page.inner_text("body")  # the name is shown as typed
        finally:
            browser.close()
