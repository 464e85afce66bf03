"""What each page of the site shows, as plain values: the leaderboard, an algorithm, a game, the sources.

The leaderboard rows are :func:`atari5_spec.leaderboard`'s own rows: the
unfiltered table (``default``) and the tables filtered by sticky actions
(yes, no, unknown), whose union holds every entry a protocol filter can show
(short training budgets, such as Atari 100k, come back under a filter, as in
the command line). Each row's sticky group is the filter call that returned
it, so the page's filters and ``atari5-spec leaderboard`` cannot disagree.
The interval and signature of a row are those of its calibration band, as the
browser scorer computes them; the first row of each band is recomputed by
:func:`~atari5_spec.scoring.estimate.score_runs` and must agree.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..data.errors import InputError
from ..data.frames import format_frames
from ..method import training
from ..method.pinned import CoefficientSet
from ..scoring.estimate import published_extremes
from ..scoring.ranking import MIN_GAMES_FOR_MEDIAN, leaderboard
from .scorer import band_interval, score_one_seed, subset_bands

__all__ = ["leaderboard_rows", "field_rows", "algorithm_pages", "game_pages", "source_rows", "number", "STICKY_GROUPS"]

# The leaderboard's sticky-action filters: the first three split every entry; any other the installed
# leaderboard() accepts (a finer "unknown", such as "not-stated") becomes one more value of the page's filter.
STICKY_GROUPS = ("yes", "no", "unknown")
STICKY_FILTERS = STICKY_GROUPS + ("not-stated",)


def number(value, places: int = 1) -> str:
    """As the command line prints numbers: thousands separators, ``places`` decimals, '-' for none."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "-"
    return f"{float(value):,.{places}f}"


def _plain(value):
    """A JSON-able Python value (None for missing)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return None if math.isnan(value) else float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _ranked_scores(dataset, games, ranked_ids) -> pd.DataFrame:
    """Per algorithm the leaderboard ranks (``ranked_ids``, short budgets included), its raw score on each of
    ``games``: the rows fits may use, the entry's exclusion set aside since the leaderboard already chose it."""
    algorithms = dataset.algorithms[dataset.algorithms["algorithm_id"].isin(ranked_ids)]
    rows = training.candidate_rows(dataset.scores, algorithms.assign(exclusion=pd.NA), dataset.games)
    pairs = rows[rows["game_id"].isin(games)].groupby(["algorithm_id", "game_id"])["score"].first()
    return pairs.unstack().reindex(columns=list(games)).dropna()


def _checked_interval(raw: pd.Series, estimate: float, bands, coefficients: CoefficientSet, extremes,
                      checked: dict) -> dict[str, Any]:
    """A row's prediction interval and signature from its band (as score.html computes them); the first row of
    each band is recomputed by ``score_runs`` itself and must agree, so a changed rule fails the build."""
    band, low, high = band_interval(estimate, bands)
    finite = low is not None and math.isfinite(low) and math.isfinite(high)
    out = {"low": low if finite else None, "high": high if finite else None, "range": band["range"],
           "signature": band["signature"]}
    if id(band) not in checked:
        result = score_one_seed({g: (float(v),) for g, v in raw.items()}, band["subset"], coefficients, extremes)
        pi = result.prediction_interval
        python = {"low": pi.low if pi and math.isfinite(pi.low) else None,
                  "high": pi.high if pi and math.isfinite(pi.high) else None,
                  "range": pi.range if pi else None, "signature": result.signature}
        same = all(math.isclose(out[k], python[k], rel_tol=1e-12) if isinstance(out[k], float) else out[k] == python[k]
                   for k in out)
        if not same or result.estimate != estimate:
            raise AssertionError(f"the site's interval rule no longer matches `score`: {out} != {python}; update "
                                 "atari5_spec/site/scorer.py and static/site.js together")
        checked[id(band)] = True
    return out


