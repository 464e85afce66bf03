"""Validation of the data package.

Two layers, each doing what it is good at:

* Frictionless checks structure against the Table Schemas in schemas/: header,
  types, constraints, primary and foreign keys, and each file's sha256 hash and
  size recorded in datapackage.json.
* pandera checks the typed frames against models *built from the same
  schemas* (so columns, types and constraints are stated once) plus the rules a
  Table Schema cannot say: human score above random score, finite scores,
  referenced ids that exist, agreeing numbers for a pair used by fits,
  corrections that point at an earlier row of the same pair, ...

Every problem comes back as a :class:`Problem` naming the file, the line (as an
editor numbers it, header = line 1), the column, what is wrong and how to fix it.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .datapackage import package_root, read_descriptor, schema_of
from .errors import InputError
from .limits import FORBIDDEN_CHARACTER, MAX_ABS_SCORE
from .loading import PANDAS_DTYPES, TABLES, Dataset, TableReadError, load
from .paths import regular_file_problem
from .problems import Problem, format_problems
from .rawvalues import MAX_RAW_VALUE_CHARS, PLAIN_NUMBER, raw_value_number

__all__ = ["Problem", "validate_package", "validate_dataset", "pandera_schema", "format_problems",
           "frictionless_problems", "in_background", "descriptor_problems", "clean_text", "inert_text"]


# --- Frictionless ----------------------------------------------------------

_FIXES = {
    "hash-count": "the file changed after datapackage.json recorded its sha256; if the change is intended, "
                  "record it as a versioned change (atari5-spec contribute add, or scripts/ + CHANGELOG) so the hash is updated",
    "byte-count": "the file's size differs from datapackage.json 'bytes'; see the hash fix",
    "type-error": "write a value of the column's type (numbers with '.' as decimal mark, no thousands separators; booleans true/false)",
    "constraint-error": "use a value allowed by the column's constraints in schemas/ (required, enum, pattern, range)",
    "unique-error": "this value must be unique in its column; use another id",
    "primary-key": "the row's key repeats another row's; use a new id",
    "foreign-key": "the referenced id does not exist: add it to the referenced table or correct the spelling",
    "missing-cell": "the row has fewer cells than the header: fill the missing cells (empty is allowed for optional columns)",
    "extra-cell": "the row has more cells than the header: remove the extra cells or quote values containing commas",
    "blank-row": "remove the empty line",
    "missing-label": "add the missing column to the header (see schemas/)",
    "extra-label": "remove the column that the schema does not define",
    "incorrect-label": "rename the header to the schema's column name (order matters)",
    "duplicate-label": "rename or remove the duplicated column",
    "scheme-error": "the file is missing: restore it or fix the resource path in datapackage.json",
    "encoding-error": "save the file as UTF-8",
}


def _relative(root: Path, place: str | None) -> str:
    return str(place) if place else "datapackage.json"


def descriptor_problems(root: Path) -> list[Problem]:
    """What must hold before any reader, Frictionless included, follows the descriptor's paths.

    datapackage.json parses within the limits, has the shape this project
    needs, and every path in it stays inside the package (atari5_spec.data.paths);
    every resource is a regular file. Frictionless refuses absolute and '..'
    paths itself (untrusted mode, its default) but follows symbolic links and
    opens whatever is there, so it runs only when this list is empty.
    """
    try:
        descriptor = read_descriptor(root)
    except InputError as error:
        message = str(error).removeprefix("datapackage.json: ").removeprefix("datapackage.json, ")
        line, _, rest = message.partition(": ")
        row = int(line.removeprefix("line ")) if re.fullmatch(r"line [0-9]+", line) else None
        return [Problem("datapackage.json", row, None, rest if row else message,
                        "datapackage.json can be changed by a pull request: restore it from the repository")]
    problems = []
    for resource in descriptor["resources"]:
        problem = regular_file_problem(Path(root) / resource["path"])
        if problem:
            problems.append(Problem(resource["path"], None, None, problem,
                                    "restore the file (a resource is a regular CSV file in the package)"))
    return problems


def frictionless_problems(root: Path) -> list[Problem]:
    """Structure, types, constraints, keys and hashes, via frictionless: the descriptor, then each resource
    (:mod:`.validation_cache`: content Frictionless has judged before is not read again)."""
    from . import validation_cache

    try:
        descriptor = read_descriptor(root)
    except InputError:
        descriptor = None  # descriptor_problems says why
    names = [e.get("name") for e in descriptor["resources"]] if descriptor else []
    keys: dict = {}
    if names and all(isinstance(n, str) and n for n in names) and len(set(names)) == len(names):
        version = _frictionless_version()       # (otherwise nothing is cached: Frictionless says what is wrong)
        keys = {None: validation_cache.descriptor_key(root, descriptor, version),
                **{name: validation_cache.resource_key(root, descriptor, name, version) for name in names}}
    known = {name: validation_cache.read_entry(key) if key else None for name, key in keys.items()}
    if keys and all(found is not None for found in known.values()):
        found = known[None] or [f for name in names for f in known[name]]  # as computed: a bad descriptor alone
    else:
        found = _frictionless_findings(root, keys, known)
    return [Problem(f["file"], f["row"], f["column"], f["message"],
                    f["fix"] if f["type"] is None else _FIXES.get(f["type"], "see the Frictionless error type " + f["type"]))
            for f in found]


def _frictionless_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("frictionless")
    except PackageNotFoundError:
        return "unknown"


def _frictionless_findings(root: Path, keys: dict, known: dict) -> list[dict]:
    """Frictionless's findings as plain dicts (file, row, column, message, type, fix): the descriptor's (key None),
    then each resource's, each read from ``known`` when there and kept under its key when computed."""
    import frictionless  # imported here: it is slow to import and only validation needs it

    from . import validation_cache

    def descriptor_finding(message: str, fix: str = "fix the descriptor") -> dict:
        return {"file": "datapackage.json", "row": None, "column": None, "message": message, "type": None, "fix": fix}

    try:
        package = frictionless.Package(str(Path(root) / "datapackage.json"))
        if known.get(None) is None:
            try:
                package.to_descriptor(validate=True)
                known[None] = []
            except frictionless.FrictionlessException as exception:
                known[None] = [descriptor_finding(e.message) for e in exception.to_errors()]
            if keys.get(None):
                validation_cache.write_entry(keys[None], known[None])
            if known[None]:
                return known[None]
        found = list(known[None])
        for resource in package.resources:
            if known.get(resource.name) is None:
                known[resource.name] = _resource_findings(root, resource, descriptor_finding)
                if keys.get(resource.name) and str(Path(root).resolve()) not in json.dumps(known[resource.name]):
                    validation_cache.write_entry(keys[resource.name], known[resource.name])
            found += known[resource.name]
        return found
    except frictionless.FrictionlessException as error:
        return [descriptor_finding(str(error), "fix the descriptor so it is a valid Data Package")]
    except Exception as error:  # Frictionless failing on a descriptor it does not expect: a problem, not a crash
        return [descriptor_finding(f"Frictionless cannot read the package ({type(error).__name__}: {error})",
                                   "fix the descriptor so it is a valid Data Package")]


