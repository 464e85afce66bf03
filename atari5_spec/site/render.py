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


def markdown_html(text: str) -> Markup:
    """CommonMark with tables; raw HTML in the text is shown as text, never passed through."""
    import re

    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    # Column alignment as a class, not a style attribute: the pages' Content-Security-Policy allows no inline style.
    return Markup(re.sub(r' style="text-align:(left|right|center)"', r' class="align-\1"', html))


def markdown_document(text: str, default_title: str) -> tuple[str, Markup]:
    """(title, body): the document's first-level heading as the page title, the rest as HTML."""
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        return lines[0][2:].strip(), markdown_html("\n".join(lines[1:]))
    return default_title, markdown_html(text)


def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters["json"] = inline_json
    return env