def leaderboard_rows(dataset, coefficients: CoefficientSet, subset: str = "Atari-5"
                     ) -> tuple[list[dict], Any, tuple[str, ...]]:
    """Every row any leaderboard filter can show, best first; the unfiltered board (for its signature); the
    sticky-action filter values the installed leaderboard() accepts."""
    default = leaderboard(dataset=dataset, coefficients=coefficients, subset=subset)
    in_default = {r.algorithm_id for r in default.rows}
    by_id, groups_of, sticky_values = {}, {}, []
    for group in STICKY_FILTERS:
        try:
            board = leaderboard(dataset=dataset, coefficients=coefficients, subset=subset, sticky=group)
        except InputError:
            if group in STICKY_GROUPS:
                raise
            continue  # a filter value this leaderboard() does not know
        sticky_values.append(group)
        for row in board.rows:
            by_id[row.algorithm_id] = row
            groups_of.setdefault(row.algorithm_id, []).append(group)
    raw = _ranked_scores(dataset, coefficients.subsets[default.subset].games, set(by_id))
    extremes = published_extremes(dataset.root)
    only = coefficients._replace(subsets={default.subset: coefficients.subsets[default.subset]})
    bands = [dict(b, subset=default.subset) for b in subset_bands(only.subsets[default.subset], only)]
    checked: dict = {}
    algorithms = dataset.algorithms.set_index("algorithm_id")
    sources = dataset.sources.set_index("source_id")["title"].astype(str)
    out = []
    for row in sorted(by_id.values(), key=lambda r: (-r.estimate, r.algorithm_id)):
        meta = algorithms.loc[row.algorithm_id]
        scored = _checked_interval(raw.loc[row.algorithm_id], row.estimate, bands, only, extremes, checked)
        frames = _plain(row.training_frames)
        source_id = _plain(meta["source_id"])
        out.append({
            "id": row.algorithm_id, "name": row.name, "kind": row.kind,
            "estimate": row.estimate, "low": scored["low"], "high": scored["high"], "range": scored["range"],
            "signature": scored["signature"], "median": row.median, "n_games": row.n_games,
            "regime": _plain(row.regime), "frames": None if frames is None else int(frames),
            "frames_label": None if frames is None else format_frames(int(frames)),
            "sticky": groups_of[row.algorithm_id][0], "sticky_groups": groups_of[row.algorithm_id],
            "sticky_probability": _plain(row.sticky_action_probability),
            "statistic": _plain(row.statistic), "seeds": _plain(row.seeds), "year": _plain(meta["year"]),
            "source_id": source_id, "source": sources.get(source_id, source_id) if source_id else None,
            "default": row.algorithm_id in in_default})
    return out, default, tuple(sticky_values)


def field_rows(dataset, coefficients: CoefficientSet, regime: str = "atari-100k"):
    """The regime ranked by its own field (scoring/field.py), as `leaderboard --only-regime REGIME` ranks it:
    (rows best first, the board); the board's ``field`` is None when the package marks no field games."""
    board = leaderboard(dataset=dataset, coefficients=coefficients, regime=regime)
    rows = [{"rank": r.rank, "id": r.algorithm_id, "name": r.name, "field_median": r.field_median,
             "estimate": r.estimate, "n_games": r.n_games, "frames_label": None if r.training_frames is None
             else format_frames(int(r.training_frames)), "sticky_probability": _plain(r.sticky_action_probability),
             "statistic": _plain(r.statistic), "seeds": _plain(r.seeds)} for r in board.rows]
    return rows, board


def _normalised(raw: float, random: float | None, human: float | None) -> float | None:
    if random is None or human is None or human == random:
        return None
    return 100.0 * (raw - random) / (human - random)