def _resource_findings(root: Path, resource, descriptor_finding) -> list[dict]:
    report = resource.validate()
    found = [descriptor_finding(e.message) for e in report.errors]
    for task in report.tasks:
        for error in task.errors:
            found.append({"file": _relative(root, task.place), "row": getattr(error, "row_number", None),
                          "column": getattr(error, "field_name", None) or getattr(error, "label", None),
                          "message": error.message, "type": error.type, "fix": None})
    return found


# --- pandera -----------------------------------------------------------------

def pandera_schema(table_schema: dict, name: str, checks: list | None = None):
    """A pandera DataFrameSchema built from a Frictionless Table Schema.

    Types, required/unique and enum/pattern/range/length constraints are taken
    from the Table Schema, so schemas/ stays the single source of truth; the
    cross-field rules are added as ``checks``.
    """
    import pandera.pandas as pa

    columns = {}
    for field in table_schema["fields"]:
        constraints = field.get("constraints", {})
        column_checks = []
        if "enum" in constraints:
            column_checks.append(pa.Check.isin(constraints["enum"]))
        if "pattern" in constraints:
            column_checks.append(pa.Check.str_matches(f"(?:{constraints['pattern']})\\Z"))
        if "minimum" in constraints:
            column_checks.append(pa.Check.ge(constraints["minimum"]))
        if "maximum" in constraints:
            column_checks.append(pa.Check.le(constraints["maximum"]))
        if "maxLength" in constraints:
            column_checks.append(pa.Check.str_length(max_value=constraints["maxLength"]))
        columns[field["name"]] = pa.Column(
            PANDAS_DTYPES[field.get("type", "string")], column_checks,
            nullable=not constraints.get("required", False), unique=constraints.get("unique", False),
            description=field.get("description"))
    return pa.DataFrameSchema(columns, checks=checks or [], strict=True, ordered=True, name=name,
                              coerce=False)


