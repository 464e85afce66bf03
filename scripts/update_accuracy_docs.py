"""Regenerate the generated blocks of docs/out-of-sample.md and docs/method.md from the pinned calibrations.

    python scripts/update_accuracy_docs.py          # rewrite the blocks in place
    python scripts/update_accuracy_docs.py --check  # exit 1 if a block differs (what tests/test_evaluation_docs.py checks)

Blocks are marked ``<!-- NAME:start -->`` ... ``<!-- NAME:end -->``:
paper-2023 and refit-2026-11 (every pinned error, pooled calibration), designs
(the interval designs compared leave-one-paper-out), subset-claims (every
subset's interval as `score` uses it, per version and protocol group: what
scripts/measure_subset_claims.py prints), intervals (the ratio interval on the
default calibration), calibration-choice (every calibration edition judged on
the never-selected agents scored by the pinned formula, and the rule's
choice), subset-claims-formula (the formula calibration's claims);
docs/method.md's accuracy block (the README's until issue 32 moved it) is the
default version's subset claims and the ratio interval.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atari5_spec
from atari5_spec_research.evaluation.calibration_choice import choice_blocks
from atari5_spec_research.evaluation.claims_report import REPORTED, claims_markdown
from atari5_spec_research.evaluation.designs import designs_markdown
from atari5_spec_research.evaluation.report import interval_markdown, pinned_markdown

ROOT = Path(__file__).resolve().parents[1]
README_GROUPS = ("in range", "in range, held-out", "extrapolation")  # docs/method.md's short table; out-of-sample: all


def blocks(root: Path = ROOT) -> dict[Path, dict[str, str]]:
    dataset = atari5_spec.load(root, scores="all")
    return {
        root / "docs" / "out-of-sample.md": {
            "paper-2023": pinned_markdown(root, "paper-2023"),
            "refit-2026-11": pinned_markdown(root, "refit-2026-11"),
            "designs": designs_markdown(dataset, "paper-2023"),
            "subset-claims": claims_markdown(root, ("paper-2023", "refit-2026-11")),
            "calibration-choice": choice_blocks(dataset, "paper-2023", REPORTED)["calibration-choice"],
            "subset-claims-formula": claims_markdown(root, ("paper-2023",), method="formula"),
            "intervals": interval_markdown(root, "paper-2023"),
        },
        root / "docs" / "method.md": {"accuracy": claims_markdown(root, ("paper-2023",), groups=README_GROUPS) + "\n"
                             + interval_markdown(root, "paper-2023")},
    }


def replace_block(text: str, name: str, content: str) -> str:
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
    head, rest = text.split(start)
    _, tail = rest.split(end)
    return head + start + content + end + tail


def main(argv: list[str]) -> int:
    stale = []
    for path, generated in blocks().items():
        text = path.read_text(encoding="utf-8")
        new = text
        for name, content in generated.items():
            new = replace_block(new, name, content)
        if new != text:
            stale.append(path.name)
            if "--check" not in argv:
                path.write_text(new, encoding="utf-8")
    print(("stale: " if "--check" in argv else "rewrote: ") + (", ".join(stale) or "nothing"))
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
