"""What a submission is made of: its files and limits, the rows it gives, and the outcome of checking it."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from atari5_spec.data.errors import InputError
from atari5_spec.data.limits import ASCII_NUMBER
from atari5_spec.data.validation import Problem, format_problems

MAX_FILE_BYTES = 1 << 20  # 1 MiB: a full 57-game table with 100 seeds is about 60 kB
# metadata.yaml: the template filled in is about 2 kB; the YAML reader (pure Python, linear) reads 64 KiB in a second.
MAX_METADATA_BYTES = 64 << 10
# Runs (seeds) per game, per training budget: the data's largest is 67 (BBF with sticky actions); a table of
# thousands of seeds of one game is a mistake or an attempt to outweigh the other games' evidence.
MAX_SEEDS_PER_GAME = 100
METADATA_FILE, SCORES_FILE = "metadata.yaml", "scores.csv"
SUBMISSION_FILES = (METADATA_FILE, SCORES_FILE)
METADATA_SCHEMA = "schemas/contribution-metadata.schema.json"
SCORES_SCHEMA = "schemas/contribution-scores.schema.json"
CHANGELOG = "CHANGELOG.md"

STANDARD_EPISODE_FRAMES = 108_000
MIN_TRAINING_FRAMES = 10_000_000  # the data's short-budget entries (Atari 100k..1M steps) are at most 4M frames
FAR_BELOW_RANDOM = 10  # reject scores below random - FAR_BELOW_RANDOM x (human - random)
FIT_MIN_GAMES = 40  # the paper's inclusion rule (training.PAPER_RULE), repeated in a warning only
# Statistics a fit row can be derived from per-seed scores with.
DERIVABLE = ("mean", "median", "best-seed", "single-seed")
# Text that a spreadsheet would run as a formula (CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = ASCII_NUMBER  # plain decimal or scientific notation, ASCII digits only (see atari5_spec.data.limits)
# "1705.80 ± 439.74": results tables print the mean and its spread in one cell; data.rawvalues.split_spread
# splits it (string operations, linear), with the signs data.rawvalues reads back from raw_value.
CURVE_COLUMNS = ("points", "first_frame", "last_frame")


class SubmittedScore(NamedTuple):
    """One accepted row of a submission's scores.csv."""

    line: int
    game_id: str
    raw_value: str  # the score's text byte for byte as written, but for surrounding spaces
    score: float
    seed: int | None
    std: float | None = None
    training_frames: int | None = None  # set on a learning-curve row (score at a budget)
    points: int | None = None
    first_frame: int | None = None
    last_frame: int | None = None
    where: str | None = None  # the row's own provenance column

    @property
    def kind(self) -> str:
        """'published' (the per-game number), 'seed' (a run's final score) or 'budget' (a run at a budget)."""
        return "budget" if self.training_frames is not None else "published" if self.seed is None else "seed"


class Submission(NamedTuple):
    """A submission that parsed: its id (the folder name), metadata and score rows."""

    folder: Path
    submission_id: str
    metadata: dict
    scores: list[SubmittedScore]


class Merge(NamedTuple):
    """The rows a submission adds to data/, and the version bump it makes."""

    source: dict
    algorithm: dict | None  # None for a correction
    scores: list[dict]
    bump: str  # "minor" (new data) or "patch" (corrections only)
    corrects: str | None
    seed_scores: list[dict] = []    # rows of data/seed_scores.csv
    budget_scores: list[dict] = []  # rows of data/budget_scores.csv
    outside_games: tuple[str, ...] = ()  # games of the rows outside the 57 (stored, never in fits)
    too_few_games: str | None = None  # '19 of the 57 games, fits need 40' when the entry has too few for fits
    warnings: tuple = ()  # the warnings `check` prints (set by add_submission, which prints them too)

    def counts(self) -> str:
        """'57 scores used by fits, 299 per-seed scores and 1495 budget scores'.

        An entry whose protocol keeps it out of fits says so here, instead of
        calling its per-game numbers "used by fits" next to a warning that it
        stays out of them.
        """
        fit = sum(1 for r in self.scores if r["use_in_fit"] and r["game_id"] not in self.outside_games)
        outside = sum(1 for r in self.scores if r["game_id"] in self.outside_games)
        exclusion = (self.algorithm or {}).get("exclusion") or self.too_few_games
        games = (f"{fit} per-game scores (kept out of fits: {exclusion})" if exclusion
                 else f"{fit} scores used by fits")
        games += f", {outside} of games outside the 57 (never in fits)" if outside else ""
        return f"{games}, {len(self.seed_scores)} per-seed scores and {len(self.budget_scores)} budget scores"