def _rule(pa, column, test, message, fix):
    """A row-wise pandera check on the whole frame; its error text carries the column and the fix."""
    return pa.Check(test, name=f"rule:{column}", error=f"{column}||{message}||{fix}")


def rule_checks(name: str, data: Dataset) -> list:
    """The rules Table Schemas cannot state, as row-wise pandera checks."""
    import pandera.pandas as pa

    games, algorithms, scores, sources = data.games, data.algorithms, data.scores, data.sources
    this_year = _dt.date.today().year
    if name == "games":
        return text_checks(pa, name, data) + [
            _rule(pa, "human_score", lambda d: ~(d.human_score <= d.random_score).fillna(False),
                  "human score is not above random score", "check both constants against the source table"),
            _rule(pa, "random_score", lambda d: ~(d.in_57 & (d.random_score.isna() | d.human_score.isna())).fillna(False),
                  "a canonical game needs both random_score and human_score", "fill both normalisation constants"),
            _rule(pa, "in_57", lambda d: pd.Series(int(d.in_57.sum()) == 57, index=d.index) | ~d.in_57,
                  "the package must mark exactly 57 games as in_57", "set in_57 to true for the canonical 57 games only"),
        ]
    if name == "algorithms":
        return protocol_checks(pa) + text_checks(pa, name, data) + [
            _rule(pa, "exclusion_note", lambda d: d.exclusion.isna() == d.exclusion_note.isna(),
                  "exclusion and exclusion_note go together", "give both a reason code and a sentence, or neither"),
            _rule(pa, "year", lambda d: ~(d.year > this_year).fillna(False),
                  f"year is in the future (after {this_year})", "give the paper's publication year"),
            _rule(pa, "source_id", lambda d: d.source_id.isin(sources.source_id),
                  "source_id is not in data/sources.csv", "add the source to data/sources.csv or fix the id"),
        ]
    if name == "scores":
        superseded_rows = scores.set_index("score_id")
        fit = scores[scores.use_in_fit & ~scores.score_id.isin(scores.supersedes.dropna())]
        pair = fit.groupby(["algorithm_id", "game_id"]).score
        spread = pair.transform("max") - pair.transform("min")

        def supersedes_ok(d):
            target = d.supersedes.dropna().astype(int)
            ok = pd.Series(True, index=d.index)
            known = target.isin(superseded_rows.index)
            ok[target.index[~known]] = False
            t = target[known]
            same = ((superseded_rows.loc[t.values, "algorithm_id"].to_numpy() == d.loc[t.index, "algorithm_id"].to_numpy())
                    & (superseded_rows.loc[t.values, "game_id"].to_numpy() == d.loc[t.index, "game_id"].to_numpy())
                    & (t.values < d.loc[t.index, "score_id"].to_numpy()))
            ok[t.index[~same]] = False
            return ok

        return text_checks(pa, name, data) + [
            _rule(pa, "score", plausible_scores,
                  f"score is not a finite number within {MAX_ABS_SCORE:g} of zero (the plausibility rule)",
                  "write the published score as a plain number"),
            _rule(pa, "raw_value", lambda d: raw_value_agrees(d, with_std=True),
                  "score (or std) is not the number raw_value says",
                  "make score exactly the published text's number (189.1k = 189100; '1705.80 ± 439.74' = score "
                  "1705.8, std 439.74), or fix raw_value"),
            _rule(pa, "algorithm_id", lambda d: d.algorithm_id.isin(algorithms.algorithm_id),
                  "algorithm_id is not in data/algorithms.csv", "add the algorithm or fix the id"),
            _rule(pa, "game_id", lambda d: d.game_id.isin(games.game_id),
                  "game_id is not in data/games.csv", "use a game id from data/games.csv (ALE ROM id)"),
            _rule(pa, "source_id", lambda d: d.source_id.isin(sources.source_id),
                  "source_id is not in data/sources.csv", "add the source or fix the id"),
            _rule(pa, "provenance", lambda d: ~d.duplicated(["algorithm_id", "game_id", "provenance"], keep=False),
                  "duplicate row: same algorithm, game and provenance as another row", "remove the repeated row"),
            _rule(pa, "reported_in", lambda d: ~(d.index.isin(fit.index) & d.duplicated(
                      ["algorithm_id", "game_id", "source_id", "reported_in", "use_in_fit"], keep=False)),
                  "duplicate (algorithm, game, source) among the rows used by fits",
                  "keep one row use_in_fit=true, or supersede the old one"),
            _rule(pa, "use_in_fit", lambda d: ~(spread.reindex(d.index).fillna(0) != 0),
                  "rows used by fits disagree for this (algorithm, game) pair",
                  "set use_in_fit=false on the alternative number, or add a correcting row with supersedes"),
            _rule(pa, "supersedes", supersedes_ok,
                  "supersedes must name an earlier row of the same algorithm and game",
                  "point supersedes at the score_id being corrected"),
        ]
    if name in ("seed_scores", "budget_scores"):
        return per_seed_checks(pa, name, data)
    if name == "protocol_evidence":
        return protocol_evidence_checks(pa, data)
    if name == "protocols":
        return text_checks(pa, name, data) + protocol_table_checks(pa)
    if name == "benchmark_games":
        canonical = games.loc[games.in_57.astype(bool), "game_id"]
        return text_checks(pa, name, data) + [
            _rule(pa, "game_id", lambda d: d.game_id.isin(canonical),
                  "game_id is not one of the 57 canonical games in data/games.csv", "use a canonical game id"),
            _rule(pa, "game_id", lambda d: ~d.duplicated(["benchmark", "game_id"], keep=False),
                  "the game is listed twice for the benchmark", "keep one row"),
        ]
    if name == "paper_links":
        return text_checks(pa, name, data) + paper_link_checks(pa, data.paper_links, algorithms)
    if name == "cross_checks":
        return text_checks(pa, name, data) + [
            _rule(pa, "algorithm_id", lambda d: d.algorithm_id.isin(algorithms.algorithm_id),
                  "algorithm_id is not in data/algorithms.csv", "add the algorithm or fix the id"),
            _rule(pa, "game_id", lambda d: d.game_id.isin(games.game_id),
                  "game_id is not in data/games.csv", "use a game id from data/games.csv"),
            _rule(pa, "source_b", lambda d: ~d.duplicated(["algorithm_id", "game_id", "source_a", "source_b"], keep=False),
                  "duplicate comparison (same algorithm, game and two sources)", "keep one row"),
        ]
    return text_checks(pa, name, data) + [
        _rule(pa, "source_id", lambda d: ~d.source_id.duplicated(keep=False), "duplicate source_id", "use a new id")]


