"""The documentation site's content policy: text from the data never runs, as on the web home.

A Sphinx extension (docs/conf.py lists it), two walls:

* raw HTML in the Markdown pages is shown as text, never passed through: MyST turns an HTML tag or block
  in a page (README.md, CHANGELOG.md, CONTRIBUTING.md, docs/*.md) into a ``raw`` node, which this
  replaces by its text (HTML comments, the generated blocks' markers, are dropped). Notebook outputs
  (the tutorial's tables, produced by the project's own code at build time) keep their HTML;
* every page gets the web home's Content-Security-Policy (maintainers/atari5_spec_maintainers/site/templates/base.html) as the
  first element of its head: scripts from the site only, no inline script or event handler, no
  plugin, form or base change. The theme's own inline scripts (its colour mode and the page name for
  search, matched exactly below) are allowed by their SHA-256 and nothing else is.

Names reaching the pages are escaped where they are written besides (atari5_spec/data/markdown.py).
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from docutils import nodes

# The web home's policy, with fonts from the site (the theme's icons) and the allowed inline scripts' hashes.
POLICY = ("default-src 'none'; script-src 'self'{hashes}; style-src 'self'{styles}; img-src 'self' data:; "
          "font-src 'self'; connect-src 'self'; form-action 'none'; base-uri 'none'; object-src 'none'")
# The only inline scripts a page may carry: the theme's, whose text is fixed but for the page name.
THEME_SCRIPTS = (
    re.compile(r"\s*DOCUMENTATION_OPTIONS\.pagename = '[\w/.-]*';\s*"),
    re.compile(r"\s*DOCUMENTATION_OPTIONS\.search_as_you_type = (?:true|false);\s*"),
    re.compile(r'\s*document\.documentElement\.dataset\.mode = localStorage\.getItem\("mode"\) \|\| "";\s*'
               r'document\.documentElement\.dataset\.theme = localStorage\.getItem\("theme"\) \|\| "";\s*'),
    re.compile(r'\s*// Activate the search field on page load\s*'
               r'let searchInput = document\.querySelector\("form\.bd-search input"\);\s*'
               r'if \(searchInput\) \{\s*searchInput\.focus\(\);\s*searchInput\.select\(\);\s*'
               r'console\.log\("\[PST\]: Set focus on search field\."\);\s*\}\s*'),
)
# The only style attributes a page may apply: the alignment of notebook tables' cells (the tutorial's output)
# and the index page's column widths; allowed by hash ('unsafe-hashes' covers attributes, nothing else).
THEME_STYLES = re.compile(r"text-align: ?(?:left|right|center);?|width: \d+%;?(?: vertical-align: top;)?")
_STYLE_ATTRIBUTE = re.compile(r'\sstyle="([^"]*)"')
_INLINE_SCRIPT = re.compile(r"<script(?P<attributes>[^>]*)>(?P<body>.*?)</script>", re.S)


def _in_notebook_output(node) -> bool:
    parent = node.parent
    while parent is not None:
        if any("output" in c for c in parent.get("classes", [])):
            return True
        parent = parent.parent
    return False


def raw_html_as_text(app, doctree) -> None:
    """Replace every raw HTML node of a Markdown page (not a notebook output) by its text."""
    for node in list(doctree.findall(nodes.raw)):
        if "html" not in node.get("format", "").split() or _in_notebook_output(node):
            continue
        text = node.astext()
        if re.fullmatch(r"\s*<!--.*?-->\s*", text, re.S):
            node.parent.remove(node)
        elif isinstance(node.parent, (nodes.TextElement, nodes.Inline)):
            node.replace_self(nodes.Text(text))
        else:
            node.replace_self(nodes.paragraph(text, text))


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def policy_for(html: str) -> str:
    """The page's policy: POLICY with the hash of each inline script that is one of THEME_SCRIPTS, and of each
    style attribute that is one of THEME_STYLES."""
    hashes = []
    for match in _INLINE_SCRIPT.finditer(html):
        if "src=" in match.group("attributes"):
            continue
        body = match.group("body")
        if any(pattern.fullmatch(body) for pattern in THEME_SCRIPTS):
            hashes.append(" " + _sha256(body))
    styles = sorted({" " + _sha256(value) for value in _STYLE_ATTRIBUTE.findall(html) if THEME_STYLES.fullmatch(value)})
    return POLICY.format(hashes="".join(sorted(set(hashes))),
                         styles=(" 'unsafe-hashes'" + "".join(styles)) if styles else "")


def with_policy(html: str) -> str:
    """``html`` with the Content-Security-Policy meta element first in its head."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy_for(html)}">'
    return re.sub(r"<head>", lambda m: m.group(0) + "\n    " + meta, html, count=1)


def add_policy(app, exception) -> None:
    """Put the policy into every HTML page the build wrote."""
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if 'http-equiv="Content-Security-Policy"' not in text:
            page.write_text(with_policy(text), encoding="utf-8")


def setup(app):
    app.connect("doctree-read", raw_html_as_text)
    app.connect("build-finished", add_policy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