class PlannedRows(NamedTuple):
    """The rows a submission gives each table, before ids and supersedes are assigned."""

    scores: list[dict]
    seed_scores: list[dict]
    budget_scores: list[dict]


class Hold(Problem):
    """A finding a maintainer must decide on before merging (not an error in the submission): a correction by
    someone other than the entry's contributor, a name that looks like an entry's, numbers that are another
    entry's up to a factor. ``contribute check`` prints it and exits 0; the pull-request review says "needs a
    maintainer"; ``contribute add`` refuses it unless given ``--approved``."""

    __slots__ = ()


class Report(NamedTuple):
    """The outcome of checking a submission. It may be merged when ``problems`` is empty."""

    submission_id: str
    problems: list[Problem]
    warnings: list[Problem]
    merge: Merge | None
    merged_as: str | None = None  # source_id when the submission is already in data/
    # The merge base (a commit) when the submission is merged in this branch's data/ but not in the base's: the
    # report's problems, warnings and merge are then the check against the base's data, as the review's.
    merged_base: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def holds(self) -> list[Problem]:
        """The warnings a maintainer must decide on (:class:`Hold`)."""
        return [w for w in self.warnings if isinstance(w, Hold)]


class SubmissionError(InputError):
    """A submission that cannot be merged; ``report`` lists why."""

    def __init__(self, report: Report, message: str | None = None):
        self.report = report
        super().__init__(message or format_report(report))


def _display(folder: Path, name: str | None = None) -> str:
    """How files are named in problems: as the user gave the folder."""
    return str(folder / name) if name else str(folder)


def format_report(report: Report) -> str:
    """Problems, then warnings, then a one-line verdict."""
    lines = []
    if report.problems:
        lines.append(format_problems(report.problems))
    lines += [f"{'needs a maintainer' if isinstance(w, Hold) else 'warning'}: {w}" for w in report.warnings]
    if report.merged_as and report.merged_base and not report.problems:
        holds = report.holds
        lines.append(f"{report.submission_id}: merged on this branch only (source {report.merged_as}; data/ matches "
                     f"the submission), not on the base {report.merged_base[:12]}; checked against the base's data: "
                     + (f"{len(holds)} finding(s) need a maintainer (above), NOT ready to merge." if holds
                        else f"{report.merge.counts()}, no finding needs a maintainer." if report.merge
                        else "no finding needs a maintainer."))
    elif report.merged_as and not report.problems:
        lines.append(f"{report.submission_id}: already merged as source {report.merged_as}; data/ matches the submission.")
    elif report.problems:
        lines.append(f"\n{report.submission_id}: {len(report.problems)} problem(s), {len(report.warnings)} warning(s): "
                     "NOT ready to merge.")
    else:
        merge = report.merge
        what = (f"corrects `{merge.corrects}`" if merge.corrects else f"new algorithm `{merge.algorithm['algorithm_id']}`")
        held = (f"; {len(report.holds)} finding(s) need a maintainer, who merges it with `contribute add "
                "--approved` after checking them" if report.holds else "")
        lines.append(f"{report.submission_id}: {'no problems' if held else 'ready to merge'}: {what}, "
                     f"{merge.counts()} ({merge.bump} version bump)" + held
                     + (f", {len(report.warnings)} warning(s) for the reviewer." if report.warnings else "."))
    return "\n".join(lines)
