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

from atari5_spec.data.errors import InputError
from atari5_spec.data.frames import format_frames
from atari5_spec.method import training
from atari5_spec.method.pinned import CoefficientSet
from atari5_spec.scoring.estimate import published_extremes
from atari5_spec.scoring.ranking import MIN_GAMES_FOR_MEDIAN, leaderboard
from atari5_spec_maintainers.site.papers import paper_bibtex, paper_links
from atari5_spec_maintainers.site.scorer import band_interval, score_one_seed, subset_bands

__all__ = ["leaderboard_rows", "state_of_the_art", "SOTA_COLUMNS", "filter_legend", "search_index", "field_rows", "algorithm_pages", "algorithm_index", "game_pages", "games_index",
           "game_table", "seed_table", "SEED_COLUMNS", "MAX_INLINE_RUNS", "source_rows", "number", "STICKY_GROUPS", "GAME_COLUMNS"]

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
                                 "maintainers/atari5_spec_maintainers/site/scorer.py and static/site.js together")
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
    links = paper_links(dataset)
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
            "paper": links.get(row.algorithm_id, {}).get("url"),
            "paper_label": links.get(row.algorithm_id, {}).get("label"),
            "default": row.algorithm_id in in_default})
    return out, default, tuple(sticky_values)


SOTA_COLUMNS = ("regime", "metric", "year", "value", "algorithm_id", "name")
SOTA_REGIMES = (("every budget", None), ("200M frames", "200M"))
SOTA_METRICS = (("Atari-5 estimate", "estimate"), ("57-game median", "median"))


def state_of_the_art(rows: list[dict]) -> list[dict]:
    """The record over time among the agents of the default leaderboard: per regime (every budget; 200M frames)
    and metric (the Atari-5 estimate; the measured 57-game median, where at least 40 games), each year in which
    the best value so far rose, with the entry that set it (ties by id)."""
    out = []
    agents = [r for r in rows if r["default"] and r["kind"] == "agent" and r["year"] is not None]
    for regime_name, regime in SOTA_REGIMES:
        for metric_name, key in SOTA_METRICS:
            chosen = sorted((r for r in agents if (regime is None or r["regime"] == regime) and r[key] is not None),
                            key=lambda r: (int(r["year"]), -r[key], r["id"]))
            best = None
            for r in chosen:
                if best is None or r[key] > best:
                    best = r[key]
                    if out and out[-1]["regime"] == regime_name and out[-1]["metric"] == metric_name \
                            and out[-1]["year"] == int(r["year"]):
                        out.pop()
                    out.append({"regime": regime_name, "metric": metric_name, "year": int(r["year"]),
                                "value": round(float(r[key]), 6), "algorithm_id": r["id"], "name": r["name"]})
    return out


STICKY_MEANINGS = {
    "yes": "trained and evaluated with sticky actions: the entry's stated probability that an action repeats is "
           "above 0 (0.25 in Machado et al. 2018's protocol)",
    "no": "a probability of 0 is stated (by the paper, its code or its config): no sticky actions",
    "unknown": "no probability is recorded: the source does not state it or was not found or read (both finer "
               "cases below and the entries with no evidence row); the row's page names its evidence",
    "not-stated": "a part of unknown: the source was read, describes its protocol and does not mention sticky "
                  "actions (most papers before 2018 predate them, yet that is not a stated 0)",
}


def filter_legend(rows: list[dict], sticky_values: tuple[str, ...]) -> list[dict]:
    """What each filter value means and how many of the table's rows it selects (unknown and not-stated too)."""
    out = [{"filter": "sticky", "value": v, "count": sum(v in r["sticky_groups"] for r in rows),
            "meaning": STICKY_MEANINGS.get(v, "")} for v in sticky_values]
    for name, key, meaning in (("regime", "regime", "no training budget is recorded for the entry"),
                               ("frames", "frames", "the training frames are not stated or were not found"),
                               ("year", "year", "the entry's year is not recorded")):
        out.append({"filter": name, "value": "unknown", "count": sum(r[key] is None for r in rows),
                    "meaning": meaning})
    return out