PAPER_LINK_FORMATS = {"doi": r"10\.[0-9]{4,9}/[-._;()/:A-Za-z0-9]+", "arxiv": r"[0-9]{4}\.[0-9]{4,5}",
                      "url": r"https://[^\s\"<>]+"}


def paper_link_checks(pa, links: pd.DataFrame, algorithms: pd.DataFrame) -> list:
    """data/paper_links.csv: one row per entry, the identifier in its kind's format, none-found with a reason."""
    def formatted(d):
        return pd.Series([(k == "none-found" and (v is pd.NA or v == "")) or
                          (k in PAPER_LINK_FORMATS and v is not pd.NA and re.fullmatch(PAPER_LINK_FORMATS[k], v) is not None)
                          for k, v in zip(d.link_kind, d.link)], index=d.index, dtype=bool)

    return [
        _rule(pa, "algorithm_id", lambda d: d.algorithm_id.isin(algorithms.algorithm_id),
              "algorithm_id is not in data/algorithms.csv", "add the algorithm or fix the id"),
        _rule(pa, "algorithm_id", lambda d: ~d.algorithm_id.duplicated(keep=False),
              "a second row for the entry", "keep one row per entry"),
        _rule(pa, "link", formatted, "the link does not have the format its link_kind names (doi 10.NNNN/suffix, "
              "arxiv YYMM.NNNNN, url https://...; empty for none-found)", "fix link or link_kind"),
        _rule(pa, "reason", lambda d: (d.link_kind != "none-found") | d.reason.notna(),
              "none-found needs the reason", "say why no identifier is given"),
    ] + (paper_author_checks(pa) if "status" in links.columns else [])


