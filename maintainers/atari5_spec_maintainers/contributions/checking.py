"""Checking a submission against the data: the rows it adds to each table, corrections, duplicates, merged folders."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

from atari5_spec.data.validation import PROTOCOL_COLUMNS, Problem
from atari5_spec_maintainers.contributions.model import DERIVABLE, FIT_MIN_GAMES, METADATA_FILE, MIN_TRAINING_FRAMES, NUMBER, SCORES_FILE, STANDARD_EPISODE_FRAMES, Hold, Merge, PlannedRows, Submission, SubmittedScore, _display


def protocol_exclusion(protocol: dict) -> tuple[str | None, str | None]:
    """(exclusion, note) for algorithms.csv when the evaluation protocol makes the entry unfit for fits."""
    frames = protocol.get("max_episode_frames")
    if frames is not None and frames != STANDARD_EPISODE_FRAMES:
        return ("episode-frame-limit",
                f"Evaluated with a {frames:,}-frame episode limit instead of {STANDARD_EPISODE_FRAMES:,}.")
    budget = protocol.get("training_frames")
    if budget is not None and budget < MIN_TRAINING_FRAMES:
        return ("training-budget",
                f"Trained on {budget:,} frames, below the {MIN_TRAINING_FRAMES:,}-frame budget of the entries fits "
                "compare (Atari 100k style).")
    return None, None


def _line_ranges(lines: list[int]) -> str:
    """'3-7,9' for [3, 4, 5, 6, 7, 9]."""
    runs: list[list[int]] = []
    for line in sorted(lines):
        if runs and line == runs[-1][1] + 1:
            runs[-1][1] = line
        else:
            runs.append([line, line])
    return ",".join(f"{first}-{last}" if last > first else str(first) for first, last in runs)


def seed_statistic(raw_values: list[str], statistic: str) -> Fraction:
    """The per-game statistic over per-seed scores, exactly (from the decimal texts)."""
    values = sorted(Fraction(Decimal(v)) for v in raw_values)
    if statistic == "mean":
        return sum(values, Fraction(0)) / len(values)
    if statistic == "median":
        middle = len(values) // 2
        return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2
    if statistic == "best-seed":
        return values[-1]
    if statistic == "single-seed" and len(values) == 1:
        return values[0]
    raise ValueError(f"cannot derive {statistic!r} from {len(values)} seed(s)")


def _author_label(authors: list[str]) -> str:
    """'Hafner et al.', 'Mnih and Kavukcuoglu' or 'Mnih': family names as the source titles give them."""
    family = [(a.split() or [a])[-1] for a in authors[:2]]
    return family[0] + (" et al." if len(authors) > 2 else f" and {family[1]}" if len(authors) == 2 else "")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def source_row(submission: Submission, upstream: str) -> dict:
    """The data/sources.csv row of a submission."""
    meta, paper = submission.metadata, submission.metadata["paper"]
    protocol, contributor = meta.get("protocol", {}), meta["contributor"]
    links = [f"{label} {paper[key]}" for key, label in (("doi", "DOI"), ("arxiv", "arXiv"), ("url", "URL")) if key in paper]
    handle = ", ".join(x for x in (f"@{contributor['github']}" if "github" in contributor else "",
                                   contributor.get("email", "")) if x)
    parts = [f"Contributed by {contributor['name']} ({handle}) by pull request.",
             f"Numbers from {paper['location']}; " + "; ".join(links) + "."]
    if meta.get("corrects"):
        parts.append(f"Corrects published numbers of {meta['corrects']}.")
    else:
        def stated(key):
            return "not stated" if protocol[key] is None else protocol[key]

        statistic = protocol["statistic"] + (f" ({protocol['statistic_note']})" if protocol.get("statistic_note") else "")
        parts.append(f"Statistic: {statistic}; seeds: {stated('seeds')}; "
                     f"sticky-action probability: {stated('sticky_action_probability')}.")
    origin = meta.get("upstream") or {}
    if origin:
        parts.append(f"Taken from {origin_text(meta)}" + (f" ({origin['licence']} licence)." if origin.get("licence")
                                                            else "."))
    if meta.get("notes"):
        parts.append(meta["notes"])
    return dict(source_id=f"contrib-{submission.submission_id}",
                title=_one_line(f"{paper['title']} ({_author_label(paper['authors'])}), {paper['location']}"),
                kind="contribution", year=paper["year"], upstream_file=upstream,
                repository=origin.get("repository"), commit=origin.get("commit"), repository_path=origin.get("path"),
                licence=origin.get("licence"), curve_rule=origin.get("curve_rule"), used_by_paper_fit=False,
                description=_one_line(" ".join(parts)))


PROTOCOL_KEYS = PROTOCOL_COLUMNS  # the protocol columns of data/algorithms.csv, one list


def protocol_note(meta: dict) -> str:
    """Where the protocol facts come from: the contributor's note, else the paper's location; then the statistic."""
    protocol, paper = meta["protocol"], meta["paper"]
    parts = [protocol.get("protocol_note") or
             f"As stated by the submission for {_author_label(paper['authors'])} {paper['year']}, {paper['location']}"]
    if protocol.get("statistic_note"):
        parts.append(f"statistic: {protocol['statistic_note']}")
    return _one_line("; ".join(parts))[:1000]


def algorithm_row(submission: Submission, source_id: str) -> dict:
    """The data/algorithms.csv row of a new algorithm, with its protocol and exclusion."""
    from atari5_spec.data.validation import regime_label

    meta, protocol = submission.metadata, submission.metadata["protocol"]
    exclusion, note = protocol_exclusion(protocol)
    facts = {key: protocol.get(key) for key in PROTOCOL_KEYS}
    if facts["regime"] is None and facts["training_frames"] is not None:
        facts["regime"] = regime_label(facts["training_frames"])
    return dict(algorithm_id=submission.submission_id, name=_one_line(meta["name"]), kind="agent",
                paper_title=_one_line(meta["paper"]["title"]), year=meta["paper"]["year"], source_id=source_id,
                **facts, protocol_note=protocol_note(meta),
                in_paper_pool=False, exclusion=exclusion, exclusion_note=note)


def origin_text(metadata: dict) -> str:
    """'danijar/dreamerv3@<commit>:scores/x.json.gz' for a submission taken from a repository file, else ''."""
    upstream = metadata.get("upstream") or {}
    if not upstream:
        return ""
    return f"{upstream['repository']}@{upstream['commit']}:{upstream['path']}"


def _provenance(place: str, origin: str, where: str | None) -> str:
    """The provenance of a data row: the contribution's file and line, then where the contributor took it from."""
    detail = " ".join(x for x in (origin, where or "") if x)
    return f"{place}; {detail}" if detail else place


