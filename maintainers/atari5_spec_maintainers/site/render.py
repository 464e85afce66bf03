"""HTML from the templates: Jinja2 with autoescaping, each page's data inlined as JSON, Markdown as HTML.

Names come from contributions, so everything is escaped unless marked safe:
autoescaping for HTML, :func:`inline_json` for data inside ``<script>``
(``<``, ``>``, ``&`` and every non-ASCII character, U+2028 and U+2029
included, written as ``\\uXXXX``: the text can neither close the element nor
break a line), and Markdown rendered with raw HTML disabled.
"""

from __future__ import annotations

import json
from pathlib import Path

import jinja2
from markupsafe import Markup

__all__ = ["environment", "inline_json", "markdown_html", "markdown_document", "TEMPLATES", "STATIC"]

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"


def inline_json(value) -> Markup:
    """JSON safe inside ``<script type="application/json">``: no '<', '>', '&' or non-ASCII character as is."""
    text = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _link_target(href: str, where: str, docs_dir: str | None) -> str | None:
    """Where a link of a repository document points on the site: kept with a scheme or as an anchor; another
    Markdown page under docs/ becomes its page on the documentation site (``docs_dir``); None (the link is dropped,
    its text kept) for any other relative link, a file of the repository that is not on the site."""
    import posixpath
    from urllib.parse import urlsplit

    parts = urlsplit(href)
    if parts.scheme or href.startswith("#"):
        return href
    target = posixpath.normpath(posixpath.join(where, parts.path))
    if docs_dir is not None and target.startswith("docs/") and target.endswith(".md"):
        return docs_dir + target[len("docs/"):-len(".md")] + ".html" + (f"#{parts.fragment}" if parts.fragment else "")
    return None


def _rewrite_links(children, where: str, docs_dir: str | None) -> None:
    dropped = False
    for token in children:
        if token.type == "link_open":
            target = _link_target(str(token.attrGet("href") or ""), where, docs_dir)
            dropped = target is None
            if dropped:
                token.type, token.content = "html_inline", ""
            else:
                token.attrSet("href", target)
        elif token.type == "link_close" and dropped:  # links do not nest in CommonMark
            token.type, token.content = "html_inline", ""
            dropped = False


def markdown_html(text: str, where: str = "", docs_dir: str | None = None) -> Markup:
    """CommonMark with tables; raw HTML in the text is shown as text, never passed through. ``where``: the
    document's folder in the repository ('docs/'), ``docs_dir`` the documentation site's address from the page,
    for the document's relative links (:func:`_link_target`)."""
    import re

    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    for token in tokens:
        if token.children:
            _rewrite_links(token.children, where, docs_dir)
    html = md.renderer.render(tokens, md.options, {})
    # Column alignment as a class, not a style attribute: the pages' Content-Security-Policy allows no inline style.
    html = re.sub(r' style="text-align:(left|right|center)"', r' class="align-\1"', html)
    # A wide table scrolls inside its own region, which the keyboard can reach (focusable, labelled).
    html = html.replace("<table>", '<div class="scroll" tabindex="0" role="region" aria-label="table"><table>')
    return Markup(html.replace("</table>", "</table></div>"))


def markdown_document(text: str, default_title: str, where: str = "", docs_dir: str | None = None
                      ) -> tuple[str, Markup]:
    """(title, body): the document's first-level heading as the page title, the rest as HTML."""
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        return lines[0][2:].strip(), markdown_html("\n".join(lines[1:]), where, docs_dir)
    return default_title, markdown_html(text, where, docs_dir)


def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters["json"] = inline_json
    return env
