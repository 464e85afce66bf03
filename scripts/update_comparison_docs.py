"""Print, and write into docs/comparisons.md, what stands behind every comparison of two agents.

    python scripts/update_comparison_docs.py           # print the figures and rewrite the generated blocks
    python scripts/update_comparison_docs.py --check   # exit 1 if a block differs (tests/test_comparisons.py)

Every figure is computed from the pinned calibration ``score`` uses (the default version's newest pinned
edition): the default ratio interval's coverage, width and decision rate per band of true ratio on pairs from
two papers; the same-setup designs compared leave-one-paper-out on pairs from one paper, and the one chosen;
whether pairs from one paper share their error; and the edges where no direction is stated (the measured
range, episode caps, games below random), with the agents the data hold there; every calibration edition's
two-paper ratio interval on pairs of never-selected agents (the pinned formula's errors), per band of true ratio;
and where the shared error by paper comes from (fold models or the pinned formula); the pairs the 95% interval
decided the wrong way, and every decision margin measured leave-one-paper-out (issue 33). Blocks are marked
``<!-- NAME:start -->`` ... ``<!-- NAME:end -->``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atari5_spec
from atari5_spec.method.calibration import read_calibration
from atari5_spec_research.evaluation.calibration_choice import choice_blocks, shared_error_by_scoring
from atari5_spec_research.direction_report import margins_markdown, subset_margins_markdown, wrong_way_markdown
from atari5_spec_research.evaluation.claims_report import REPORTED
from atari5_spec_research.pair_evaluation import comparison_markdown, setup_spread_markdown
from atari5_spec.method.pairs import STANDARD_EPISODE_FRAMES, measured_range, pair_agents
from atari5_spec.method.pinned import load_coefficient_set
from atari5_spec.scoring.protocol_conditions import agents_below_random, episode_caps
from update_accuracy_docs import replace_block  # the same generated-block markers; scripts/ is on sys.path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "comparisons.md"
SUBSET = "Atari-5"


def _agents_table(rows: list[dict]) -> list[str]:
    lines = ["| agent | paper | estimate | true median | (1 + estimate) / (1 + true median) | range |",
             "|---|---|---:|---:|---:|---|"]
    lines += [f"| {r['agent']} | {r['paper']} | {float(r['estimate']):,.1f} | {float(r['true_median']):,.1f} | "
              f"{float(r['ratio']):.2f} | {r.get('range') or ''} |"
              for r in sorted(rows, key=lambda r: r["agent"])]
    return lines


def edges_markdown(calibration, coefficients, root: Path) -> str:
    """Where no direction is stated, and what the calibration holds there."""
    rows = [r for r in calibration.rows if r["subset"] == SUBSET]
    span = measured_range(pair_agents(calibration, SUBSET))
    below = [r for r in rows if float(r["estimate"]) < span.low]
    lines = [f"Calibration `{calibration.name}`, {SUBSET}. The pair coverage was measured on {span.n_agents} agents "
             f"with estimates from {span.low:,.0f} to {span.high:,.1f}; {len(below)} agents of the calibration are "
             "below that range (their errors are in the single-agent extrapolation interval, in no pair).", ""]
    caps = episode_caps(root)
    capped = [r for r in rows if caps.get(r["algorithm_id"], STANDARD_EPISODE_FRAMES) != STANDARD_EPISODE_FRAMES]
    lines += [f"Agents with an episode cap other than {STANDARD_EPISODE_FRAMES:,} frames: {len(capped)}"
              + (":" if capped else " (every other agent states the standard cap or none)."), ""]
    if capped:
        lines += ["| agent | cap (frames) | estimate | true median | (1 + estimate) / (1 + true median) |",
                  "|---|---:|---:|---:|---:|"]
        lines += [f"| {r['agent']} | {caps[r['algorithm_id']]:,} | {float(r['estimate']):,.1f} | "
                  f"{float(r['true_median']):,.1f} | {float(r['ratio']):.2f} |" for r in capped]
        lines.append("")
    model = coefficients.subsets[SUBSET]
    agents = agents_below_random(model.games, coefficients.constants, root)
    under = [r for r in rows if r["agent"] in agents]
    lines += [f"Agents with a game of {SUBSET} below random play (clipped to random play by the formula): "
              f"{len(under)}:", ""] + _agents_table(under)
    return "\n".join(lines) + "\n"


def blocks(root: Path = ROOT) -> dict[str, str]:
    coefficients = load_coefficient_set(None, root)
    calibration = read_calibration(coefficients.path)
    out = comparison_markdown(calibration, SUBSET)
    out["edges"] = edges_markdown(calibration, coefficients, root)
    dataset = atari5_spec.load(root)
    out["ratio-choice"] = choice_blocks(dataset, coefficients.version, REPORTED)["ratio-choice"]
    out["shared-error-sources"] = shared_error_by_scoring(dataset, coefficients.version, SUBSET)
    formula = read_calibration(coefficients.path, "formula")
    spread = {c.name: c for c in (calibration, formula) if c is not None}  # one block per distinct edition
    out["setup-spread"] = "\n".join(setup_spread_markdown(c, SUBSET) for c in spread.values())
    out["wrong-way"] = wrong_way_markdown(calibration, SUBSET)
    out["direction-margins"] = margins_markdown(calibration, SUBSET)
    out["direction-subsets"] = subset_margins_markdown(calibration)
    return out


def main(argv: list[str]) -> int:
    generated = blocks()
    text = PAGE.read_text(encoding="utf-8")
    new = text
    for name, content in generated.items():
        new = replace_block(new, name, content)
    if "--check" in argv:
        print("stale: docs/comparisons.md" if new != text else "docs/comparisons.md is up to date")
        return 1 if new != text else 0
    for name, content in generated.items():
        print(f"== {name}\n{content}")
    if new != text:
        PAGE.write_text(new, encoding="utf-8")
        print("rewrote: docs/comparisons.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