def planned_scores(submission: Submission, algorithm_id: str, source_id: str, upstream: str
                   ) -> tuple[PlannedRows, list[Problem], list[Problem]]:
    """The rows a submission adds to data/scores.csv, seed_scores.csv and budget_scores.csv, in merge order.

    Per game (in game id order): the fit row (the row without seed, or one
    derived from the per-seed final scores with the metadata's statistic) goes
    to scores.csv; per-seed final scores to seed_scores.csv; learning-curve
    rows (with training_frames) to budget_scores.csv. Nothing given is dropped.
    A published number that contradicts its own per-seed rows by more than
    rounding is a problem: one of them is mistyped.
    """
    from atari5_spec.data.writing import format_value

    protocol = submission.metadata.get("protocol", {})
    statistic, n_seeds = protocol.get("statistic"), protocol.get("seeds")
    extra = protocol.get("extra_training_data")
    origin = origin_text(submission.metadata)
    label = _display(submission.folder, SCORES_FILE)
    planned, problems, warnings = PlannedRows([], [], []), [], []
    uneven = []  # (game, runs, first line) where the per-seed rows differ from protocol.seeds

    def fit_row(game_id, score, raw_value, std, provenance):
        return dict(algorithm_id=algorithm_id, game_id=game_id, score=score, raw_value=raw_value, std=std,
                    source_id=source_id, reported_in=None, provenance=provenance,
                    extra_training_data=extra, use_in_fit=True)

    def seed_row(s: SubmittedScore):
        return dict(algorithm_id=algorithm_id, game_id=s.game_id, seed=s.seed, score=s.score, raw_value=s.raw_value,
                    source_id=source_id, provenance=_provenance(f"{upstream}:{s.line}", origin, s.where))

    for game_id in sorted({s.game_id for s in submission.scores}):
        given = [s for s in submission.scores if s.game_id == game_id]
        published = next((s for s in given if s.kind == "published"), None)
        seeds = [s for s in given if s.kind == "seed"]
        if seeds and n_seeds is not None and len(seeds) != n_seeds:
            uneven.append((game_id, len(seeds), seeds[0].line))
        if published is not None:
            planned.scores.append(fit_row(game_id, published.score, published.raw_value, published.std,
                                          _provenance(f"{upstream}:{published.line}", origin, published.where)))
            if seeds and statistic in DERIVABLE[:3]:
                derived = seed_statistic([s.raw_value for s in seeds], statistic)
                unit = Fraction(10) ** Decimal(NUMBER.match(published.raw_value).group()).as_tuple().exponent
                if abs(derived - Fraction(Decimal(str(published.score)))) > unit / 2:
                    problems.append(Problem(label, published.line, "score",
                                            f"{game_id}: the published {statistic} {published.raw_value} differs from "
                                            f"the {statistic} of its {len(seeds)} per-seed rows, {float(derived):g}, "
                                            "by more than rounding",
                                            f"check line {published.line} and the per-seed rows (lines "
                                            f"{_line_ranges([s.line for s in seeds])}) against the paper"))
        elif seeds and statistic in DERIVABLE and (statistic != "single-seed" or len(seeds) == 1):
            value = float(seed_statistic([s.raw_value for s in seeds], statistic))
            place = f"{upstream}:{_line_ranges([s.line for s in seeds])} ({statistic} of {len(seeds)} seeds)"
            planned.scores.append(fit_row(game_id, value, format_value(value), None, _provenance(place, origin, None)))
        elif seeds or published is None and not any(s.kind == "budget" for s in given):
            problems.append(Problem(label, (seeds or given)[0].line, "seed",
                                    f"{game_id} has only per-seed rows, and the statistic {statistic!r} "
                                    "cannot be computed from them",
                                    "add a row without seed holding the number the paper publishes for the game"))
        planned.seed_scores.extend(seed_row(s) for s in seeds)
        planned.budget_scores.extend(
            dict(algorithm_id=algorithm_id, game_id=game_id, training_frames=s.training_frames, seed=s.seed,
                 score=s.score, raw_value=s.raw_value, points=s.points, first_frame=s.first_frame,
                 last_frame=s.last_frame, source_id=source_id,
                 provenance=_provenance(f"{upstream}:{s.line}", origin, s.where))
            for s in given if s.kind == "budget")
    if uneven:
        # Runs per game are taken from the per-seed rows (data/seed_scores.csv keeps every one): one warning,
        # not one per game, so that a file with a different number of runs per game (BBF) reads as what it is.
        counts = sorted({n for _, n, _ in uneven} | {n_seeds})
        listed = ", ".join(f"{g} {n}" for g, n, _ in uneven[:8]) + (", ..." if len(uneven) > 8 else "")
        warnings.append(Problem(label, uneven[0][2], "seed",
                                f"per-seed rows per game differ from protocol.seeds ({n_seeds}) for {len(uneven)} "
                                f"game(s) ({listed}); runs per game range over {counts[0]}-{counts[-1]} and are "
                                "taken from the rows", "nothing to do if the source has a different number of runs "
                                "per game (set protocol.seeds to the usual number, or null); else give every seed"))
    return planned, problems, warnings


