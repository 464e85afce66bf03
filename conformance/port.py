"""An Atari-5 scorer written from SPEC.md alone: the Python standard library, no atari5_spec, no numpy.

It exists to show that SPEC.md is enough to port the standard: run it on the conformance vectors,

    python conformance/port.py [conformance/vectors.json]

and it prints one line per failing case and exits 1 when any case differs (tolerance and printing as SPEC.md
section 12 says). tests/test_conformance.py runs it in a fresh interpreter with no path to the package.
"""

import json
import math
import re
import sys
from pathlib import Path

PLAIN = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def score_value(x):                           # section 1: None when refused
    if isinstance(x, str):
        if not PLAIN.fullmatch(x):
            return None
        x = float(x)
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def implausible(params, scores):              # section 1.1: (reason, games) or None
    games = params["coefficients"]["games"]
    best = params.get("input_rules", {}).get("best_published", {})
    above = []
    for g, values in scores.items():
        if g in best and g in games:
            r, h = games[g]["random"], games[g]["human"]
            bound = r + 3 * max(best[g] - r, h - r)
            if any(score_value(x) > bound for x in values):
                above.append(g)
    if above:
        return "above-game-bound", sorted(above)
    means = {g: sum(map(score_value, v)) / len(v) for g, v in scores.items() if g in games and v}
    below = sorted(g for g, m in means.items() if m <= games[g]["random"])
    if len(means) >= 3 and all(abs(m) <= 2 for m in means.values()) and 2 * len(below) > len(means):
        return "looks-normalised", below
    return None


def refused(params, subset, scores):          # sections 1, 1.1 and 4, in this order
    games = params["coefficients"]["subsets"][subset]["games"]
    for reason, found in (("not-a-plain-number", sorted(g for g, v in scores.items()
                                                        if any(score_value(x) is None for x in v))),
                          ("unknown-game", sorted(g for g in scores if g not in params["coefficients"]["games"]))):
        if found:
            return {"reason": reason, "games": found}
    rule = implausible(params, scores) if "input_rules" in params else None
    if rule:
        return {"reason": rule[0], "games": rule[1]}
    missing = [g for g in games if not scores.get(g)]
    return {"reason": "missing-game", "games": missing} if missing else None


def phi(z):                                   # section 3
    return math.log10(1.0 + max(0.0, z))


def phi_inv(s):
    return 10.0 ** s - 1.0


def estimate(params, subset, scores):         # sections 2, 4, 5
    model = params["coefficients"]["subsets"][subset]
    games = params["coefficients"]["games"]
    total = 0.0
    for game, weight in zip(model["games"], model["weights"]):
        values = [score_value(x) for x in scores[game]]
        mean = sum(values) / len(values)
        z = 100.0 * (mean - games[game]["random"]) / (games[game]["human"] - games[game]["random"])
        total += weight * phi(z)
    return phi_inv(total)


def row_for(params, table, interval, subset, range_, level):
    for row in params["interval_tables"][table]:
        if (row["interval"], row["subset"], row["range"], row["level"]) == (interval, subset, range_, level):
            return row
    return None


def prediction_interval(params, case, e, seed):  # sections 6-8
    pooled = any(r["range"] == "pooled" for r in params["interval_tables"][case["calibration"]])
    range_ = "pooled" if pooled else ("in range" if e >= 40.0 else "extrapolation")
    row = row_for(params, case["calibration"], "agent", case["subset"], range_, case["level"])
    if row is None or row["status"] == "withheld" or row["half_width"] is None:
        return range_, None
    h = row["half_width"]
    if pooled:
        lo, hi = (e, e) if seed is None else seed
        return range_, (phi_inv(phi(lo) - h), phi_inv(phi(hi) + h))
    b = a = 0.0
    if seed is not None:
        b, a = max(0.0, phi(e) - phi(seed[0])), max(0.0, phi(seed[1]) - phi(e))  # the clip of section 7
    return range_, (phi_inv(phi(e) - math.hypot(h, b)), phi_inv(phi(e) + math.hypot(h, a)))


def ratio_interval(params, case, ea, eb, pa, pb):  # section 9
    if pa is None or pb is None or ea <= 0:
        return None
    r = ea / eb
    if case["same_setup"]:
        row = row_for(params, case["calibration"], "ratio-same-setup", case["subset"], "in range", case["level"])
        if row is None or row["status"] == "withheld" or row["half_width"] is None:
            return None
        seed, b, a = case["ratio_seed_interval"], 0.0, 0.0
        if seed is not None:                  # r_lo <= 0: b infinite, the lower end 0
            b = max(0.0, math.log10(r / seed[0])) if seed[0] > 0 else math.inf
            a = max(0.0, math.log10(seed[1] / r))
        below, above = math.hypot(row["half_width"], b), math.hypot(row["half_width"], a)
        return r * 10.0 ** -below if math.isfinite(below) else 0.0, r * 10.0 ** above

    def halves(e, interval):
        below = phi(e) - math.log10(1.0 + interval[0]) if interval[0] > -1.0 else math.inf
        above = math.log10(1.0 + interval[1]) - phi(e) if math.isfinite(interval[1]) else math.inf
        return below, above

    (a_below, a_above), (b_below, b_above) = halves(ea, pa), halves(eb, pb)
    below, above = math.hypot(a_below, b_above), math.hypot(a_above, b_below)
    return (r * 10.0 ** -below if math.isfinite(below) else 0.0, r * 10.0 ** above if math.isfinite(above) else math.inf)


