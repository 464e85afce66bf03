"""How many test assertions pin English sentences: the share issue 44 asks to bring to at most ~12%.

An assertion pins wording when a string constant inside it holds two or more words separated by a space (a
sentence or a fragment of one); numbers, ids, single words and paths do not count. Every ``assert`` statement of
the three distributions' test folders (tests/, research/tests/, maintainers/tests/) is counted once.

    python scripts/wording_share.py          # the share, then the files with the most such assertions
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_FOLDERS = ("tests", "research/tests", "maintainers/tests")
WORDS = re.compile(r"[A-Za-z]{2,}")


def pins_wording(node: ast.Assert) -> bool:
    """Does the assertion hold a string of two or more words with a space between them?"""
    return any(isinstance(c, ast.Constant) and isinstance(c.value, str) and " " in c.value.strip()
               and len(WORDS.findall(c.value)) >= 2 for c in ast.walk(node.test))


def assertion_counts(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """Test file (relative path) -> (assertions, assertions pinning wording)."""
    counts = {}
    for folder in TEST_FOLDERS:
        for path in sorted((root / folder).rglob("test_*.py")):
            asserts = [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Assert)]
            counts[path.relative_to(root).as_posix()] = (len(asserts), sum(map(pins_wording, asserts)))
    return counts


def wording_share(counts: dict[str, tuple[int, int]]) -> tuple[int, int]:
    """(assertions pinning wording, assertions) over every file."""
    return sum(w for _, w in counts.values()), sum(a for a, _ in counts.values())


def main() -> int:
    counts = assertion_counts()
    wording, total = wording_share(counts)
    print(f"{wording} of {total} assertions pin wording ({wording / total:.1%}; the target is at most 12%)")
    for path, n in Counter({p: w for p, (_, w) in counts.items()}).most_common(15):
        print(f"{n:5d} of {counts[path][0]:4d}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