def _current_fit_rows(scores) -> Any:
    """Rows fits use now: use_in_fit and not superseded."""
    return scores[scores["use_in_fit"].astype(bool) & ~scores["score_id"].isin(scores["supersedes"].dropna())]


def _link_corrections(rows: list[dict], dataset, target: str, label: str) -> tuple[list[Problem], bool]:
    """Set supersedes on a correction's fit rows; (problems, whether every fit row corrects an existing one)."""
    current = _current_fit_rows(dataset.scores)
    current = current[current["algorithm_id"] == target]
    problems, all_corrections = [], True
    for row in rows:
        row["supersedes"] = None
        if not row["use_in_fit"]:
            continue
        old = current[current["game_id"] == row["game_id"]]
        line = int(re.search(r":(\d+)", row["provenance"]).group(1))
        if old.empty:
            all_corrections = False  # a game the algorithm had no number for: new data
        elif len(old) > 1:
            problems.append(Problem(label, line, "game", f"{target}/{row['game_id']} has {len(old)} rows used by fits "
                                    f"(score_id {', '.join(map(str, old['score_id']))}); one row can supersede only one",
                                    "ask a maintainer to mark the extra rows use_in_fit=false first"))
        elif float(old["score"].iloc[0]) == row["score"]:
            problems.append(Problem(label, line, "score", f"{row['raw_value']} is the number data/ already has for "
                                    f"{target}/{row['game_id']} (score_id {int(old['score_id'].iloc[0])})",
                                    "remove the row: a correction lists only the numbers that change"))
        else:
            row["supersedes"] = int(old["score_id"].iloc[0])
    return problems, all_corrections


