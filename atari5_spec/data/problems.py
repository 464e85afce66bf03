"""A problem found in the data package or a submission: the file, the line, the column, what is wrong and the fix.

A leaf of the data layer (standard library only): validation, the registries'
checks and the contribution checks all report :class:`Problem`, and none of
them has to import another to do so.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Problem", "format_problems"]


class Problem(NamedTuple):
    """One thing wrong with the package, located and with a fix."""

    file: str
    row: int | None  # line number in the file (header is line 1); None for file-level problems
    column: str | None
    message: str
    fix: str

    def __str__(self) -> str:
        where = self.file + (f", line {self.row}" if self.row else "") + (f", column {self.column!r}" if self.column else "")
        return f"{where}: {self.message}\n    fix: {self.fix}"


def format_problems(problems: list[Problem]) -> str:
    return "\n".join(str(p) for p in problems)