def paper_author_checks(pa) -> list:
    """data 1.97.0: a link is stated or doubtful (a doubt says what), none-found has no status, and the authors are
    BibTeX names: non-empty names separated by " and ", each "Last, First" (or one word), "others" only last."""
    def names(d):
        def ok(text):
            if text is pd.NA or text == "":
                return True
            parts = str(text).split(" and ")
            return (all(p.strip() == p and p and p.count(",") <= 1 and not p.endswith(",") for p in parts)
                    and "others" not in parts[:-1])
        return pd.Series([ok(v) for v in d.authors], index=d.index, dtype=bool)

    return [
        _rule(pa, "status", lambda d: (d.link_kind == "none-found") == d.status.isna(),
              "a link needs its status (stated or doubtful) and none-found has none",
              "set status stated or doubtful for a link; leave it empty for none-found"),
        _rule(pa, "reason", lambda d: (d.status != "doubtful").fillna(True) | d.reason.notna(),
              "a doubtful link needs the reason (what is in doubt)", "say what is in doubt"),
        _rule(pa, "authors", lambda d: (d.link_kind != "none-found") | d.authors.isna(),
              "none-found has no paper, so no authors", "give the link or empty the authors"),
        _rule(pa, "authors", names, "the authors are not BibTeX names (\"Last, First and Last, First\", one comma "
              "per name, \"and others\" only at the end)", "write the names as BibTeX does"),
    ]


def plausible_scores(d: pd.DataFrame) -> pd.Series:
    """Finite raw scores within MAX_ABS_SCORE of zero (atari5_spec.data.limits: no game displays a billion points)."""
    values = d.score.to_numpy(float)
    return pd.Series(np.isfinite(values) & (np.abs(values) <= MAX_ABS_SCORE), index=d.index)


def text_checks(pa, name: str, data: Dataset) -> list:
    """No control or bidirectional characters in any text column (they reach terminals and spreadsheets)."""
    frame = getattr(data, name)
    columns = [c for c in frame.columns if str(frame[c].dtype) == "string"]

    def clean(column):
        return lambda d: clean_text(d[column])

    def inert(column):
        return lambda d: inert_text(d[column])

    return [_rule(pa, column, clean(column), "the text holds a control or bidirectional character",
                  "type the text again as plain characters") for column in columns] + [
            _rule(pa, column, inert(column), "the text starts with = + - or @, which a spreadsheet runs as a formula",
                  "start the text with a letter or digit (numbers, such as -1.5 or -1.5 ± 0.2, are fine)")
            for column in columns]


def clean_text(values: pd.Series) -> pd.Series:
    """Per cell of a text column: empty, or ``control_character_problem`` finds nothing. One regex search over
    the joined column answers for a clean column; a column with a hit (or holding the join character) is then
    searched cell by cell."""
    cells = values.to_numpy(object, na_value="")
    joined = _JOIN.join(cells)
    if joined.count(_JOIN) == len(cells) - 1 and not FORBIDDEN_CHARACTER.search(joined):
        return pd.Series(True, index=values.index)
    return ~values.str.contains(FORBIDDEN_CHARACTER, na=False).astype(bool)


_JOIN = "\ue000"  # a private-use character, not a forbidden one: joins a column's cells for one search


def inert_text(values: pd.Series) -> pd.Series:
    """Per cell of a text column: empty, or not a ``spreadsheet_formula`` (the full test only for the cells that
    start with = + - @ or a space)."""
    cells = values.to_numpy(object, na_value="")
    inert = np.ones(len(cells), bool)
    for i, cell in enumerate(cells):
        first = cell[:1]
        if (first in FORMULA_STARTS or first.isspace()) and spreadsheet_formula(cell):
            inert[i] = False
    return pd.Series(inert, index=values.index)


FORMULA_STARTS = ("=", "+", "-", "@")  # the first characters a spreadsheet reads as a formula


def spreadsheet_formula(text: str) -> bool:
    """Whether a spreadsheet would run the stored text as a formula: it starts with = + - or @ (after spaces)
    and is not a number in one of the published forms (-12.5, -1.2 ± 0.3)."""
    from .rawvalues import raw_value_number

    stripped = text.lstrip()
    return stripped.startswith(FORMULA_STARTS) and raw_value_number(stripped) is None


PROTOCOL_COLUMNS = ("start_condition", "noop_max", "sticky_action_probability", "action_set", "life_loss_episode_end",
                    "frame_skip", "max_episode_frames", "training_frames", "regime", "evaluation", "eval_episodes",
                    "statistic", "seeds", "env_family")


def regime_label(training_frames: float) -> str:
    """The regime label of a budget in frames: atari-100k for 400k frames, else 10M, 200M, 22.8B, ..."""
    if training_frames == 400_000:
        return "atari-100k"
    if training_frames < 1_000_000_000:
        return f"{training_frames / 1e6:g}M"
    return f"{training_frames / 1e9:g}B"