def _duplicate_warnings(rows: list[dict], dataset, label: str, name: str | None = None,
                        metadata_label: str | None = None, folder=None, siblings=()) -> list[Problem]:
    """Holds when a new algorithm's name looks like an existing entry's, or its numbers are another's up to a
    nearly constant factor: in data/, in another submission folder beside this one (another pull request's),
    or in ``siblings``, the other new folders of the same pull request (read from git by the review).

    Either would show one result twice on the leaderboard and count it twice in fits
    (:mod:`.lookalikes`: names by the Unicode skeleton, scores by the per-game ratio around a common factor,
    judged scale-free).
    """
    from atari5_spec_maintainers.contributions.lookalikes import SPREAD_BAND, near_copies, same_looking_names

    names = dict(zip(dataset.algorithms["algorithm_id"], dataset.algorithms["name"]))
    warnings = []
    if name is not None:
        for algorithm_id, existing in same_looking_names(name, dataset.algorithms):
            same = "is exactly" if existing == name else "looks like"
            warnings.append(Hold(metadata_label or label, None, "name",
                                 f"the name {name!r} {same} that of {algorithm_id!r} ({existing!r}) in data/ "
                                 "(compared after Unicode normalisation, case folding and Unicode's confusables)",
                                 f"if this is the same algorithm, do not add it again (it would show twice); if it "
                                 f"corrects it, use corrects: {algorithm_id}; else name it as its paper does"))
    fit = {r["game_id"]: r["score"] for r in rows if r["use_in_fit"]}
    found = [(f"{c.algorithm_id!r} ({names.get(c.algorithm_id, '?')!r}) in data/", c)
             for c in near_copies(fit, dataset.scores)]
    if folder is not None or siblings:
        found += [(f"the submission folder contributions/{c.algorithm_id}/", c)
                  for c in near_copies(fit, _folder_scores(folder, dataset, siblings))]
    for where, copy in found:
        if copy.equal == copy.near and copy.low == copy.high == 1:
            how = f"equal those of {where} ("
        else:
            low, high = f"{copy.low:.4g}", f"{copy.high:.4g}"
            times = low if low == high else f"{low}-{high}"
            how = (f"are those of {where} times {times} game by game (a near-copy: each ratio within "
                   f"{SPREAD_BAND:.1%} of one factor, {copy.factor:.4g}, where independent runs of one algorithm "
                   f"differ more; {copy.equal} exactly equal, ")
        warnings.append(Hold(label, None, None, f"{copy.near} of the {len(fit)} scores {how}of {copy.shared} games "
                             "both give)",
                             f"if this is the same result, do not add it (it would count twice in fits); "
                             f"if it corrects it, use corrects: {copy.algorithm_id}"))
    return warnings


