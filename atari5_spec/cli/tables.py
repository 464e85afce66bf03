"""Paper-ready tables at the command line's edge: one :class:`Table` rendered as text, Markdown or LaTeX.

``score``, ``leaderboard`` and ``aggregate`` build a Table of text cells from
their result objects' numbers (``--format markdown|latex``); this module only
lays the cells out and escapes them, so a name such as ``Q*bert`` or
``R2D2 (100%)`` prints as written in every format:

* Markdown: a CommonMark/GFM pipe table; every ASCII punctuation character
  of a cell is backslash-escaped (``|`` cannot end a cell, ``*`` cannot start
  emphasis), and a caption and notes are plain paragraphs.
* LaTeX: ``table`` floats with a ``tabular`` (``\\hline`` rules, no package
  needed) in footnotesize that fits the text width of article (a long name
  wraps, a long header stacks its words), at most 32 rows a float (a longer
  table continues in the next, captioned "(continued)"), the ten special
  characters escaped, the caption and a label, the notes below the last.

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


# One float holds at most this many rows (a footnotesize row is 9.5 pt, a wrapped name two: 32 rows and the caption
# fit the text height of article, about 550 pt); a longer table continues in further floats, its header repeated.
LATEX_ROWS_PER_FLOAT = 32
# A left-aligned column with a cell longer than this wraps in a paragraph column of this share of the line.
LATEX_WRAP_CHARS, LATEX_WRAP_WIDTH = 24, 0.27
LATEX_HEADER_LINE = 12  # characters per line of a header cell (longer headers stack their words)


def _latex_header(text: str, align: str) -> str:
    """A header cell, its words stacked in lines of at most LATEX_HEADER_LINE characters (a nested tabular: no
    package), so a long header does not widen its column of short numbers."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= LATEX_HEADER_LINE:
            lines[-1] += " " + word
        else:
            lines.append(word)
    if len(lines) <= 1:
        return latex_escape(text)
    return (f"\\begin{{tabular}}[b]{{@{{}}{align}@{{}}}}" + "\\\\".join(latex_escape(x) for x in lines)
            + "\\end{tabular}")


def as_latex(table: Table) -> str:
    """``table`` floats, each with the caption (later ones "(continued)"), a ``tabular`` with \\hline rules in
    footnotesize that fits the text width (long names wrap, long headers stack), at most LATEX_ROWS_PER_FLOAT rows
    a float, then the notes below the last; no package needed."""
    wraps = [a == "l" and any(len(row[i]) > LATEX_WRAP_CHARS for row in table.rows)
             for i, a in enumerate(table.align)]
    spec = "".join(f"p{{{LATEX_WRAP_WIDTH}\\linewidth}}" if w else a for a, w in zip(table.align, wraps))

    def cell(text: str, wrap: bool) -> str:
        return ("\\raggedright " if wrap else "") + latex_escape(text)

    header = " & ".join(cell(c, False) if w else _latex_header(c, a)
                        for c, a, w in zip(table.columns, table.align, wraps)) + " \\tabularnewline"
    chunks = [table.rows[i:i + LATEX_ROWS_PER_FLOAT] for i in range(0, len(table.rows), LATEX_ROWS_PER_FLOAT)] or [()]
    out: list[str] = []
    for n, rows in enumerate(chunks):
        out += ["\\begin{table}[t]", "\\centering", "\\footnotesize", "\\setlength{\\tabcolsep}{3pt}"]
        if table.caption:
            out.append(f"\\caption{{{latex_escape(table.caption)}{' (continued)' if n else ''}}}")
        if table.label and n == 0:
            out.append(f"\\label{{{table.label}}}")
        out += [f"\\begin{{tabular}}{{{spec}}}", "\\hline", header, "\\hline"]
        out += [" & ".join(cell(c, w) for c, w in zip(row, wraps)) + " \\tabularnewline" for row in rows]
        out += ["\\hline", "\\end{tabular}"]
        if table.notes and n == len(chunks) - 1:
            out += ["", "\\smallskip", "{\\footnotesize"] + [latex_escape(x) + "\\par" for x in table.notes] + ["}"]
        out.append("\\end{table}")
    return "\n".join(out)


def render(table: Table, form: str) -> str:
    """``table`` as ``form`` ('text', 'markdown' or 'latex')."""
    return {"text": as_text, "markdown": as_markdown, "latex": as_latex}[form](table)