def protocol_checks(pa) -> list:
    """Protocol facts that must agree with each other (data package 1.0)."""
    def regime_ok(d):
        both = d.regime.notna() & d.training_frames.notna()
        labels = pd.Series([regime_label(float(f)) if b else None for f, b in zip(d.training_frames, both)],
                           index=d.index, dtype=object)
        return ~both | (labels == d.regime.astype(object))

    def cited(d):
        stated = d[[c for c in PROTOCOL_COLUMNS if c in d]].notna().any(axis=1)
        return ~stated | d.protocol_note.notna()

    return [
        _rule(pa, "regime", regime_ok, "regime does not agree with training_frames",
              "write the label of training_frames (400000 -> atari-100k, 200000000 -> 200M, 1e10 -> 10B)"),
        _rule(pa, "protocol_note", cited, "protocol facts without protocol_note",
              "say in protocol_note where each fact comes from (paper section, table or configuration file)"),
        _rule(pa, "seeds", lambda d: ~((d.statistic == "single-seed") & (d.seeds != 1)).fillna(False),
              "statistic single-seed with more than one seed", "set seeds to 1, or name the statistic over the seeds"),
    ]


def _cell_text(value) -> str | None:
    """A typed cell as its CSV text (1e8 -> '100000000', 0.25 -> '0.25', True -> 'true'); None when missing."""
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def protocol_evidence_checks(pa, data: Dataset) -> list:
    """Each evidence row documents the protocol column it names: a stated value is the one data/algorithms.csv
    holds (a derived value too, data 1.96.0); not-stated and not-found leave the column empty there (data package
    1.24)."""
    algorithms = data.algorithms.set_index("algorithm_id")

    def held(d):  # the text data/algorithms.csv holds for each row's (algorithm, field)
        return pd.Series([_cell_text(algorithms.at[a, f]) if a in algorithms.index and f in algorithms.columns else None
                          for a, f in zip(d.algorithm_id, d.field)], index=d.index, dtype=object)

    def agrees(d):
        cell = held(d)
        value = d.value.astype(object).where(d.value.notna(), None)
        stated = d.status.isin(["stated", "derived"])
        same = pd.Series([c is not None and v is not None and _same_value(c, v) for c, v in zip(cell, value)],
                         index=d.index)
        empty = cell.isna() & value.isna()
        return (stated & same) | (~stated & empty)

    return text_checks(pa, "protocol_evidence", data) + [
        _rule(pa, "algorithm_id", lambda d: d.algorithm_id.isin(algorithms.index),
              "algorithm_id is not in data/algorithms.csv", "add the algorithm or fix the id"),
        _rule(pa, "field", lambda d: ~d.duplicated(["algorithm_id", "field"], keep=False),
              "two evidence rows for the same algorithm and field", "keep one row per protocol field"),
        _rule(pa, "value", agrees,
              "the evidence does not match data/algorithms.csv (a stated or derived value must be the column's value; "
              "not-stated and not-found leave both empty)",
              "make value the text of the column in data/algorithms.csv, or fix the column, or the status"),
    ]


def protocol_table_checks(pa) -> list:
    """A protocol's start condition and its no-op maximum agree (data/protocols.csv, data 1.95): no-op starts need
    a maximum of at least 1, a reset start has none (0 or empty)."""
    def starts_agree(d):
        noop = d.start_condition == "no-op"
        reset = d.start_condition == "reset"
        return ~((noop & ~(d.noop_max >= 1).fillna(False)) | (reset & (d.noop_max > 0).fillna(False))).fillna(False)

    return [_rule(pa, "noop_max", starts_agree,
                  "start_condition and noop_max disagree (no-op starts need noop_max of at least 1; a reset start "
                  "has noop_max 0 or empty)", "give the number of no-ops the source states, or fix start_condition")]


def _same_value(held: str, given: str) -> bool:
    try:
        return float(held) == float(given)
    except ValueError:
        return held == given