def _folder_scores(folder, dataset, siblings=()):
    """The per-game fit numbers of every other submission folder beside ``folder``, in the package's
    contributions/ and in ``siblings`` (folders on disk, or :class:`~.files.StoredFolder` read from git: the
    pull request's other new folders), as rows of data/scores.csv (algorithm_id = the folder's name) for
    :func:`near_copies`.

    Each is read as its own check reads it (:func:`~.reading.read_submission`, then the fit rows
    :func:`planned_scores` gives: printed game names, "mean ± spread" cells and per-seed statistics
    included); a folder with problems is checked on its own and only skipped here. Folders already merged
    (their source is in data/sources.csv) are compared through data/.
    """
    import os
    from pathlib import Path

    import pandas as pd

    from atari5_spec_maintainers.contributions.files import StoredFolder, submission_name
    from atari5_spec_maintainers.contributions.reading import read_submission

    own_name = submission_name(folder) if folder is not None else None
    merged = set(dataset.sources["source_id"])
    others = []  # (name, folder) in order: the pull request's own folders first, then those on disk
    for sibling in siblings:
        sibling = sibling if isinstance(sibling, StoredFolder) else Path(sibling)
        others.append((submission_name(sibling), sibling))
    places = set()
    if folder is not None and not isinstance(folder, StoredFolder):
        places.add(Path(folder).parent)
    if dataset.root is not None:
        places.add(Path(dataset.root) / "contributions")
    seen = {os.path.realpath(folder)} if folder is not None and not isinstance(folder, StoredFolder) else set()
    for place in sorted(places):
        for other in sorted(place.iterdir()) if place.is_dir() else []:
            real = os.path.realpath(other)
            if real in seen or other.name.startswith(("_", ".")) or other.is_symlink() or not other.is_dir():
                continue
            seen.add(real)
            others.append((other.name, other))
    rows, names = [], set()
    for name, other in others:
        if name == own_name or name in names or f"contrib-{name}" in merged:
            continue
        names.add(name)
        try:
            submission, problems = read_submission(other, dataset, check_ids=False)
        except (OSError, ValueError):  # checked on its own; nothing to compare with here
            continue
        if submission is None or problems or submission.metadata.get("corrects"):
            continue
        planned, problems, _ = planned_scores(submission, name, f"contrib-{name}", f"contributions/{name}/"
                                              f"{SCORES_FILE}")
        rows += [(name, r["game_id"], float(r["score"])) for r in planned.scores if r["use_in_fit"]]
    return pd.DataFrame(rows or None, columns=["algorithm_id", "game_id", "score"]).assign(use_in_fit=True)


def same_code_base(repository: str | None, dataset) -> list[str]:
    """The algorithm ids of data/ with numbers from ``repository`` (owner/name, compared ignoring case), by
    data/sources.csv's repository column: entries from the same code base as a new submission, in id order."""
    if not repository or dataset.sources is None or "repository" not in dataset.sources:
        return []
    wanted = str(repository).strip().casefold()
    sources = dataset.sources
    matched = set(sources.loc[sources["repository"].fillna("").astype(str).str.strip().str.casefold() == wanted,
                              "source_id"])
    if not matched:
        return []
    ids = set(dataset.scores.loc[dataset.scores["source_id"].isin(matched), "algorithm_id"])
    ids |= set(dataset.algorithms.loc[dataset.algorithms["source_id"].isin(matched), "algorithm_id"])
    return sorted(str(i) for i in ids)


def _same_code_base_note(meta: dict, dataset, label: str) -> list[Problem]:
    """A note (not a hold) naming the entries of data/ whose numbers come from the repository a new
    submission's numbers come from (upstream.repository): the reviewer checks that it is another run or
    configuration, not one already in data/ under another name."""
    repository = (meta.get("upstream") or {}).get("repository")
    found = same_code_base(repository, dataset)
    if not found:
        return []
    shown = ", ".join(found[:8]) + (f" and {len(found) - 8} more" if len(found) > 8 else "")
    return [Problem(label, None, "upstream.repository",
                    f"the numbers come from {repository}, as do those of {len(found)} entr"
                    f"{'y' if len(found) == 1 else 'ies'} in data/ (same code base): {shown}",
                    "nothing to do if this is another algorithm, configuration or run; say in notes how it "
                    "differs from them (the same run twice would count twice in fits)")]


# A corrected number further than this factor from the one it replaces (per game, either way) needs a
# maintainer: an erratum or a rerun moves a per-game number by a fraction of itself; halving or doubling it is
# what a typo, a change of unit (x100, x1000) or a game mix-up does, and one such row moves the entry's rank.
# A simple, stated rule rather than a fitted one: the same 2x as the warning it replaces (issue 47).
LARGE_CHANGE = 2.0


