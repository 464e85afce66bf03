"""Rewrite the README's table of results after 2022 from the data (tests/test_contributed_results.py checks it).

Usage: python scripts/update_readme_results.py [README.md]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from atari5_spec_research.analyses.contributed_results import README_BLOCK, contributed_results, results_markdown  # noqa: E402
from atari5_spec.data.loading import load  # noqa: E402
from atari5_spec.data.writing import write_text_atomic  # noqa: E402


def main(argv: list[str]) -> int:
    readme = Path(argv[0]) if argv else ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    start, end = f"<!-- {README_BLOCK}:start -->\n", f"<!-- {README_BLOCK}:end -->"
    before, rest = text.split(start, 1)
    _, after = rest.split(end, 1)
    table = results_markdown(contributed_results(load(ROOT), "paper-2023"))
    write_text_atomic(readme, before + start + table + end + after)
    print(f"{readme}: {table.count(chr(10)) - 2} results after 2022")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