def decide(params, case, r, interval):          # section 9, decision
    kind = "direction-same-setup" if case["same_setup"] else "direction-two-papers"
    row = row_for(params, case["calibration"], kind, case["subset"], "in range", case["level"])
    if row is None or row["status"] == "withheld":
        return "cannot tell"
    k, c = row["factor"], math.log10(r)
    low = 10.0 ** (c - k * (c - math.log10(interval[0]))) if interval[0] > 0 else 0.0
    high = 10.0 ** (c + k * (math.log10(interval[1]) - c)) if math.isfinite(interval[1]) else math.inf
    return "higher" if low > 1 else "lower" if high < 1 else "cannot tell"


def printed(x, decimals, grouping):             # section 10
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return format(x, (",." if grouping else ".") + str(decimals) + "f")


def close(expected, got):
    return abs(expected - got) <= 1e-9 * max(1.0, abs(expected))


def check_pair(name, expected, got, problems):
    if (expected is None) != (got is None) or (expected is not None and not all(map(close, expected, got))):
        problems.append(f"{name}: expected {expected}, got {got}")


def check_agent(params, case, agent, expected, problems, where):
    e = estimate(params, case["subset"], agent["scores"])
    range_, interval = prediction_interval(params, case, e, agent["seed_interval"])
    if not close(expected["estimate"], e):
        problems.append(f"{where} estimate: expected {expected['estimate']!r}, got {e!r}")
    if range_ != expected["range"]:
        problems.append(f"{where} range: expected {expected['range']}, got {range_}")
    check_pair(f"{where} prediction interval", expected["prediction_interval"], interval, problems)
    shown = {"estimate": printed(e, 1, True),
             "prediction_interval": None if interval is None else [printed(v, 1, True) for v in interval]}
    if shown != expected["printed"]:
        problems.append(f"{where} printed: expected {expected['printed']}, got {shown}")
    return e, interval


def check(vectors):
    problems = []
    for case in vectors["cases"]:
        expected = case["expected"]
        sides = [("", case)] if case["kind"] == "score" else [("agent", case["agent"]), ("baseline", case["baseline"])]
        refusal = next(({**r, **({"side": s} if s else {})} for s, a in sides
                        for r in [refused(vectors, case["subset"], a["scores"])] if r), None)
        if refusal is None and case["kind"] == "ratio" and estimate(vectors, case["subset"],
                                                                    case["baseline"]["scores"]) <= 0:
            refusal = {"reason": "baseline-at-random", "games": [], "side": "baseline"}  # section 9
        if refusal is not None or "refused" in expected:
            if expected.get("refused") != refusal:
                problems.append(f"{case['id']} refused: expected {expected.get('refused')}, got {refusal}")
            continue
        if case["kind"] == "score":
            check_agent(vectors, case, case, expected, problems, case["id"])
            continue
        ea, pa = check_agent(vectors, case, case["agent"], expected["agent"], problems, case["id"] + " agent")
        eb, pb = check_agent(vectors, case, case["baseline"], expected["baseline"], problems, case["id"] + " baseline")
        r, interval = ea / eb, ratio_interval(vectors, case, ea, eb, pa, pb)
        if not close(expected["ratio"], r):
            problems.append(f"{case['id']} ratio: expected {expected['ratio']!r}, got {r!r}")
        check_pair(f"{case['id']} ratio interval", expected["ratio_interval"], interval, problems)
        decision = None if interval is None else decide(vectors, case, r, interval)
        shown = {"ratio": printed(r, 3, False),
                 "ratio_interval": None if interval is None else [printed(v, 3, False) for v in interval]}
        if decision != expected["decision"] or shown != expected["printed"]:
            problems.append(f"{case['id']}: expected {expected['decision']} {expected['printed']}, got {decision} "
                            f"{shown}")
    return problems


if __name__ == "__main__":
    path = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("vectors.json"))
    vectors = json.loads(path.read_text(encoding="utf-8"))
    problems = check(vectors)
    for line in problems:
        print(line)
    print(f"{len(vectors['cases']) - len({p.split()[0] for p in problems})} of {len(vectors['cases'])} cases "
          "reproduced from SPEC.md alone")
    sys.exit(1 if problems else 0)