def correction_changes(rows: list[dict], dataset) -> list[tuple[str, float, float]]:
    """(game, old, new) for every fit row of a correction that supersedes a number in data/, in game order."""
    old = dict(zip(dataset.scores["score_id"], dataset.scores["score"]))
    return sorted((r["game_id"], float(old[r["supersedes"]]), float(r["score"]))
                  for r in rows if r.get("supersedes") is not None and r["supersedes"] in old)


ASCII_HANDLE = re.compile(r"[A-Za-z0-9-]+")  # a GitHub handle (at most 39 characters): one character class
# A GitHub login as the platform gives it: a letter or digit, then letters, digits and '-' (older accounts have
# a trailing or doubled '-'), at most 39 characters; an app's account ends in "[bot]".
GITHUB_LOGIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}(?:\[bot\])?")


def pull_request_author(login: str | None) -> str | None:
    """The pull request's author as the platform gives it (the event's ``pull_request.user.login``), checked to
    be a GitHub login; None when not given or empty (not known). InputError for anything else: it is never
    guessed at."""
    from atari5_spec.data.errors import InputError

    if login is None or str(login) == "":
        return None
    text = str(login)
    if len(text) > 44 or not GITHUB_LOGIN.fullmatch(text):
        raise InputError(f"--author {text[:60]!r}: not a GitHub login; give the pull request's author as the "
                         "event gives it (github.event.pull_request.user.login: letters, digits and '-', at "
                         "most 39 characters)")
    return text


def recorded_contributor(dataset, target: str) -> str | None:
    """The GitHub handle that contributed ``target`` by pull request (from its source's description in
    data/sources.csv, written by ``contribute add``), or None: an entry the maintainers imported from a paper or
    an upstream table, which no contributor's pull request stands behind."""
    algorithms = dataset.algorithms.set_index("algorithm_id")
    sources = dataset.sources.set_index("source_id")
    source = algorithms.loc[target, "source_id"] if target in algorithms.index else None
    text = str(sources.loc[source, "description"]) if source in sources.index else ""
    # String operations, not a pattern: the description is data a pull request can edit.
    if not text.startswith("Contributed by "):  # contribute add writes it first (source_row)
        return None
    handle = text.find(" (@")
    if handle < 0:
        return None
    found = ASCII_HANDLE.match(text, handle + 3, handle + 3 + 40)
    return found.group(0) if found else None


def _correction_warnings(rows: list[dict], dataset, target: str, label: str, metadata_label: str,
                         author: str | None = None) -> list[Problem]:
    """Holds on a correction: numbers that change by more than LARGE_CHANGE times, and a correction whose
    sender is not the entry's recorded contributor. ``author``: who sent it as the platform says (the pull
    request's author); metadata.yaml's ``contributor.github`` is the file's claim and never decides it. None:
    not known (a check or merge by hand), which no correction passes without a maintainer."""
    holds = []
    large = [(g, old, new) for g, old, new in correction_changes(rows, dataset)
             if old == 0 or new == 0 or (old < 0) != (new < 0) or not 1 / LARGE_CHANGE <= new / old <= LARGE_CHANGE]
    if large:
        listed = "; ".join(f"{g} {old:g} -> {new:g}" + (f" (x{new / old:.3g})" if old else "")
                           for g, old, new in large[:8]) + ("; ..." if len(large) > 8 else "")
        holds.append(Hold(label, None, "score", f"{len(large)} corrected number(s) change by more than "
                          f"{LARGE_CHANGE:g} times or change sign: {listed}",
                          "a maintainer checks each against the paper's erratum or table (a typo, a unit or a "
                          "game mix-up changes a number this much)"))
    recorded = recorded_contributor(dataset, target)
    sender = f"@{author} (the pull request's author)" if author is not None else "someone not known here"
    if recorded is None:
        holds.append(Hold(metadata_label, None, "corrects",
                          f"the correction of {target!r} is sent by {sender}; {target!r} was imported by the "
                          "maintainers (no contributor's pull request; data/sources.csv records none), so only a "
                          "maintainer may change it",
                          "a maintainer checks the correction against the paper or table the entry was "
                          "imported from"))
    elif author is None or author.casefold() != recorded.casefold():
        holds.append(Hold(metadata_label, None, "contributor.github",
                          f"the correction of {target!r} is sent by {sender}, not by who contributed the entry "
                          f"(@{recorded}, recorded in data/sources.csv); metadata.yaml's contributor is a claim "
                          "and does not decide it",
                          "a maintainer checks the correction against the paper or its erratum and asks the "
                          "original contributor"))
    return holds


