"""Field tables of the result types, generated from their class definitions at build time.

Each result type is a named tuple whose fields carry a trailing comment saying what they hold; this
writes docs/_generated/fields-<Class>.md (git-ignored) with one row per field: its name, its type as
annotated and that comment, so the API reference lists every field without anyone copying them.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from pathlib import Path

# (package, class): the standard's result types, then the research distribution's.
RESULT_TYPES = [("atari5_spec", name) for name in ("ScoreResult", "SubsetScore", "RelativeResult", "PredictionResult",
                                                   "Leaderboard", "Dataset", "Signature", "SignatureCheck", "Citation")]
RESULT_TYPES += [("atari5_spec_research", name) for name in ("RunAggregates", "RunsMatrix")]


def field_rows(cls) -> list[tuple[str, str, str]]:
    """(name, annotation, trailing comment) of each annotated field of ``cls``'s body, in order."""
    source = textwrap.dedent(inspect.getsource(cls))
    lines = source.splitlines()
    body = ast.parse(source).body[0].body
    rows = []
    for node in body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            line = lines[node.lineno - 1]
            comment = line.split("#", 1)[1].strip() if "#" in line else ""
            rows.append((node.target.id, ast.unparse(node.annotation), comment))
    return rows


def _cell(text: str) -> str:
    """A table cell of prose: the project's one escaping (atari5_spec/data/markdown.py), and '*' (no emphasis)."""
    from atari5_spec.data.markdown import markdown_text

    return markdown_text(text).replace("*", "\\*")


def _code_cell(text: str) -> str:
    """A table cell in a code span, where nothing is markup but the table's '|' (and a backtick ends it)."""
    return " ".join(text.replace("`", "'").split()).replace("|", "\\|")


def write_field_tables(folder: Path) -> list[Path]:
    folder.mkdir(exist_ok=True)
    written = []
    for package, name in RESULT_TYPES:
        cls = getattr(importlib.import_module(package), name)
        rows = field_rows(cls)
        table = ("| field | type | what it holds |\n|---|---|---|\n"
                 + "".join(f"| `{field}` | `{_code_cell(kind)}` | {_cell(comment)} |\n" for field, kind, comment in rows))
        path = folder / f"fields-{name}.md"
        if not path.exists() or path.read_text(encoding="utf-8") != table:
            path.write_text(table, encoding="utf-8")
        written.append(path)
    importlib.invalidate_caches()
    return written