def _budget_points(budget: pd.DataFrame, games: pd.DataFrame, model, coefficients: CoefficientSet) -> list[dict]:
    """Per training budget: the median normalised score over the canonical games (with >= MIN_GAMES_FOR_MEDIAN)
    and the Atari-5 estimate (with its five games), each from the seeds' mean raw score per game."""
    from ..scoring.estimate import subset_estimate

    constants = games.set_index("game_id")[["random_score", "human_score", "in_57"]]
    points = []
    for frames, part in budget.groupby("training_frames", sort=True):
        means = part.groupby("game_id")["score"].mean()
        z = [_normalised(float(v), _plain(constants.loc[g, "random_score"]), _plain(constants.loc[g, "human_score"]))
             for g, v in means.items() if g in constants.index and bool(constants.loc[g, "in_57"])]
        z = [v for v in z if v is not None]
        median = float(np.median(z)) if len(z) >= MIN_GAMES_FOR_MEDIAN else None
        estimate = (float(subset_estimate({g: float(means[g]) for g in model.games}, model, coefficients.constants))
                    if all(g in means.index for g in model.games) else None)
        points.append({"frames": int(frames), "label": format_frames(int(frames)), "median": median,
                       "estimate": estimate, "n_games": len(z)})
    return points


def _shown(value):
    """A protocol value as the CSV writes it: true/false, whole numbers without a decimal point."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) >= 1:
        return str(int(value))
    return value


def _records(frame: pd.DataFrame) -> list[dict]:
    """Rows as dicts of plain Python values (None for missing): fast to look up, unlike pandas rows."""
    return [{k: _plain(v) for k, v in row.items()} for row in frame.astype(object).to_dict("records")]


def algorithm_pages(dataset, coefficients: CoefficientSet, rows: list[dict], subset: str = "Atari-5") -> list[dict]:
    """One dict per algorithm: protocol, every score row with its provenance, seeds, budget curve, estimate."""
    model = coefficients.subsets[subset]
    games = {g["game_id"]: g for g in _records(dataset.games)}
    licences = {s["source_id"]: s["licence"] for s in _records(dataset.sources)}
    ranked = {r["id"]: r for r in rows}
    superseded = set(dataset.scores["supersedes"].dropna().astype(int))
    by_algorithm: dict[str, list[dict]] = {}
    for s in _records(dataset.scores.sort_values(["algorithm_id", "game_id", "score_id"])):
        by_algorithm.setdefault(s["algorithm_id"], []).append(s)
    seeds = dataset.seed_scores if dataset.seed_scores is not None else pd.DataFrame(columns=["algorithm_id"])
    budget = dataset.budget_scores if dataset.budget_scores is not None else pd.DataFrame(columns=["algorithm_id"])
    seed_groups = dict(tuple(seeds.groupby("algorithm_id", sort=True)))
    budget_groups = dict(tuple(budget.groupby("algorithm_id", sort=True)))
    protocol_columns = [c for c in dataset.algorithms.columns if c not in ("algorithm_id", "name")]
    pages = []
    for meta in _records(dataset.algorithms.sort_values("algorithm_id")):
        algorithm_id = str(meta["algorithm_id"])
        score_rows = []
        for s in by_algorithm.get(algorithm_id, []):
            g = s["game_id"]
            game = games.get(g, {})
            score_rows.append({
                "score_id": s["score_id"], "game_id": g, "game": game.get("name", g),
                "raw": number(s["score"], 2), "raw_value": s["raw_value"],
                "normalised": number(_normalised(s["score"], game.get("random_score"), game.get("human_score"))),
                "source_id": s["source_id"], "licence": licences.get(s["source_id"]),
                "provenance": s["provenance"], "used": bool(s["use_in_fit"]) and s["score_id"] not in superseded,
                "in_subset": g in model.games})
        seed_rows = []
        for g, part in seed_groups.get(algorithm_id, pd.DataFrame(columns=["game_id"])).groupby("game_id", sort=True):
            values = part["score"].astype(float)
            runs = [{"seed": _plain(r["seed"]), "score": number(r["score"], 2), "source_id": r["source_id"],
                     "licence": licences.get(r["source_id"]), "provenance": r["provenance"]}
                    for r in _records(part.sort_values("seed")[["seed", "score", "source_id", "provenance"]])]
            seed_rows.append({"game_id": str(g), "game": games.get(g, {}).get("name", str(g)),
                              "n": int(len(values)), "mean": number(values.mean(), 2), "min": number(values.min(), 2),
                              "max": number(values.max(), 2), "runs": runs,
                              "sources": sorted({str(v) for v in part["source_id"]})})
        part = budget_groups.get(algorithm_id)
        curve = _budget_points(part, dataset.games, model, coefficients) if part is not None else []
        curve_sources = ([{"source_id": str(v), "licence": licences.get(str(v))} for v in sorted(set(part["source_id"]))]
                         if part is not None else [])
        pages.append({"id": algorithm_id, "name": str(meta["name"]),
                      "protocol": [(c, _shown(meta[c])) for c in protocol_columns], "scores": score_rows,
                      "seeds": seed_rows, "curve": curve, "curve_sources": curve_sources, "ranked": ranked.get(algorithm_id),
                      "n_used": sum(r["used"] for r in score_rows)})
    return pages


def game_pages(dataset, coefficients_sets: list[CoefficientSet], irt_items: pd.DataFrame | None,
               published_irt: pd.DataFrame | None) -> list[dict]:
    """One dict per game: constants, every algorithm's score (the rows fits may use), coefficients per subset
    in each pinned version, the item-response difficulty (this package's fit and the IRT paper's table)."""
    rows = training.candidate_rows(dataset.scores, dataset.algorithms, dataset.games)
    pairs = rows.groupby(["game_id", "algorithm_id"])["score"].first()
    names = dataset.algorithms.set_index("algorithm_id")["name"].astype(str)
    pages = []
    for _, g in dataset.games.sort_values("game_id").iterrows():
        game_id = str(g["game_id"])
        random, human = _plain(g["random_score"]), _plain(g["human_score"])
        scores = []
        if game_id in pairs.index.get_level_values(0):
            ranked = sorted(pairs.loc[game_id].items(), key=lambda item: (-float(item[1]), str(item[0])))
            for algorithm_id, value in ranked:  # highest first, ties by id (a sort that does not depend on pandas)
                scores.append({"id": str(algorithm_id), "name": names.get(algorithm_id, algorithm_id),
                               "raw": number(value, 2), "normalised": number(_normalised(float(value), random, human))})
        weights = []
        for cs in coefficients_sets:
            for name, model in cs.subsets.items():
                if game_id in model.games:
                    weights.append({"version": cs.version, "subset": name,
                                    "coefficient": f"{model.coefficients[model.games.index(game_id)]:.6f}"})
        irt = None
        if irt_items is not None and game_id in irt_items.index:
            item = irt_items.loc[game_id]
            irt = {"difficulty": number(_plain(item["difficulty"]), 3),
                   "se": number(_plain(item.get("difficulty_se")), 3),
                   "discrimination": number(_plain(item.get("discrimination")), 3)}
        published = None
        if published_irt is not None and game_id in published_irt.index:
            item = published_irt.loc[game_id]
            published = {"difficulty": number(_plain(item["difficulty"]), 3),
                         "discrimination": number(_plain(item["discrimination"]), 3)}
        constants = [(c, _shown(_plain(g[c]))) for c in dataset.games.columns if c not in ("game_id", "name")]
        pages.append({"id": game_id, "name": str(g["name"]), "constants": constants, "scores": scores,
                      "weights": weights, "irt": irt, "published_irt": published})
    return pages


def source_rows(dataset) -> list[dict]:
    """data/sources.csv with how many score rows each holds."""
    counts = dataset.scores["source_id"].value_counts()
    out = []
    for _, s in dataset.sources.sort_values("source_id").iterrows():
        row = {c: _plain(s[c]) for c in dataset.sources.columns}
        row["n_scores"] = int(counts.get(s["source_id"], 0))
        repository, commit, path = row.get("repository"), row.get("commit"), row.get("repository_path") or row.get(
            "upstream_file")
        row["url"] = (f"https://github.com/{repository}/tree/{commit}" if repository and commit and "/" in repository
                      and " " not in repository else None)
        row["path"] = path
        out.append(row)
    return out
