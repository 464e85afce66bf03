"""Paper-ready tables at the command line's edge: one :class:`Table` rendered as text, Markdown or LaTeX.

``score``, ``leaderboard`` and ``aggregate`` build a Table of text cells from
their result objects' numbers (``--format markdown|latex``); this module only
lays the cells out and escapes them, so a name such as ``Q*bert`` or
``R2D2 (100%)`` prints as written in every format:

* Markdown: a CommonMark/GFM pipe table; every ASCII punctuation character
  of a cell is backslash-escaped (``|`` cannot end a cell, ``*`` cannot start
  emphasis), and a caption and notes are plain paragraphs.
* LaTeX: a ``table`` with a ``tabular`` (``\\hline`` rules, no package
  needed), the ten special characters escaped, the caption and a label, the
  notes below in ``\\footnotesize``.

Standard library only.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Table", "FORMATS", "render", "as_text", "as_markdown", "as_latex", "latex_escape", "markdown_escape"]

FORMATS = ("text", "json", "markdown", "latex")

_LATEX = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
          "^": r"\textasciicircum{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}", "|": r"\textbar{}\allowbreak{}",
          "<": r"\textless{}", ">": r"\textgreater{}",
          # Characters pdflatex's default UTF-8 input does not set up (algorithm names such as DrQ(ε)).
          "\u03b5": r"$\varepsilon$", "\u03b1": r"$\alpha$", "\u03b2": r"$\beta$", "\u03b3": r"$\gamma$",
          "\u03bb": r"$\lambda$", "\u03bc": r"$\mu$", "\u03c0": r"$\pi$", "\u03c3": r"$\sigma$",
          "\u00b1": r"$\pm$", "\u00d7": r"$\times$", "\u2212": "-", "\u2013": "--", "\u2014": "---"}
# Characters that are Markdown syntax inside a line (CommonMark backslash escapes): '|' would end a table cell.
_MARKDOWN = frozenset("\\`*_[]<>|~")
_MARKDOWN_LINE_START = frozenset("#+-=>")


class Table(NamedTuple):
    """A table of text cells: ``align`` has one letter per column (``l`` or ``r``)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: str
    caption: str = ""
    notes: tuple[str, ...] = ()
    label: str = ""  # LaTeX \label, e.g. "tab:atari5"


def latex_escape(text: str) -> str:
    """``text`` for LaTeX text mode: the ten special characters escaped, '|', '<' and '>' as their text
    commands (the default OT1 font prints other glyphs for them), a break allowed after '|' (a signature), and
    the Greek letters and signs algorithm names use in math mode."""
    return "".join(_LATEX.get(c, c) for c in text)


def markdown_escape(text: str, line_start: bool = False) -> str:
    """``text`` as literal Markdown: its syntax characters backslash-escaped (CommonMark 2.4), and with
    ``line_start`` (a paragraph) a first character that would start a heading, list or quote; plain text
    (numbers, names) stays readable."""
    escaped = "".join("\\" + c if c in _MARKDOWN else c for c in text)
    return "\\" + escaped if line_start and escaped[:1] in _MARKDOWN_LINE_START else escaped


def as_text(table: Table) -> str:
    """Columns padded to their widest cell (left or right as ``align``), the caption above, notes below."""
    widths = [max(len(c) for c in column) for column in zip(table.columns, *table.rows)]

    def line(cells):
        return "  ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(cells, widths, table.align)).rstrip()

    out = ([table.caption, ""] if table.caption else []) + [line(table.columns)]
    out += [line(row) for row in table.rows]
    return "\n".join(out + ([""] + list(table.notes) if table.notes else []))


def as_markdown(table: Table) -> str:
    """A GFM pipe table with a caption paragraph above and the notes below."""
    rule = {"l": ":---", "r": "---:"}

    def line(cells):
        return "| " + " | ".join(markdown_escape(c) for c in cells) + " |"

    out = ([f"**{markdown_escape(table.caption)}**", ""] if table.caption else []) + [line(table.columns)]
    out.append("| " + " | ".join(rule[a] for a in table.align) + " |")
    out += [line(row) for row in table.rows]
    for note in table.notes:  # one paragraph each
        out += ["", markdown_escape(note, line_start=True)]
    return "\n".join(out)


def as_latex(table: Table) -> str:
    """A ``table`` float: caption, label, a ``tabular`` with \\hline rules, then the notes (no package needed)."""
    out = ["\\begin{table}[t]", "\\centering"]
    if table.caption:
        out.append(f"\\caption{{{latex_escape(table.caption)}}}")
    if table.label:
        out.append(f"\\label{{{table.label}}}")
    out += [f"\\begin{{tabular}}{{{table.align}}}", "\\hline",
            " & ".join(latex_escape(c) for c in table.columns) + " \\\\", "\\hline"]
    out += [" & ".join(latex_escape(c) for c in row) + " \\\\" for row in table.rows]
    out += ["\\hline", "\\end{tabular}"]
    if table.notes:
        out += ["", "\\smallskip", "{\\footnotesize"] + [latex_escape(n) + "\\par" for n in table.notes] + ["}"]
    out.append("\\end{table}")
    return "\n".join(out)


def render(table: Table, form: str) -> str:
    """``table`` as ``form`` ('text', 'markdown' or 'latex')."""
    return {"text": as_text, "markdown": as_markdown, "latex": as_latex}[form](table)