SEARCH_FIELDS = ("name", "id", "alias", "paper", "link", "author")  # what a search matches, in the order it says


def _author_names(authors: str | None) -> list[str]:
    """'Last, First and Last, First' -> ['First Last', ...] (a name as people type it; 'others' dropped)."""
    names = []
    for part in (authors or "").split(" and "):
        last, _, first = part.partition(",")
        name = " ".join((first.strip() + " " + last.strip()).split())
        if name and name != "others":
            names.append(name)
    return names


def search_index(dataset, rows: list[dict]) -> dict:
    """What the leaderboard's search looks through (static/site.js, ``search``): per entry of data/algorithms.csv
    [id, name, ranked, [[field, text], ...]] with its name, id, aliases (the id spelled with spaces, the name
    without its parentheses), paper title, arXiv id / DOI / URL and authors (data/paper_links.csv), and per game
    [name, [entry indices]]: the entries with a score on it. The matching (typos, spacing) is the script's."""
    ranked = {r["id"] for r in rows}
    links = paper_links(dataset)
    algorithms = dataset.algorithms.sort_values("algorithm_id")
    entries, position = [], {}
    for meta in _records(algorithms):
        algorithm_id, name = str(meta["algorithm_id"]), str(meta["name"])
        link = links.get(algorithm_id) or {}
        title = meta.get("paper_title") or link.get("title")
        aliases = sorted({algorithm_id.replace("-", " "), " ".join(name.split("(")[0].split())} - {name, algorithm_id})
        fields = [["name", name], ["id", algorithm_id]] + [["alias", a] for a in aliases if a]
        if title:
            fields.append(["paper", str(title)])
        for kind in ("link", "doi"):
            if link.get(kind) and (kind == "link" or link.get("kind") == "arxiv"):
                fields.append(["link", str(link[kind])])
        fields += [["author", a] for a in _author_names(link.get("authors"))]
        position[algorithm_id] = len(entries)
        entries.append([algorithm_id, name, algorithm_id in ranked, fields])
    names = dataset.games.set_index("game_id")["name"].astype(str)
    scored = dataset.scores.groupby("game_id")["algorithm_id"].agg(lambda ids: sorted({position[i] for i in ids}))
    games = [[names.get(g, str(g)), list(scored[g])] for g in sorted(scored.index)]
    return {"entries": entries, "games": games}


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
    from atari5_spec.scoring.estimate import model_estimate

    constants = games.set_index("game_id")[["random_score", "human_score", "in_57"]]
    points = []
    for frames, part in budget.groupby("training_frames", sort=True):
        means = part.groupby("game_id")["score"].mean()
        z = [_normalised(float(v), _plain(constants.loc[g, "random_score"]), _plain(constants.loc[g, "human_score"]))
             for g, v in means.items() if g in constants.index and bool(constants.loc[g, "in_57"])]
        z = [v for v in z if v is not None]
        median = float(np.median(z)) if len(z) >= MIN_GAMES_FOR_MEDIAN else None
        estimate = (float(model_estimate({g: float(means[g]) for g in model.games}, model, coefficients.constants))
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
    # every run as plain values once, by row label (one conversion of the table, not one per algorithm and game)
    seed_runs = dict(zip(seeds.index, _records(seeds[["seed", "score", "source_id", "provenance"]]))) \
        if len(seeds) else {}
    budget_groups = dict(tuple(budget.groupby("algorithm_id", sort=True)))
    protocol_columns = [c for c in dataset.algorithms.columns if c not in ("algorithm_id", "name")]
    links = paper_links(dataset)
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
            runs = [{"seed": _plain(r["seed"]), "score": number(r["score"], 2), "value": r["score"],
                     "source_id": r["source_id"],
                     "licence": licences.get(r["source_id"]), "provenance": r["provenance"]}
                    for r in (seed_runs[label] for label in part.sort_values("seed").index)]
            seed_rows.append({"game_id": str(g), "game": games.get(g, {}).get("name", str(g)),
                              "n": int(len(values)), "mean": number(values.mean(), 2), "min": number(values.min(), 2),
                              "max": number(values.max(), 2), "runs": runs,
                              "sources": sorted({str(v) for v in part["source_id"]})})
        part = budget_groups.get(algorithm_id)
        curve = _budget_points(part, dataset.games, model, coefficients) if part is not None else []
        curve_sources = ([{"source_id": str(v), "licence": licences.get(str(v))} for v in sorted(set(part["source_id"]))]
                         if part is not None else [])
        link = links.get(algorithm_id)
        pages.append({"id": algorithm_id, "name": str(meta["name"]), "paper": link,
                      "paper_title": meta.get("paper_title"), "year": meta.get("year"),
                      "bibtex": paper_bibtex(algorithm_id, meta.get("paper_title"), meta.get("year"), link),
                      "protocol": [(c, _shown(meta[c])) for c in protocol_columns], "scores": score_rows,
                      "seeds": seed_rows, "curve": curve, "curve_sources": curve_sources, "ranked": ranked.get(algorithm_id),
                      "n_used": sum(r["used"] for r in score_rows),
                      "n_runs": sum(len(r["runs"]) for r in seed_rows)})
    return pages


GAME_COLUMNS = ("rank", "algorithm_id", "name", "raw", "normalised", "year", "regime", "training_frames",
                "sticky_action_probability", "source_id", "paper")


def _hidden_reason(row: dict, meta: dict, shown: set, superseded: set) -> str:
    """Why a published number of a game is not among the rows ranked: the entry's exclusion, a correction,
    or an alternative number the package keeps beside the one it uses."""
    if meta.get("exclusion"):
        note = meta.get("exclusion_note")
        return f"entry excluded ({meta['exclusion']})" + (f": {note}" if note else "")
    if row["score_id"] in superseded:
        return "superseded by a correcting row"
    if row["algorithm_id"] in shown:
        return "another number of this entry is the one ranked (this row is kept as an alternative, use_in_fit false)"
    return "kept as an alternative number (use_in_fit false): the package ranks a different entry for these runs"


def game_pages(dataset, coefficients_sets: list[CoefficientSet], irt_items: pd.DataFrame | None,
               published_irt: pd.DataFrame | None) -> list[dict]:
    """One dict per game: constants, every algorithm's score (the rows fits may use) with year, protocol, source
    and paper, the published numbers not ranked and why, the best score by year, coefficients per subset in each
    pinned version, the item-response difficulty (this package's fit and the IRT paper's table)."""
    rows = training.candidate_rows(dataset.scores, dataset.algorithms, dataset.games)
    first = rows.sort_values("score_id").groupby(["game_id", "algorithm_id"], sort=True).first()
    metas = {m["algorithm_id"]: m for m in _records(dataset.algorithms)}
    links = paper_links(dataset)
    superseded = set(dataset.scores["supersedes"].dropna().astype(int))
    all_rows: dict[str, list[dict]] = {}
    for r in _records(dataset.scores.sort_values(["game_id", "algorithm_id", "score_id"])):
        all_rows.setdefault(r["game_id"], []).append(r)
    pages = []
    for _, g in dataset.games.sort_values("game_id").iterrows():
        game_id = str(g["game_id"])
        random, human = _plain(g["random_score"]), _plain(g["human_score"])
        scores = []
        if game_id in first.index.get_level_values(0):
            part = first.loc[game_id]
            ranked = sorted(part.iterrows(), key=lambda item: (-float(item[1]["score"]), str(item[0])))
            for rank, (algorithm_id, r) in enumerate(ranked, start=1):  # highest first, ties by id
                meta = metas.get(algorithm_id, {})
                value = float(r["score"])
                frames = meta.get("training_frames")
                z = _normalised(value, random, human)
                scores.append({"rank": rank, "id": str(algorithm_id), "name": str(meta.get("name", algorithm_id)),
                               "raw": number(value, 2), "raw_value": value, "normalised": number(z),
                               "normalised_value": z, "year": meta.get("year"), "regime": meta.get("regime"),
                               "frames": None if frames is None else int(frames),
                               "frames_label": None if frames is None else format_frames(int(frames)),
                               "sticky": _shown(meta.get("sticky_action_probability")),
                               "source_id": _plain(r["source_id"]),
                               "paper": links.get(str(algorithm_id), {}).get("url"),
                               "paper_label": links.get(str(algorithm_id), {}).get("label")})
        shown = {s["id"] for s in scores}
        shown_ids = set(rows.loc[rows["game_id"] == game_id, "score_id"])
        hidden: dict[tuple, dict] = {}
        for r in all_rows.get(game_id, []):
            if r["score_id"] in shown_ids:
                continue
            meta = metas.get(r["algorithm_id"], {})
            reason = _hidden_reason(r, meta, shown, superseded)
            key = (r["algorithm_id"], reason)
            entry = hidden.setdefault(key, {"id": r["algorithm_id"], "name": str(meta.get("name", r["algorithm_id"])),
                                            "numbers": [], "reason": reason})
            if number(r["score"], 2) not in entry["numbers"]:
                entry["numbers"].append(number(r["score"], 2))
        hidden_rows = sorted(hidden.values(), key=lambda h: (h["name"].lower(), h["id"], h["reason"]))
        best, by_year = [], {}
        for s in scores:
            if s["year"] is not None:
                year = int(s["year"])
                if year not in by_year or s["raw_value"] > by_year[year]["raw_value"]:
                    by_year[year] = s
        for year in sorted(by_year):
            if not best or by_year[year]["raw_value"] > best[-1]["score"]:
                best.append({"year": year, "score": by_year[year]["raw_value"], "id": by_year[year]["id"],
                             "name": by_year[year]["name"]})
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
                      "random": random, "human": human, "random_label": number(random, 1),
                      "human_label": number(human, 1), "hidden": hidden_rows, "best": best,
                      "in_57": bool(_plain(g.get("in_57"))), "weights": weights, "irt": irt,
                      "published_irt": published})
    return pages


