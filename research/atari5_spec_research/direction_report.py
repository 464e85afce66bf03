"""The generated blocks of docs/comparisons.md about directions (issue 33): which pairs the 95% interval decided
the wrong way, and every decision margin of the grid measured leave-one-paper-out, with the chosen one.

Printed by ``python scripts/update_comparison_docs.py``; the numbers come from :mod:`.decision_margin` on the
calibration ``score`` uses, the same functions the interval table's direction rows are written with.
"""

from __future__ import annotations

from typing import Sequence

from atari5_spec.method.calibration import NEVER_SELECTED
from atari5_spec.method.decision_margin import MARGINS, PairSet, choose_margin, decisions, margin_results, never_selected_pair_set, same_setup_pair_set, two_paper_pair_set
from atari5_spec_research.pair_evaluation import BANDS
from atari5_spec.method.pairs import pair_agents

__all__ = ["wrong_way_markdown", "margins_markdown", "subset_margins_markdown", "design_sets"]


def design_sets(calibration, subset: str, level: float = 0.95) -> dict[str, list[PairSet]]:
    """design -> the pair populations its margin is chosen on: two papers (every in-range pair from two papers,
    and the never-selected ones among them), same setup (pairs from one paper, the same-setup model)."""
    agents = pair_agents(calibration, subset)
    never = {r["agent"] for r in calibration.rows if r["subset"] == subset and r.get("kind") == NEVER_SELECTED}
    return {"two papers": [two_paper_pair_set(agents, level), never_selected_pair_set(agents, never, level)],
            "same setup": [same_setup_pair_set(agents, level)]}


def _kind(calibration, subset: str) -> dict[str, str]:
    return {r["agent"]: ("never selected" if r.get("kind") == NEVER_SELECTED else "used by the selection")
            for r in calibration.rows if r["subset"] == subset}


def wrong_way_markdown(calibration, subset: str = "Atari-5", level: float = 0.95) -> str:
    """Every pair the 95% interval (margin 1) decides the wrong way, per design."""
    kind = _kind(calibration, subset)
    lines = [f"Calibration `{calibration.name}`, {subset}: the pairs whose {level:.0%} interval excludes 1 on the wrong "
             "side (each half-width calibrated without the pair's papers):", "",
             "| design | agent (paper; how it was used) | baseline (paper; how it was used) | estimated ratio | "
             "true ratio | interval end beyond 1 | agent error, baseline error (log10 true / estimate) |",
             "|---|---|---|---:|---:|---:|---:|"]
    count = 0
    for design, sets in design_sets(calibration, subset, level).items():
        pairs = sets[0]
        _, wrong = decisions(pairs, 1.0)
        for pair, estimated, half, bad in zip(pairs.pairs, pairs.estimated, pairs.half, wrong):
            if not bad:
                continue
            count += 1
            a, b = pair.first, pair.second
            end = 10.0 ** (estimated - half) if estimated > 0 else 10.0 ** (estimated + half)
            lines.append(f"| {design} | {a.agent} ({a.paper}; {kind[a.agent]}) | {b.agent} ({b.paper}; "
                         f"{kind[b.agent]}) | {10.0 ** estimated:.2f} | {a.true_median / b.true_median:.2f} | "
                         f"{'low' if estimated > 0 else 'high'} {end:.3f} | {a.plain_error:+.3f}, "
                         f"{b.plain_error:+.3f} |")
    lines += ["", f"Wrong-way decisions: {count}."]
    return "\n".join(lines) + "\n"


def _bands(bands) -> list[str]:
    return [f"{d}/{n} ({d / n:.0%})" if n else "-" for d, n in bands]


def margins_markdown(calibration, subset: str = "Atari-5", level: float = 0.95) -> str:
    """Every margin of the grid on every population of each design, then the nested rule, and the margin chosen."""
    header = ("| design | pairs | margin | n | " + " | ".join(f"decided, true ratio {b}" for b, _, _ in BANDS)
              + " | wrong way | 95% bound of the wrong-way rate (clustered by paper) | runs | papers |")
    lines = [f"Calibration `{calibration.name}`, {subset}, the {level:.0%} ratio intervals: pairs decided (the "
             "interval with its log half-widths times the margin excludes 1) per band of true ratio, and wrong-way "
             "decisions, for every margin of the grid; `nested` chooses each pair's margin on the pairs that share "
             "none of its papers (out of sample):", "", header, "|---|---|---:|---:|" + "---:|" * len(BANDS)
             + "---:|---:|---:|---:|"]
    chosen, nested = {}, {}
    for design, sets in design_sets(calibration, subset, level).items():
        chosen[design] = choose_margin([s for s in sets if s.pairs])
        for r in margin_results(sets):
            if r.margin is None:
                nested[(design, r.population)] = r
            margin = "nested" if r.margin is None else f"{r.margin:g}"
            lines.append(f"| {design} | {r.population} | {margin} | {r.n} | " + " | ".join(_bands(r.bands))
                         + f" | {r.wrong_way} | {r.wrong_high:.1%} | {r.runs} | {r.papers} |")
    lines.append("")
    lines += [f"Chosen margin ({design}; the smallest of {', '.join(f'{k:g}' for k in MARGINS)} with no wrong-way "
              f"decision): **{'none: no direction' if k is None else f'{k:g}'}**." for design, k in chosen.items()]
    lines.append("")
    for (design, population), r in nested.items():
        verdict = ("none went the wrong way: the margin's guarantee is measured" if r.wrong_way == 0 else
                   f"{r.wrong_way} went the wrong way: the guarantee is NOT demonstrated out of sample (the margin "
                   "chosen without each such pair's papers did not prevent it)")
        lines.append(f"Out of sample ({design}, {population}, nested): of {r.n} pairs, {verdict}.")
    return "\n".join(lines) + "\n"


def subset_margins_markdown(calibration, subsets: Sequence[str] | None = None, level: float = 0.95) -> str:
    """Per subset and design: the chosen margin, the decided share per band under it, and the nested count."""
    subsets = subsets or list(dict.fromkeys(r["subset"] for r in calibration.rows))
    lines = [f"Calibration `{calibration.name}`, {level:.0%} ratio intervals, every subset: the margin each design "
             "states a direction with, pairs decided under it per band of true ratio, wrong-way decisions under "
             "it (in sample: 0 by the rule) and under the nested rule (each pair's margin chosen without its "
             "papers):", "",
             "| subset | design | margin | pairs | " + " | ".join(f"decided, {b}" for b, _, _ in BANDS)
             + " | wrong way, nested |", "|---|---|---:|---:|" + "---:|" * len(BANDS) + "---:|"]
    for subset in subsets:
        if len(pair_agents(calibration, subset)) < 2:
            continue
        for design, every in design_sets(calibration, subset, level).items():
            sets = [s for s in every[:1] if s.pairs]
            if not sets:
                continue
            k = choose_margin([s for s in every if s.pairs])
            results = {(r.population, r.margin): r for r in margin_results(sets)}
            nested = results[(sets[0].name, None)]
            shown = results.get((sets[0].name, k))
            bands = _bands(shown.bands) if shown else ["-"] * len(BANDS)
            lines.append(f"| {subset} | {design} | {'none' if k is None else f'{k:g}'} | {len(sets[0].pairs)} | "
                         + " | ".join(bands) + f" | {nested.wrong_way} |")
    return "\n".join(lines) + "\n"