def game_bounds(dataset) -> tuple[dict[str, float], dict[str, float]]:
    """(bounds, best): per game the plausibility bound of SPEC.md section 1.1 (the reference's
    :func:`~atari5_spec.method.reference.upper_bounds`, the rule ``score`` refuses with ``above-game-bound``),
    from data/games.csv's random and human scores and the best score of data/scores.csv, as the gate of
    ``score`` takes them (:func:`atari5_spec.scoring.estimate.published_extremes`)."""
    import math

    from atari5_spec.method.reference import upper_bounds

    games = dataset.games.dropna(subset=["random_score", "human_score"])
    constants = {str(g): (float(r), float(h)) for g, r, h in zip(games["game_id"], games["random_score"],
                                                                   games["human_score"])}
    scores = dataset.scores[dataset.scores["score"].astype(float).map(math.isfinite)]
    best = {str(g): float(v) for g, v in scores.groupby("game_id")["score"].max().items()}
    return upper_bounds(constants, best), best


def above_bounds(rows: list[dict], seed_rows: list[dict], dataset) -> list[tuple[str, float, float, float]]:
    """(game, highest score given, bound, best published) for every game a submission gives a score above its
    plausibility bound (:func:`game_bounds`; the reference's ``games_above_bounds`` decides), in game order."""
    from atari5_spec.method.reference import games_above_bounds

    bounds, best = game_bounds(dataset)
    given: dict[str, list[float]] = {}
    for row in [*rows, *seed_rows]:
        given.setdefault(row["game_id"], []).append(float(row["score"]))
    return [(g, max(given[g]), bounds[g], best[g]) for g in games_above_bounds(given, bounds)]


def _bound_holds(rows: list[dict], seed_rows: list[dict], dataset, label: str) -> list[Problem]:
    """A hold (not a refusal: a genuine new record can exceed it) naming every game with a score above its
    plausibility bound, the score and the bound: the numbers ``score`` refuses as ``above-game-bound``."""
    from atari5_spec.method.reference import BOUND_FACTOR

    above = above_bounds(rows, seed_rows, dataset)
    if not above:
        return []
    listed = "; ".join(f"{g} {value:,.6g} > bound {bound:,.6g} (best published {top:,.6g})"
                       for g, value, bound, top in above)
    return [Hold(label, None, "score",
                 f"{len(above)} game(s) with a score above its plausibility bound (SPEC.md section 1.1, "
                 f"above-game-bound: random + {BOUND_FACTOR:g} x the larger of best published - random and "
                 f"human - random; what `atari5-spec score` refuses): {listed}",
                 "a maintainer checks each against the paper (a unit, a digit or a game mix-up; a genuine new "
                 "record is approved with `contribute add --approved`)")]