SEED_COLUMNS = ("game_id", "seed", "score", "source_id", "licence", "provenance")
MAX_INLINE_RUNS = 300  # more per-seed rows than this go to the page's CSV only (pages stay well under 1 MB)


def seed_table(algorithm: dict) -> list[list]:
    """An algorithm's per-seed scores as its download writes them (SEED_COLUMNS)."""
    return [[s["game_id"], r["seed"], r["value"], r["source_id"], r["licence"], r["provenance"]]
            for s in algorithm["seeds"] for r in s["runs"]]


def game_table(game: dict) -> list[dict]:
    """A game's ranked rows as the downloads write them (GAME_COLUMNS; numbers unformatted)."""
    return [{"rank": s["rank"], "algorithm_id": s["id"], "name": s["name"], "raw": s["raw_value"],
             "normalised": None if s["normalised_value"] is None else round(s["normalised_value"], 6),
             "year": s["year"], "regime": s["regime"], "training_frames": s["frames"],
             "sticky_action_probability": s["sticky"], "source_id": s["source_id"], "paper": s["paper"]}
            for s in game["scores"]]


def games_index(games: list[dict]) -> list[dict]:
    """The games index: per game its ranked rows, the best score and who holds it, the notes count."""
    return [{"id": g["id"], "name": g["name"], "n": len(g["scores"]), "in_57": g["in_57"],
             "best": g["scores"][0]["raw"] if g["scores"] else None,
             "best_name": g["scores"][0]["name"] if g["scores"] else None,
             "best_id": g["scores"][0]["id"] if g["scores"] else None, "hidden": len(g["hidden"])} for g in games]


def algorithm_index(pages: list[dict]) -> list[dict]:
    """Every algorithm page, by name: year, kind, ranked or not, the paper link (or why there is none)."""
    out = [{"id": a["id"], "name": a["name"], "year": a["year"], "ranked": a["ranked"] is not None,
            "estimate": a["ranked"]["estimate"] if a["ranked"] else None, "paper": a["paper"]} for a in pages]
    return sorted(out, key=lambda a: (a["name"].lower(), a["id"]))


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
