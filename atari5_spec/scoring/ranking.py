"""The leaderboard: the Atari-5 score of every algorithm in the dataset that has the five games.

(The Atari 100k regime is ranked by its own field's measured 26-game median instead: scoring/field.py.)

Scores come from the rows new fits may use (:func:`atari5_spec.method.training.candidate_rows`:
marked use_in_fit, not superseded, entry not excluded), scored with a pinned
coefficient version exactly as a user's agent is, so a user's score can be
ranked among them. Each row also shows the algorithm's true 57-game median
where it has at least 40 of the games — for orientation only: the paper
(section 8) recommends comparing Atari-5 scores with Atari-5 scores, never
with medians, because the two differ in their bias.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..method import training
from .estimate import as_coefficient_set, resolve_subset, score, signature, model_estimate
from .field import Field, field_medians, regime_field, user_field_median

__all__ = ["leaderboard", "Leaderboard", "LeaderboardRow", "MIN_GAMES_FOR_MEDIAN", "COMPARISON_ADVICE"]

MIN_GAMES_FOR_MEDIAN = training.PAPER_RULE.min_games
COMPARISON_ADVICE = ("Compare Atari-5 scores with Atari-5 scores, never with 57-game medians: "
                     "the two differ in their bias (paper, section 8).")


class LeaderboardRow(NamedTuple):
    rank: int | None                  # None for a reference line (human play): shown, never ranked
    algorithm_id: str
    name: str
    estimate: float | None            # the subset's score (None in a field ranking, for an entry without its games)
    median: float | None              # true median over the canonical games it has (if >= 40)
    n_games: int                      # canonical games with a score
    kind: str                         # "agent", or a reference entry such as "human-reference"
    # The protocol behind the numbers (data/algorithms.csv; None where the source does not say).
    regime: str | None = None         # atari-100k, 10M, 200M, ...
    training_frames: int | None = None
    sticky_action_probability: float | None = None
    statistic: str | None = None      # mean, median, best-seed, best-checkpoint, ...
    seeds: int | None = None
    # Where each protocol fact is stated, or where its source is silent (data/protocol_evidence.csv):
    # field -> {value, status, source, location, verification}; empty when no evidence is recorded.
    protocol_evidence: dict | None = None
    # In a regime ranked by its own field (Atari 100k): the measured median over the field's games; else None.
    field_median: float | None = None
    evaluation: str | None = None     # evaluation-phase, training-episodes, ... (data/algorithms.csv)
    # The learning curve behind the entry (data/budget_scores.csv): (training frames, the subset's score from the
    # per-game mean over runs at that budget, the fewest runs any of the subset's games has there), by budget;
    # empty without per-run budget rows on every game of the subset.
    curve: tuple[tuple[int, float, int], ...] = ()


class Leaderboard(NamedTuple):
    subset: str
    coefficients_version: str
    signature: str
    rows: tuple[LeaderboardRow, ...]  # best first
    user_estimate: float | None
    user_rank: int | None             # where the user's agent would rank (1 = best)
    filters: tuple[str, ...] = ()     # the protocol filters applied ('regime atari-100k', 'sticky', ...)
    other_regimes: tuple[str, ...] = ()  # regimes kept out of the unfiltered table (short budgets): see --regime
    references: tuple[LeaderboardRow, ...] = ()  # reference lines (human play), best first: shown, not ranked
    n_in_dataset: int = 0             # entries of data/algorithms.csv
    unranked: tuple[tuple[str, int], ...] = ()   # (why an entry is not ranked, how many), most first
    user_median: float | None = None  # the user's own 57-game median, given at least 40 of the 57 games
    # With a protocol filter: the entries that pass it but lack some of the subset's games, (algorithm_id, name,
    # missing games), e.g. the 26-game Atari 100k field, which has Battle Zone and Q*bert only of the Atari-5 games.
    incomplete: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # A regime with a field of its own (--only-regime atari-100k) is ranked by the field's measured median, not by
    # the subset's score (scoring/field.py); None otherwise. `incomplete` then lists missing field games.
    field: Field | None = None
    user_field_median: float | None = None
    n_ranked: int | None = None       # with top(): how many the whole ranking holds (None: every ranked row is here)

    @property
    def ranked(self) -> int:
        """How many entries the ranking holds (more than ``rows`` after :meth:`top`)."""
        return len(self.rows) if self.n_ranked is None else self.n_ranked

    def top(self, n: int) -> "Leaderboard":
        """The first ``n`` ranked rows, with the reference lines above the last of them; ``ranked`` still counts
        all (a paper's table of the leaders, ``leaderboard --top N``)."""
        if n < 1:
            raise ValueError(f"top needs at least 1 row, not {n}")
        if n >= len(self.rows):
            return self
        rows = self.rows[:n]
        references = tuple(r for r in self.references if r.estimate is not None and rows[-1].estimate is not None
                           and r.estimate > rows[-1].estimate)
        return self._replace(rows=rows, references=references, n_ranked=len(self.rows))

    @property
    def ranked_by(self) -> str:
        """What the rank orders: the subset's score, or the field's measured statistic."""
        return self.field.statistic if self.field is not None else f"{self.subset} score"

    def to_frame(self):
        """The ranked rows (rank index), the reference lines after them with rank NaN."""
        import pandas as pd

        frame = pd.DataFrame([r._asdict() for r in (*self.rows, *self.references)], columns=LeaderboardRow._fields)
        return frame.astype({"rank": "Int64"}).set_index("rank")

    def _repr_html_(self) -> str:
        import html

        return (f"<p><b>Leaderboard</b>: {html.escape(repr(self))}</p>" + self.to_frame()._repr_html_())

    def __repr__(self) -> str:
        user = (f", your agent {self.user_estimate:.1f} (rank {self.user_rank})" if self.user_rank is not None
                else "")
        shown = f"top {len(self.rows)} of {self.ranked}" if self.n_ranked is not None else str(len(self.rows))
        return (f"Leaderboard({self.subset}: {shown} ranked of {self.n_in_dataset} in the dataset"
                f"{', ' + ', '.join(self.filters) if self.filters else ''}; best {self.rows[0].name} "
                f"{self.rows[0].estimate:.1f}{user})" if self.rows else
                f"Leaderboard({self.subset}: none ranked of {self.n_in_dataset} in the dataset)")


# Why an entry of the dataset is not ranked, in words (data/algorithms.csv `exclusion`, then the rest).
UNRANKED_REASONS = {
    "duplicate": "duplicates of another entry",
    "training-budget": "with a short training budget (ranked among their peers: leaderboard --only-regime)",
    "reference-scores": "reference scores (random or human play), not agents",
    "episode-frame-limit": "evaluated under another episode frame limit",
    "emulator-as-model": "using the emulator as a model",
}


# Entries kept out of fits only for their short training budget (Atari 100k and the like) are ranked in their
# own regime: shown when a protocol filter asks for them, never mixed into the default table.
SHORT_BUDGET = "training-budget"


def _value(value):
    import pandas as pd

    return None if value is None or pd.isna(value) else value.item() if hasattr(value, "item") else value


def _protocol_filter(algorithms, regime: str | None, sticky: str | None, frames: int | None, not_stated=frozenset()):
    """Boolean mask of algorithms.csv rows that pass the filters, and the filters' labels. ``not_stated``: the ids
    whose sticky-action setting the evidence records as not stated by their source."""
    import pandas as pd

    keep = pd.Series(True, index=algorithms.index)
    labels = []
    if regime is not None:
        keep &= algorithms["regime"].astype("string").str.lower() == regime.lower()
        labels.append(f"regime {regime}")
    if sticky is not None:
        probability = algorithms["sticky_action_probability"].astype(float)
        keep &= ((probability > 0) if sticky == "yes" else (probability == 0) if sticky == "no" else
                 probability.isna() & algorithms["algorithm_id"].isin(not_stated) if sticky == "not-stated"
                 else probability.isna())
        labels.append({"yes": "sticky actions", "no": "no sticky actions", "unknown": "sticky actions unknown",
                       "not-stated": "sticky actions not stated by the source"}[sticky])
    if frames is not None:
        from ..data.frames import format_frames

        keep &= algorithms["training_frames"].astype(float) == float(frames)
        labels.append(f"{format_frames(frames)} training frames")
    return keep.fillna(False).astype(bool), tuple(labels)


def budget_curves(budget_scores, model, constants) -> dict[str, tuple[tuple[int, float, int], ...]]:
    """algorithm_id -> ((training frames, subset score, fewest runs), ...) from per-run budget rows.

    At each budget, each of the subset's games is the mean of its runs' scores there (the runs that reach the
    budget, by the curve rule their entry states); a budget counts only where every game of the subset has a run.
    """
    if budget_scores is None or not len(budget_scores):
        return {}
    rows = budget_scores[budget_scores["game_id"].isin(model.games)]
    per_game = rows.groupby(["algorithm_id", "training_frames", "game_id"])["score"].agg(["mean", "size"])
    out: dict[str, list] = {}
    for (algorithm_id, frames), group in per_game.groupby(level=[0, 1]):
        games = group.droplevel([0, 1])
        if set(games.index) != set(model.games):
            continue
        estimate = float(model_estimate(games["mean"].to_dict(), model, constants))
        out.setdefault(algorithm_id, []).append((int(frames), estimate, int(games["size"].min())))
    return {a: tuple(sorted(points)) for a, points in out.items()}


def _evidence_by_algorithm(dataset) -> dict[str, dict]:
    """algorithm_id -> {field: {value, status, source, location, verification}} from data/protocol_evidence.csv."""
    frame = getattr(dataset, "protocol_evidence", None)
    out: dict[str, dict] = {}
    if frame is None:
        return out
    for row in frame.itertuples(index=False):
        out.setdefault(row.algorithm_id, {})[row.field] = {
            k: _value(getattr(row, k)) for k in ("value", "status", "source", "location", "verification")}
    return out


def leaderboard(scores: Any = None, subset: str = "Atari-5", coefficients=None, dataset=None,
                regime: str | None = None, sticky: str | None = None, frames: int | None = None) -> Leaderboard:
    """Every dataset algorithm with the subset's games, ranked by its score; and the user's rank.

    ``scores``: the user's agent (any form :func:`atari5_spec.scoring.estimate.score`
    accepts), or None for the table alone. ``dataset``: a loaded
    :class:`atari5_spec.Dataset` (default: the installed package).

    Without filters the table holds the entries fits compare (as before);
    entries kept out of fits only for a short training budget (Atari 100k)
    are ranked in their own regime, with ``regime='atari-100k'``. The filters
    select peers by protocol: ``regime`` (label, e.g. '200M'), ``sticky``
    ('yes', 'no' or 'unknown') and ``frames`` (training frames). Each row
    carries its protocol (regime, frames, sticky actions, statistic, seeds,
    evaluation) and its learning curve where the data has per-run budget rows
    (``curve``: the subset's score at each training budget, each game the mean
    of its runs there).

    A regime with a field of its own (``regime='atari-100k'``: its papers
    report 26 games, three of the Atari-5 games not among them) is ranked by
    the field's measured median over those games (``field_median``; see
    :mod:`atari5_spec.scoring.field`), with the subset's score beside it where
    an entry has the subset's games; ``Leaderboard.ranked_by`` says which.
    """
    import pandas as pd

    if sticky is not None and sticky not in ("yes", "no", "unknown", "not-stated"):
        from ..data.errors import InputError

        raise InputError(f"sticky must be yes, no, unknown or not-stated, not {sticky!r}")
    if dataset is None:
        from ..data.loading import load

        dataset = load()
    coefficient_set = as_coefficient_set(coefficients)
    subset = resolve_subset(subset, coefficient_set.subsets)
    model = coefficient_set.subsets[subset]
    constants = coefficient_set.constants
    algorithms = dataset.algorithms
    filtered = regime is not None or sticky is not None or frames is not None
    if filtered:  # peers by protocol: short-budget entries come back, in their own regime
        algorithms = algorithms.assign(exclusion=algorithms["exclusion"].where(
            algorithms["exclusion"] != SHORT_BUDGET, pd.NA))
        evidence = getattr(dataset, "protocol_evidence", None)
        not_stated = frozenset() if evidence is None else frozenset(evidence.loc[
            (evidence["field"] == "sticky_action_probability") & (evidence["status"] == "not-stated"), "algorithm_id"])
        keep, labels = _protocol_filter(algorithms, regime, sticky, frames, not_stated)
        algorithms = algorithms[keep]
    else:
        labels = ()
    other = sorted({str(r) for r in dataset.algorithms.loc[dataset.algorithms["exclusion"] == SHORT_BUDGET, "regime"]
                    .dropna()}) if not filtered else []
    rows = training.candidate_rows(dataset.scores, algorithms, dataset.games)
    protocol = dataset.algorithms.set_index("algorithm_id")
    summary = training.algorithm_summary(rows, dataset.games)
    names = dataset.algorithms.set_index("algorithm_id")["name"].astype(str)
    kinds = dataset.algorithms.set_index("algorithm_id")["kind"].astype(str)
    per_pair = rows[rows["game_id"].isin(model.games)].groupby(["algorithm_id", "game_id"])["score"].first()
    complete = per_pair.unstack().reindex(columns=list(model.games)).dropna()
    estimates = {a: float(model_estimate(raw.to_dict(), model, constants)) for a, raw in complete.iterrows()}
    field = regime_field(regime, dataset.benchmark_games)
    if field is not None:  # ranked by the field's measured median; the subset's score shown where it exists
        normalised = training.normalised_scores(rows, dataset.games).groupby(
            ["algorithm_id", "game_id"])["normalised"].first()
        medians, missing_field = field_medians(normalised, field)
        ranking = {a: float(m) for a, m in medians.items()}
    else:
        ranking = estimates
    evidence = _evidence_by_algorithm(dataset)
    curves = budget_curves(getattr(dataset, "budget_scores", None), model, constants)
    entries = []
    for algorithm_id in ranking:
        n_games = int(summary.loc[algorithm_id, "n_games"])
        entries.append(dict(
            algorithm_id=algorithm_id, name=names[algorithm_id], n_games=n_games, kind=kinds[algorithm_id],
            estimate=estimates.get(algorithm_id),
            median=float(summary.loc[algorithm_id, "median"]) if n_games >= MIN_GAMES_FOR_MEDIAN else None,
            regime=_value(protocol.loc[algorithm_id, "regime"]),
            training_frames=_value(protocol.loc[algorithm_id, "training_frames"]),
            sticky_action_probability=_value(protocol.loc[algorithm_id, "sticky_action_probability"]),
            statistic=_value(protocol.loc[algorithm_id, "statistic"]),
            seeds=_value(protocol.loc[algorithm_id, "seeds"]),
            protocol_evidence=evidence.get(algorithm_id, {}),
            field_median=ranking[algorithm_id] if field is not None else None,
            evaluation=_value(protocol.loc[algorithm_id, "evaluation"]),
            curve=curves.get(algorithm_id, ())))
    entries.sort(key=lambda e: (-ranking[e["algorithm_id"]], e["algorithm_id"]))
    # Human play is a reference line, not a competitor: shown at its score, never given a rank.
    references = tuple(LeaderboardRow(rank=None, **e) for e in entries if e["kind"] != "agent")
    entries = [e for e in entries if e["kind"] == "agent"]
    incomplete = ()
    if field is not None:  # peers of the regime without every field game: named, not dropped silently
        incomplete = tuple((a, names[a], missing_field[a]) for a in sorted(missing_field))
    elif filtered:  # peers the filter found that the subset cannot score: say so rather than drop them silently
        have = per_pair.reset_index().groupby("algorithm_id")["game_id"].agg(set) if len(per_pair) else {}
        incomplete = tuple(
            (a, names[a], tuple(g for g in model.games if g not in have.get(a, set())))
            for a in sorted(set(rows["algorithm_id"]) - set(complete.index)))
    ranked = tuple(LeaderboardRow(rank=i + 1, **e) for i, e in enumerate(entries))
    unranked = _unranked(dataset.algorithms, algorithms, {r.algorithm_id for r in ranked}, set(ranking),
                         references, subset if field is None else f"{field.regime} field")
    user_estimate = user_rank = user_median = user_field = None
    if scores is not None:
        from .own_median import own_median

        # In a field ranking the subset's games are optional (the Atari 100k field lacks three Atari-5 games).
        result = score(scores, subset=subset, coefficients=coefficient_set, n_bootstrap=0, partial=field is not None)
        user_estimate = result.estimate
        own = own_median(result)  # the agent's own 57-game median, as for the entries, with >= 40 games
        user_median = own.median if own is not None else None
        if field is not None:
            user_field, _ = user_field_median(result.normalised, field)
            if user_field is not None:
                user_rank = 1 + sum(row.field_median > user_field for row in ranked)
        elif user_estimate is not None:
            user_rank = 1 + sum(row.estimate > user_estimate for row in ranked)
    return Leaderboard(subset, coefficient_set.version, signature(subset, coefficient_set), ranked,
                       user_estimate, user_rank, labels, tuple(other), references, len(dataset.algorithms), unranked,
                       user_median, incomplete, field, user_field)


def _unranked(every, considered, ranked: set, complete: set, references,
              subset: str) -> tuple[tuple[str, int], ...]:
    """(reason, count) for each entry of the dataset that has no rank, most common first.

    ``considered``: the entries left after the protocol filters, with the exclusions in force.
    """
    from collections import Counter

    exclusion = considered.set_index("algorithm_id")["exclusion"]
    shown = {r.algorithm_id for r in references}
    reasons = Counter()
    for algorithm_id in every["algorithm_id"]:
        if algorithm_id in ranked:
            continue
        excluded = exclusion.get(algorithm_id) if algorithm_id in exclusion.index else None
        if algorithm_id in shown:
            reasons["human reference, shown as a line at its score"] += 1
        elif algorithm_id not in exclusion.index:
            reasons["of another protocol than the filters ask for"] += 1
        elif isinstance(excluded, str) and excluded:
            reasons[UNRANKED_REASONS.get(excluded, f"kept out of comparisons ({excluded})")] += 1
        elif algorithm_id not in complete:
            reasons[f"without a published score on every {subset} game"] += 1
    return tuple(sorted(reasons.items(), key=lambda item: (-item[1], item[0])))