def per_seed_checks(pa, name: str, data: Dataset) -> list:
    """Rules of the per-seed tables: known ids, finite scores, curve windows inside the budget."""
    games, algorithms, sources = data.games, data.algorithms, data.sources
    canonical = games.loc[games.in_57.astype(bool), "game_id"]
    checks = text_checks(pa, name, data) + [
        _rule(pa, "score", plausible_scores,
              f"score is not a finite number within {MAX_ABS_SCORE:g} of zero (the plausibility rule)",
              "write the score as a plain number"),
        _rule(pa, "raw_value", lambda d: raw_value_agrees(d, with_std=False),
              "score is not the number raw_value says", "make score exactly raw_value's number, or fix raw_value"),
        _rule(pa, "algorithm_id", lambda d: d.algorithm_id.isin(algorithms.algorithm_id),
              "algorithm_id is not in data/algorithms.csv", "add the algorithm or fix the id"),
        _rule(pa, "game_id", lambda d: d.game_id.isin(canonical),
              "game_id is not one of the 57 canonical games in data/games.csv", "use a canonical game id"),
        _rule(pa, "source_id", lambda d: d.source_id.isin(sources.source_id),
              "source_id is not in data/sources.csv", "add the source or fix the id"),
    ]
    if name == "budget_scores":
        checks += [
            _rule(pa, "last_frame", lambda d: (d.first_frame <= d.last_frame) & (d.last_frame <= d.training_frames),
                  "the averaged curve points must lie at or below the budget (first_frame <= last_frame <= training_frames)",
                  "recompute the row with atari-5 contribute curves"),
            _rule(pa, "source_id", lambda d: d.source_id.isin(sources.loc[sources.curve_rule.notna(), "source_id"]),
                  "budget rows need a source with a curve_rule", "give the rule in data/sources.csv curve_rule"),
        ]
    return checks


def raw_value_agrees(frame: pd.DataFrame, with_std: bool) -> pd.Series:
    """Row by row: the score (and std) are exactly the number(s) the raw_value text stands for.

    A plain number (most cells) is compared as ``float`` of its text, the number ``raw_value_number`` gives for
    it (both conversions are correctly rounded); every other form (``k``, a spread) goes through
    ``raw_value_number``.
    """
    texts = pd.Series([str(text) for text in frame.raw_value], index=frame.index, dtype=object)
    stripped = texts.str.strip()
    plain = ((texts.str.len() <= MAX_RAW_VALUE_CHARS) & stripped.str.fullmatch(PLAIN_NUMBER)).to_numpy(bool)
    scores = frame.score.to_numpy(float)
    ok = np.zeros(len(frame), bool)
    ok[plain] = np.array([float(text) for text in stripped[plain]], float) == scores[plain]
    stds = frame["std"].to_numpy(float) if with_std else None
    for i in np.flatnonzero(~plain):
        found = raw_value_number(texts.iloc[i])
        if found is None:
            continue
        number, spread = found
        # a spread printed inside raw_value ("mean ± std") must be the std column; a std given beside a plain
        # number (a separate column of the source) is the source's own
        same_std = not with_std or spread is None or spread == stds[i]
        ok[i] = number == scores[i] and same_std
    return pd.Series(ok, index=frame.index)


def _failure_problems(file: str, failures: pd.DataFrame) -> list[Problem]:
    problems = []
    for failure in failures.itertuples(index=False):
        check = str(failure.check)
        index = failure.index
        row = int(index) + 2 if index is not None and not pd.isna(index) else None
        if check.count("||") == 2:  # one of rule_checks
            column, message, fix = check.split("||")
        else:  # a type or constraint taken from the Table Schema
            column = failure.column if isinstance(failure.column, str) else None
            readable = {"not_nullable": "a value is required here", "field_uniqueness": "the value must be unique"}
            message = readable.get(check, f"fails {check}") + f" (found {failure.failure_case!r})"
            fix = "see the column's type and constraints in schemas/"
        problems.append(Problem(file, row, column, message, fix))
    # A frame-level rule is reported once per cell of a failing row: keep one.
    return sorted(set(problems), key=lambda p: (p.row or 0, p.column or "", p.message))


def validate_dataset(data: Dataset) -> list[Problem]:
    """pandera validation of loaded tables (usable on frames edited in a notebook)."""
    import pandera.pandas as pa

    descriptor = read_descriptor(data.root)
    problems = []
    for name in TABLES:
        frame = getattr(data, name)
        if frame is None:  # a Dataset built by hand in a notebook may leave the per-seed tables out
            continue
        schema = pandera_schema(schema_of(data.root, descriptor, name), name, rule_checks(name, data))
        try:
            schema.validate(frame, lazy=True)
        except pa.errors.SchemaErrors as errors:
            problems += _failure_problems(f"data/{name}.csv", errors.failure_cases)
    return problems


def in_background(function, *args):
    """Start ``function(*args)`` in a forked process where that is safe, else run it here; return a callable that
    gives its result.

    Frictionless checks rows in pure Python; running it beside the pandas work
    uses the second core. The process is forked (no imports to repeat), and only
    where that is safe (:func:`.processes.forked_pool`: this process runs one
    Python thread). Otherwise it runs inline (a spawned process would import the
    caller's main module again, running an unguarded script's code twice).
    """
    from .processes import forked_pool

    pool = forked_pool(1)  # ends with a killed parent
    if pool is None:
        result = function(*args)
        return lambda: result
    future = pool.submit(function, *args)

    def wait():
        try:
            return future.result()
        finally:
            pool.shutdown()

    return wait