def plan_merge(submission: Submission, dataset, author: str | None = None, siblings=()
               ) -> tuple[Merge | None, list[Problem], list[Problem]]:
    """(merge, problems, warnings): the rows a submission adds to the dataset, with new score_ids.

    ``submission`` comes from :func:`read_submission`, which checked that its ids are new. ``author``: who
    sent it as the platform says (the pull request's author, :func:`pull_request_author`), or None when not
    known; a correction is free of holds only when it is the entry's recorded contributor. ``siblings``: the
    other new folders of the same pull request, which a new entry's numbers are compared with too.
    """
    meta = submission.metadata
    upstream = f"contributions/{submission.submission_id}/{SCORES_FILE}"
    metadata_label, scores_label = _display(submission.folder, METADATA_FILE), _display(submission.folder, SCORES_FILE)
    source = source_row(submission, upstream)
    problems, warnings = [], []
    known = set(dataset.algorithms["algorithm_id"])
    target = meta.get("corrects")
    algorithm = None if target else algorithm_row(submission, source["source_id"])
    planned, row_problems, row_warnings = planned_scores(submission, target or submission.submission_id,
                                                         source["source_id"], upstream)
    rows = planned.scores
    problems += row_problems
    warnings += row_warnings
    if target in known:
        link_problems, all_corrections = _link_corrections(rows, dataset, target, scores_label)
        problems += link_problems
    else:
        for row in rows:
            row["supersedes"] = None
        all_corrections = False
    if problems:
        return None, problems, warnings
    if target in known:
        warnings += _correction_warnings(rows, dataset, target, scores_label, metadata_label, author)
    warnings += _bound_holds(rows, planned.seed_scores, dataset, scores_label)
    games57 = set(dataset.games.loc[dataset.games["in_57"].astype(bool), "game_id"])
    too_few = None
    outside = sorted({r["game_id"] for r in rows} - games57)
    if outside:
        warnings.append(Problem(scores_label, None, "game",
                                f"{len(outside)} game(s) outside the 57-game benchmark ({', '.join(outside)}): "
                                "stored, and left out of every fit, median and Atari-5 score",
                                "nothing to do: they are real ALE games the source reports"))
    if algorithm is not None:
        n_games = len({r["game_id"] for r in rows if r["use_in_fit"]} & games57)
        from atari5_spec.data.frames import agent_steps_note

        steps = agent_steps_note(algorithm["training_frames"]) if algorithm["training_frames"] else None
        if steps:
            warnings.append(Problem(metadata_label, None, "protocol.training_frames", steps,
                                    "training_frames counts emulator frames (skipped frames included)"))
        if algorithm["exclusion"]:
            warnings.append(Problem(metadata_label, None, "protocol",
                                    f"the entry stays out of fits: {algorithm['exclusion_note']}",
                                    "nothing to do if the protocol is right (it is stored with exclusion "
                                    f"{algorithm['exclusion']})"))
        elif n_games < FIT_MIN_GAMES:
            too_few = f"{n_games} of the 57 games, fits need {FIT_MIN_GAMES}"
            warnings.append(Problem(scores_label, None, None, f"scores for {n_games} of the 57 games: fits need at "
                                    f"least {FIT_MIN_GAMES}, so the entry is stored but does not enter fits",
                                    "add every game the paper reports"))
        warnings += _duplicate_warnings(rows, dataset, scores_label, algorithm["name"], metadata_label,
                                        submission.folder, siblings)
        warnings += _same_code_base_note(meta, dataset, metadata_label)
    first = int(dataset.scores["score_id"].max()) + 1 if len(dataset.scores) else 1
    scores = [{"score_id": first + i, **row} for i, row in enumerate(rows)]
    bump = "patch" if target and all_corrections and not planned.seed_scores and not planned.budget_scores else "minor"
    return Merge(source, algorithm, scores, bump, target, planned.seed_scores, planned.budget_scores,
                 tuple(outside), too_few), [], warnings


# --- already merged ---------------------------------------------------------------------------------------

def merged_problems(submission: Submission, dataset, source_id: str) -> list[Problem]:
    """Problems when data/ no longer holds exactly the rows the merged submission gives."""
    upstream = f"contributions/{submission.submission_id}/{SCORES_FILE}"
    target = submission.metadata.get("corrects") or submission.submission_id
    planned, problems, _ = planned_scores(submission, target, source_id, upstream)
    if problems:
        return problems
    compared = {"scores": ["algorithm_id", "game_id", "score", "raw_value", "provenance", "use_in_fit"],
                "seed_scores": ["algorithm_id", "game_id", "seed", "score", "raw_value", "provenance"],
                "budget_scores": ["algorithm_id", "game_id", "training_frames", "seed", "score", "raw_value",
                                  "provenance"]}
    for table, columns in compared.items():
        expected = sorted(tuple(r[c] for c in columns) for r in getattr(planned, table))
        frame = getattr(dataset, table)
        stored = frame[frame["source_id"] == source_id] if frame is not None else None
        found = [] if stored is None else sorted(
            tuple(bool(v) if c == "use_in_fit" else int(v) if c in ("seed", "training_frames") else v
                  for c, v in zip(columns, t)) for t in stored[columns].itertuples(index=False, name=None))
        if expected != found:
            return [Problem(_display(submission.folder, SCORES_FILE), None, None,
                            f"already merged as source {source_id}, but data/{table}.csv holds {len(found)} rows of "
                            f"it where the submission gives {len(expected)} (or their numbers differ)",
                            "a merged submission must not change: submit a correction (corrects: ...) in a new folder")]
    return []