def interrupted_commit_problems(root: Path) -> list[Problem]:
    """An interrupted change (a killed writer's journal or staging folder), as a problem with its fix."""
    from .transaction import STAGING_NAME, pending_commit

    pending = pending_commit(root)
    if pending is None:
        return []
    if pending.get("unreadable"):
        return [Problem(STAGING_NAME, None, None, pending["unreadable"], "restore the package from version control")]
    if pending.get("foreign"):  # a journal that came with the files: never acted on, never listed as a change
        return [Problem(STAGING_NAME, None, None, pending["foreign"],
                        f"remove {STAGING_NAME}/ (git rm -r --cached {STAGING_NAME} if it was committed)")]
    if pending.get("complete"):
        return [Problem(STAGING_NAME, None, None, "a writing command was killed after its change was complete, while "
                        "removing its staging folder: the package holds the new state",
                        "run `atari5-spec recover` (or any command that writes) to remove the staging folder")]
    if pending.get("uncommitted"):
        return [Problem(STAGING_NAME, None, None, "a writing command was killed before its commit: the "
                        "package's files are unchanged; only the staging folder is left",
                        "run `atari5-spec recover` (or any command that writes) to remove the staging folder")]
    paths = ", ".join(t["path"] for t in pending["targets"])
    return [Problem(STAGING_NAME, None, None,
                    f"an interrupted commit of `{pending.get('command', '?')}` (process {pending.get('pid', '?')}, "
                    f"{pending.get('written', '?')}): {paths} may be between the old and the new state",
                    "run `atari5-spec recover` (or the interrupted command again) to finish it; then validate "
                    "again (commands that only read refuse until then)")]


def validate_package(path: str | Path | None = None, structure=None, data: Dataset | None = None) -> list[Problem]:
    """Every problem in the data package: structure, types, keys and hashes (Frictionless), data rules (pandera).

    Parameters
    ----------
    path : str or Path, optional
        The package folder (default: the one you are in, else the installed copy).

    Returns
    -------
    list of Problem
        Empty when the package is valid; each problem names the file, the
        line (header = line 1), the column, what is wrong and how to fix it.

    Notes
    -----
    Checked again when a commit changed the package meanwhile (a merge
    finishing during validation is not a hash mismatch).
    """
    from .transaction import generation

    root = package_root(path, reader=False)
    before = generation(root)
    problems = _validate_once(root, structure, data)
    if problems and before is not None and generation(root) != before and not before[3]:
        problems = _validate_once(root, None, None)
    return problems


def _validate_once(path: str | Path | None = None, structure=None, data: Dataset | None = None) -> list[Problem]:
    """Every problem in the package at ``path`` (default: the installed package).

    ``structure`` may be a callable returning the frictionless problems already
    being computed (see :func:`in_background`); ``data`` the package already loaded.
    """
    root = package_root(path, reader=False)  # an interrupted change is reported here, not finished
    interrupted = interrupted_commit_problems(root)
    if interrupted:  # the files are between two states: everything else would be a consequence
        return interrupted
    unusable = descriptor_problems(root)
    if unusable:  # nothing may follow the descriptor's paths
        return unusable
    from .registry import registry_problems

    registries = registry_problems(root)  # versions and calibrations the index or descriptor do not list
    # Frictionless runs on the other core while this process loads and runs pandera.
    structure = structure or in_background(frictionless_problems, root)
    try:
        data = data.complete() if data is not None else load(root)
    except TableReadError as error:
        problems = structure()
        seen = {(p.file, p.row, p.column) for p in problems}
        relative = str(error.path.relative_to(root))
        problems += [Problem(relative, line, column, f"{text!r} is not a {kind}", _FIXES["type-error"])
                     for line, column, text, kind in error.cells if (relative, line, column) not in seen]
        return problems + registries
    except (ValueError, KeyError, OSError) as error:
        problems = structure()
        if not problems:
            problems.append(Problem("datapackage.json", None, None, str(error), "fix the file it names"))
        return problems + registries
    rules = validate_dataset(data) + registries
    problems = structure()
    seen = {(p.file, p.row, p.column) for p in problems}
    return problems + [p for p in rules if (p.file, p.row, p.column) not in seen]
