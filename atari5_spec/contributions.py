"""Results contributed by pull request: checking a submission, and merging it into data/ append-only.

A submission is a folder ``contributions/<id>/`` holding exactly two files:

* ``metadata.yaml``: the paper, where in it the numbers are, the evaluation
  protocol and the contributor (JSON Schema: schemas/contribution-metadata.schema.json);
* ``scores.csv``: ``game,score`` and optionally ``seed`` and ``std``
  (Table Schema: schemas/contribution-scores.schema.json).

The folder name is the new algorithm's id. A submission whose metadata names
``corrects: <algorithm-id>`` instead adds rows that supersede that algorithm's
numbers (a correction); nothing is ever deleted or rewritten.

:func:`check_submission` lists every problem (file, line, column, fix) and the
warnings a reviewer should read; :func:`add_submission` merges a clean
submission: new rows are appended to data/sources.csv, data/algorithms.csv and
data/scores.csv (existing bytes untouched), datapackage.json gets the new
hashes and a version bump (new data: minor; corrections only: patch) and
CHANGELOG.md an entry, all through :func:`atari5_spec.versioning.apply_changes`,
so that on any error nothing changes.

Decisions (documented in CONTRIBUTING.md):

* seeds: the row without a seed is the published per-game number and the one
  fits use; per-seed rows are kept with use_in_fit=false. A game given only per
  seed gets a fit row derived with the metadata's statistic (mean, median,
  best-seed, single-seed), computed exactly from the decimal texts;
* line endings: LF and CRLF are accepted (git stores LF); a UTF-8 byte-order
  mark is rejected (the file is kept in the repository as provenance);
* size: each file at most MAX_FILE_BYTES (1 MiB), checked before reading;
* a score below random - 10 x (human - random) is rejected as a typo (sign,
  game or scale); the schema's finite-number rules apply as everywhere.
"""

from __future__ import annotations

import csv
import datetime as _dt
import difflib
import io
import json
import os
import re
import shutil
import stat
import tempfile
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

from .datapackage import bump_version, descriptor_text, package_root, read_descriptor, schema_of
from .errors import InputError
from .ids import UnknownGameError, algorithm_slug, game_aliases, resolve_game
from .validation import Problem, format_problems

__all__ = ["MAX_FILE_BYTES", "SUBMISSION_FILES", "SubmittedScore", "Submission", "Merge", "Report",
           "SubmissionError", "read_submission", "id_collision_problems", "check_submission", "add_submission", "plan_merge",
           "protocol_exclusion", "format_report"]

MAX_FILE_BYTES = 1 << 20  # 1 MiB: a full 57-game table with 100 seeds is about 60 kB
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
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
# "1705.80 ± 439.74": results tables print the mean and its spread in one cell.
PLUS_MINUS = re.compile(r"(?P<score>[^±]*?)\s*(?:±|\+/-)\s*(?P<std>[^±]*)")
CURVE_COLUMNS = ("points", "first_frame", "last_frame")


class SubmittedScore(NamedTuple):
    """One accepted row of a submission's scores.csv."""

    line: int
    game_id: str
    raw_value: str  # the score's text as written (stripped of surrounding spaces)
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

    def counts(self) -> str:
        """'57 scores used by fits, 299 per-seed scores and 1495 budget scores'."""
        fit = sum(1 for r in self.scores if r["use_in_fit"])
        return (f"{fit} scores used by fits, {len(self.seed_scores)} per-seed scores and "
                f"{len(self.budget_scores)} budget scores")


class PlannedRows(NamedTuple):
    """The rows a submission gives each table, before ids and supersedes are assigned."""

    scores: list[dict]
    seed_scores: list[dict]
    budget_scores: list[dict]


class Report(NamedTuple):
    """The outcome of checking a submission. It may be merged when ``problems`` is empty."""

    submission_id: str
    problems: list[Problem]
    warnings: list[Problem]
    merge: Merge | None
    merged_as: str | None = None  # source_id when the submission is already in data/

    @property
    def ok(self) -> bool:
        return not self.problems


class SubmissionError(InputError):
    """A submission that cannot be merged; ``report`` lists why."""

    def __init__(self, report: Report, message: str | None = None):
        self.report = report
        super().__init__(message or format_report(report))


# --- files ---------------------------------------------------------------------------------------------

def _display(folder: Path, name: str | None = None) -> str:
    """How files are named in problems: as the user gave the folder."""
    return str(folder / name) if name else str(folder)


def folder_problems(folder: Path) -> list[Problem]:
    """The folder exists, is a real directory, and holds exactly metadata.yaml and scores.csv."""
    label = _display(folder)
    if folder.is_symlink():
        return [Problem(label, None, None, "the submission folder is a symbolic link",
                        "put the files in a real folder contributions/<id>/ (links may point outside it)")]
    if not folder.is_dir():
        return [Problem(label, None, None, "not a folder" if folder.exists() else "no such folder",
                        "give the submission folder, e.g. contributions/my-algorithm (copy contributions/_template)")]
    problems = []
    for entry in sorted(folder.iterdir()):
        if entry.name not in SUBMISSION_FILES:
            problems.append(Problem(_display(folder, entry.name), None, None, "unexpected file in the submission",
                                    f"remove it: a submission holds only {' and '.join(SUBMISSION_FILES)} "
                                    "(put explanations in metadata.yaml notes)"))
    for name in SUBMISSION_FILES:
        if not (folder / name).exists() and not (folder / name).is_symlink():
            problems.append(Problem(_display(folder, name), None, None, "the file is missing",
                                    f"add {name} (see contributions/_template/{name})"))
    return problems


def read_text(folder: Path, name: str) -> tuple[str | None, list[Problem]]:
    """The text of ``folder/name``: a regular file inside the folder, at most MAX_FILE_BYTES, UTF-8 without BOM.

    The size is checked on the opened file before anything is read; symbolic
    links are refused when opening, so the file read is the one checked.
    """
    label = _display(folder, name)
    path = folder / name
    if path.is_symlink():
        return None, [Problem(label, None, None, f"is a symbolic link (to {os.readlink(path)!r})",
                              "replace the link by the file itself: submissions may not point outside their folder")]
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as error:
        return None, [Problem(label, None, None, f"cannot be opened ({error.strerror})", "add the file as a regular file")]
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None, [Problem(label, None, None, "is not a regular file", "add the file as a regular file")]
        if info.st_size > MAX_FILE_BYTES:
            return None, [Problem(label, None, None,
                                  f"is {info.st_size:,} bytes, more than the limit of {MAX_FILE_BYTES:,} bytes (1 MiB)",
                                  "a submission's files are small text files: check that this is the right file")]
        data = handle.read(MAX_FILE_BYTES + 1)
    if data.startswith(b"\xef\xbb\xbf"):
        return None, [Problem(label, 1, None, "the file starts with a UTF-8 byte-order mark (BOM)",
                              "save it as UTF-8 without BOM (Excel: 'CSV (Comma delimited)'; or run "
                              "sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)")]
    if b"\x00" in data:
        line = data[:data.index(b"\x00")].count(b"\n") + 1
        return None, [Problem(label, line, None, "the file contains NUL bytes (binary data)",
                              "save it as a plain UTF-8 text file")]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        return None, [Problem(label, line, None, f"is not UTF-8 (byte {data[error.start]:#04x})",
                              "save the file as UTF-8")]


def id_problems(submission_id: str, folder: Path, algorithms_schema: dict, name: str | None) -> list[Problem]:
    """The folder name is a valid algorithm id (pattern and length from the algorithms Table Schema)."""
    field = next(f for f in algorithms_schema["fields"] if f["name"] == "algorithm_id")
    constraints = field.get("constraints", {})
    pattern, longest = constraints.get("pattern", ".*"), constraints.get("maxLength")
    if re.fullmatch(pattern.removeprefix("^").removesuffix("$"), submission_id) and (
            longest is None or len(submission_id) <= longest):
        return []
    try:
        suggestion = algorithm_slug(name or submission_id)[:longest]
    except ValueError:
        suggestion = "my-algorithm"
    return [Problem(_display(folder), None, None,
                    f"the folder name {submission_id!r} is not a valid algorithm id "
                    f"(lower-case letters, digits and single '-', at most {longest} characters)",
                    f"rename the folder, e.g. to {suggestion!r}: the folder name is the algorithm's id")]


# --- metadata.yaml ---------------------------------------------------------------------------------------

def _yaml_problem(label: str, error: Exception) -> Problem:
    import yaml

    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    line = mark.line + 1 if mark is not None else None
    text = " ".join(str(part) for part in (getattr(error, "context", None), getattr(error, "problem", None)) if part)
    if isinstance(error, yaml.constructor.ConstructorError):
        return Problem(label, line, None, f"YAML tags are not accepted ({text or error})",
                       "write plain values: no '!!python/...' or other '!' tags (the file is read with yaml.safe_load)")
    return Problem(label, line, None, f"not valid YAML: {text or error}",
                   "fix the YAML syntax at that line (indentation, a ':' after each key, "
                   "quotes around text with ': ' or '#')")


def _key_line(node, path: list) -> int | None:
    """The line of the key (or list item) at ``path`` in a composed YAML node; the nearest existing parent's line."""
    import yaml

    line = None
    for step in path:
        if isinstance(node, yaml.MappingNode):
            found = next(((k, v) for k, v in node.value if k.value == str(step)), None)
            if found is None:
                break
            line, node = found[0].start_mark.line + 1, found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
            line = node.start_mark.line + 1
        else:
            break
    return line


def _duplicate_keys(node, label: str, path: tuple = ()) -> list[Problem]:
    """Keys that appear twice in one mapping (yaml.safe_load would silently keep the last)."""
    import yaml

    problems = []
    if isinstance(node, yaml.MappingNode):
        seen = {}
        for key, value in node.value:
            dotted = ".".join(map(str, path + (key.value,)))
            if key.value in seen:
                problems.append(Problem(label, key.start_mark.line + 1, dotted,
                                        f"the key appears twice (first on line {seen[key.value]})",
                                        "keep one of the two"))
            seen.setdefault(key.value, key.start_mark.line + 1)
            problems += _duplicate_keys(value, label, path + (key.value,))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            problems += _duplicate_keys(item, label, path + (index,))
    return problems


def _as_written(data: Any, node, schema: dict) -> Any:
    """Keep the text of values the schema wants as text that YAML reads as numbers (arxiv: 2010.02190 -> '2010.02190')."""
    import yaml

    if isinstance(data, dict) and isinstance(node, yaml.MappingNode):
        properties = schema.get("properties", {})
        for key, value in node.value:
            if key.value in properties and key.value in data:
                data[key.value] = _as_written(data[key.value], value, properties[key.value])
        return data
    if isinstance(data, list) and isinstance(node, yaml.SequenceNode):
        return [_as_written(item, n, schema.get("items", {})) for item, n in zip(data, node.value)]
    if (schema.get("type") == "string" and data is not None and not isinstance(data, str)
            and isinstance(node, yaml.ScalarNode) and node.style is None):
        return node.value
    return data


def parse_yaml(text: str, label: str) -> tuple[Any, Any, list[Problem]]:
    """(data, composed node, problems) of a YAML text read with yaml.safe_load.

    Refused: syntax errors, tags (object construction), aliases (they can
    expand exponentially), several documents, duplicate keys.
    """
    import yaml

    try:
        aliases = [event for event in yaml.parse(text, Loader=yaml.SafeLoader) if isinstance(event, yaml.AliasEvent)]
        if aliases:
            return None, None, [Problem(label, aliases[0].start_mark.line + 1, None,
                                        "YAML aliases (*name) are not accepted", "write the value out in full")]
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        return None, None, [_yaml_problem(label, error)]
    problems = _duplicate_keys(node, label)
    return data, node, problems


def _property_schema(schema: dict, path: list) -> dict:
    """The subschema of the property at ``path`` (object properties and array items), {} if none."""
    for step in path:
        schema = schema.get("items", {}) if isinstance(step, int) else schema.get("properties", {}).get(step, {})
    return schema


def _schema_error_problem(error, node, label: str, root_schema: dict) -> list[Problem]:
    """A jsonschema error as Problems with the line of the key, the dotted key path and a fix from the schema."""
    path = list(error.absolute_path)
    dotted = ".".join(map(str, path)) or None
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "required":
        missing = re.match(r"'(.+)' is a required property", error.message)
        key = missing.group(1) if missing else str(error.validator_value)
        described = _property_schema(root_schema, path + [key]).get("description", "see the schema")
        return [Problem(label, _key_line(node, path), ".".join(map(str, path + [key])),
                        f"the key {key!r} is missing", f"add {key}: {described}")]
    if error.validator == "additionalProperties":
        allowed = list(_property_schema(root_schema, path).get("properties", {}))
        problems = []
        for key in [k for k in error.instance if k not in allowed]:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            problems.append(Problem(label, _key_line(node, path + [key]), ".".join(map(str, path + [key])),
                                    f"unknown key {key!r}", f"{hint}allowed keys here: {', '.join(allowed)}"))
        return problems
    if "title" in schema and error.validator in ("anyOf", "oneOf", "not", "allOf"):
        # Point at the first key the rule is about when it is there (e.g. a correction's 'name').
        given = error.instance if isinstance(error.instance, dict) else {}
        present = [k for k in _required_keys(error.validator_value) if k in given]
        where = path + present[:1]
        return [Problem(label, _key_line(node, where), ".".join(map(str, where)) or None, schema["title"],
                        schema.get("description", ""))]
    hint = ""
    if error.validator == "type" and isinstance(error.instance, (int, float)) and "string" in str(error.validator_value):
        hint = "quote it ('...'); "
    fix = hint + (_property_schema(root_schema, path).get("description")
                  or "see schemas/contribution-metadata.schema.json")
    if "enum" in schema:
        fix = f"use one of: {', '.join('null' if v is None else str(v) for v in schema['enum'])}. " + fix
    message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
    return [Problem(label, _key_line(node, path), dotted, message, fix)]


def _required_keys(schema: Any) -> list[str]:
    """Every key named in a 'required' list inside a subschema, in order."""
    if isinstance(schema, dict):
        return list(schema.get("required", [])) + [k for v in schema.values() for k in _required_keys(v)]
    if isinstance(schema, list):
        return [k for item in schema for k in _required_keys(item)]
    return []


def _text_values(data: Any, path: tuple = ()):
    """(path, text) of every string in a YAML document."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _text_values(value, path + (key,))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _text_values(value, path + (index,))
    elif isinstance(data, str):
        yield path, data


def formula_problem(label: str, line: int | None, column: str | None, text: str) -> Problem | None:
    """A Problem when ``text`` would run as a spreadsheet formula once the data is opened in a spreadsheet."""
    if text.startswith(FORMULA_START):
        return Problem(label, line, column,
                       f"text starting with {text[:1]!r} is read as a formula by spreadsheets ({text[:30]!r})",
                       "start the text with a letter or digit (write the words out, e.g. 'minus' or 'at')")
    return None


def metadata_problems(data: Any, node, schema: dict, label: str, this_year: int) -> list[Problem]:
    """Everything wrong with a parsed metadata.yaml: its JSON Schema, then the rules a schema cannot state."""
    from jsonschema import Draft202012Validator

    if not isinstance(data, dict):
        return [Problem(label, None, None, "the file holds no YAML mapping (key: value lines)",
                        "copy contributions/_template/metadata.yaml and fill it in")]
    errors = sorted(Draft202012Validator(schema).iter_errors(data),
                    key=lambda e: (_key_line(node, list(e.absolute_path)) or 0, list(map(str, e.absolute_path))))
    problems = [p for error in errors for p in _schema_error_problem(error, node, label, schema)]
    flagged = {p.column for p in problems}
    for path, text in _text_values(data):
        dotted = ".".join(map(str, path))
        if dotted not in flagged:
            problem = formula_problem(label, _key_line(node, list(path)), dotted, text)
            problems += [problem] if problem else []
    year = data.get("paper", {}).get("year") if isinstance(data.get("paper"), dict) else None
    if isinstance(year, int) and not isinstance(year, bool) and year > this_year and "paper.year" not in flagged:
        problems.append(Problem(label, _key_line(node, ["paper", "year"]), "paper.year",
                                f"the year {year} is in the future", "give the year the paper was published"))
    protocol = data.get("protocol") if isinstance(data.get("protocol"), dict) else {}
    frames, regime = protocol.get("training_frames"), protocol.get("regime")
    if isinstance(frames, int) and isinstance(regime, str) and "protocol.regime" not in flagged:
        from .validation import regime_label

        if frames > 0 and regime_label(frames) != regime:
            problems.append(Problem(label, _key_line(node, ["protocol", "regime"]), "protocol.regime",
                                    f"regime {regime} does not agree with training_frames {frames}",
                                    f"write regime: {regime_label(frames)}, or correct training_frames"))
    if protocol.get("statistic") == "single-seed" and protocol.get("seeds") not in (None, 1):
        problems.append(Problem(label, _key_line(node, ["protocol", "seeds"]), "protocol.seeds",
                                f"statistic single-seed with seeds: {protocol.get('seeds')}",
                                "single-seed means one run: set seeds: 1, or name the statistic over the seeds"))
    return sorted(problems, key=lambda p: (p.row or 0, p.column or ""))


# --- scores.csv ----------------------------------------------------------------------------------------------

def _records(text: str):
    """(first physical line, cells) of each CSV record; LF, CRLF and CR all end a line."""
    reader = csv.reader(io.StringIO(text, newline=""))
    previous = 0
    for cells in reader:
        yield previous + 1, cells
        previous = reader.line_num


def score_text_problem(text: str) -> tuple[str, str] | None:
    """(message, fix) when a score cell is not a plain finite number; None when it is."""
    from .score_input import parse_score  # accepted exactly when `atari5-spec score` accepts it

    try:
        parse_score(text, "score")
        return None
    except InputError:
        pass  # say what is wrong, and how to write it
    if not text:
        return "the score is empty", "write the published score, or remove the row"
    if NUMBER.fullmatch(text):
        return f"{text!r} is too large to be a finite number", "check the exponent"
    suffix = re.fullmatch(r"([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*([kKmM])", text)
    if suffix:
        factor = 1000 if suffix.group(2) in "kK" else 1_000_000
        full = Decimal(suffix.group(1)) * factor
        return (f"{text!r} uses a thousands suffix",
                f"write the full number, {format(full.normalize(), 'f')} (scores.csv holds plain numbers)")
    if re.fullmatch(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?", text):
        return f"{text!r} has thousands separators", f"write {text.replace(',', '')}"
    if re.fullmatch(r"[+-]?\d+,\d+", text):
        return f"{text!r} uses ',' as decimal mark", f"write {text.replace(',', '.')}"
    if text.strip("+-").lower() in ("nan", "inf", "infinity"):
        return f"{text!r} is not a finite number", "give the published finite score, or leave the game out"
    if "\u2212" in text:
        return f"{text!r} uses a Unicode minus sign", f"write {text.replace(chr(0x2212), '-')} with an ASCII '-'"
    return f"{text!r} is not a number", "write the raw score as a plain number (digits, '.', optional sign)"


def _cell_problem(field: dict, text: str) -> str | None:
    """Type and constraint problems of a non-score cell, from its Table Schema field."""
    kind, constraints = field.get("type", "string"), field.get("constraints", {})
    if not text:
        return "a value is required" if constraints.get("required") else None
    value: Any = text
    if kind == "integer":
        if not re.fullmatch(r"[+-]?\d+", text):
            return f"{text!r} is not an integer"
        value = int(text)
    elif kind == "number":
        if not NUMBER.fullmatch(text):
            return f"{text!r} is not a plain number"
        value = float(text)
    if "minimum" in constraints and value < constraints["minimum"]:
        return f"{text!r} is below the minimum {constraints['minimum']}"
    if "maximum" in constraints and value > constraints["maximum"]:
        return f"{text!r} is above the maximum {constraints['maximum']}"
    if "maxLength" in constraints and len(text) > constraints["maxLength"]:
        return f"{text!r} is longer than {constraints['maxLength']} characters"
    if "pattern" in constraints and not re.fullmatch(constraints["pattern"], text):
        return f"{text!r} does not match {constraints['pattern']}"
    return None


def header_problems(header: list[str], table_schema: dict, label: str) -> list[Problem]:
    """Missing, unknown or repeated columns (required fields must be present, any order)."""
    names = [f["name"] for f in table_schema["fields"]]
    required = [f["name"] for f in table_schema["fields"] if f.get("constraints", {}).get("required")]
    problems = []
    if len(header) == 1:
        for delimiter, spoken in ((";", "semicolons"), ("\t", "tabs"), ("|", "'|'")):
            if delimiter in header[0]:
                return [Problem(label, 1, None, f"the columns are separated by {spoken}, not commas",
                                f"save the file as comma-separated values: {','.join(required)}")]
    renamed = set()
    for column in header:
        if column not in names:
            close = difflib.get_close_matches(column.strip().lower(), names, n=1)
            renamed.update(close)
            fix = f"rename it to {close[0]!r}" if close else f"remove the column (allowed: {', '.join(names)})"
            problems.append(Problem(label, 1, column, f"unknown column {column!r}", fix))
    for column in sorted({c for c in header if header.count(c) > 1}):
        problems.append(Problem(label, 1, column, "the column appears twice", "keep one of the two"))
    for column in required:
        if column not in header and column not in renamed:
            problems.append(Problem(label, 1, column, f"the required column {column!r} is missing",
                                    f"the header must hold {', '.join(required)} (optional: "
                                    f"{', '.join(n for n in names if n not in required)})"))
    return problems


def parse_scores(text: str, label: str, table_schema: dict, games, raw_value_max: int | None
                 ) -> tuple[list[SubmittedScore], list[Problem]]:
    """Every accepted row of a scores.csv, and a Problem for every cell, row or header that is wrong."""
    if not text.strip():
        return [], [Problem(label, None, None, "the file is empty",
                            "write the header game,score and then one row per game")]
    fields = {f["name"]: f for f in table_schema["fields"]}
    aliases = game_aliases(games)
    constants = games.set_index("game_id")
    records = _records(text)
    try:
        _, header = next(records)
        header = [h.strip() for h in header]
        problems = header_problems(header, table_schema, label)
        if problems:
            return [], problems
        rows, seen, content_rows = [], {}, 0
        for line, cells in records:
            content_rows += any(c.strip() for c in cells) and not cells[0].lstrip().startswith("#")
            row, row_problems = _parse_row(line, cells, header, fields, label, aliases, constants, raw_value_max)
            problems += row_problems
            if row is None:
                continue
            key = (row.game_id, row.seed, row.training_frames)
            if key in seen:
                what = row.game_id if row.seed is None else f"{row.game_id} seed {row.seed}"
                what += f" at {row.training_frames} frames" if row.training_frames is not None else ""
                problems.append(Problem(label, line, "game" if row.seed is None else "seed",
                                        f"duplicate row: {what} is given again (first on line {seen[key]})",
                                        "give one row per game for the published number, one per game and "
                                        "seed for per-seed scores, one per game, seed and training_frames for "
                                        "learning curves; remove the repeated row"))
                continue
            seen[key] = line
            rows.append(row)
    except csv.Error as error:
        return [], [Problem(label, None, None, f"not valid CSV ({error})", "check the quotes in the file")]
    if not content_rows:
        problems.append(Problem(label, None, None, "the file has no score rows (scores for zero games)",
                                "add one row per game under the header: game,score"))
    return rows, problems


def _parse_row(line: int, cells: list[str], header: list[str], fields: dict, label: str, aliases, constants,
               raw_value_max: int | None) -> tuple[SubmittedScore | None, list[Problem]]:
    """One data row: a SubmittedScore, or the Problems of its cells."""
    if not cells or not any(c.strip() for c in cells):
        return None, [Problem(label, line, None, "empty line", "remove the empty line")]
    if cells[0].lstrip().startswith("#"):
        return None, [Problem(label, line, None, "comment lines are not part of CSV",
                              "remove the line; put remarks in metadata.yaml under notes")]
    if len(cells) != len(header):
        score_at, extra = header.index("score"), len(cells) - len(header)
        joined = ",".join(cells[score_at:score_at + extra + 1]) if extra > 0 else ""
        if extra > 0 and re.fullmatch(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?", joined.strip()):
            return None, [Problem(label, line, "score", f"{joined.strip()!r} has a thousands separator ',' "
                                                        f"that splits it into {extra + 1} columns",
                                  f"write {joined.strip().replace(',', '')}")]
        return None, [Problem(label, line, None, f"{len(cells)} cells, but the header has {len(header)} columns",
                              "give one value per column (leave optional cells empty); quote text containing commas")]
    values = {column: cell.strip() for column, cell in zip(header, cells)}
    problems = []
    raw_text = values["score"]
    split = PLUS_MINUS.fullmatch(raw_text)
    if split:  # "mean ± std": the score is the mean; the spread goes to std
        if values.get("std"):
            return None, [Problem(label, line, "std", f"the score {raw_text!r} already gives the spread",
                                  "leave std empty, or write the score without '± spread'")]
        values["score"], values["std"] = split.group("score").strip(), split.group("std").strip()
    for column, text in values.items():
        field = fields[column]
        risky = formula_problem(label, line, column, text) if field.get("type", "string") == "string" else (
            formula_problem(label, line, column, text) if text.startswith(("=", "@", "\t")) else None)
        if risky:
            problems.append(risky)
            continue
        if column == "game":
            continue
        message = score_text_problem(text) if column == "score" else _cell_problem(field, text)
        if isinstance(message, tuple):
            problems.append(Problem(label, line, column, *message))
        elif message:
            problems.append(Problem(label, line, column, message, field.get("description", "")))
    if raw_value_max and len(raw_text) > raw_value_max and not any(p.column == "score" for p in problems):
        problems.append(Problem(label, line, "score", f"{raw_text!r} is longer than {raw_value_max} characters",
                                "write the number with fewer digits, as the paper prints it"))
    curve = {c: values.get(c, "") for c in CURVE_COLUMNS}
    if values.get("training_frames"):
        if not values.get("seed"):
            problems.append(Problem(label, line, "seed", "a row with training_frames (a learning-curve score) "
                                    "needs the run's seed", "give the seed of the run the curve belongs to"))
        problems += [Problem(label, line, c, f"a learning-curve row needs {c}",
                             "write the rows with atari5-spec contribute curves, which fills points, first_frame "
                             "and last_frame") for c, text in curve.items() if not text]
        if all(curve.values()) and not (int(curve["first_frame"]) <= int(curve["last_frame"])
                                        <= int(values["training_frames"])):
            problems.append(Problem(label, line, "last_frame", "the averaged points must satisfy "
                                    "first_frame <= last_frame <= training_frames",
                                    "recompute the row from the curve"))
    else:
        problems += [Problem(label, line, c, f"{c} is only for learning-curve rows (with training_frames)",
                             "leave it empty, or give training_frames") for c, text in curve.items() if text]
    game_id = None
    if not any(p.column == "game" for p in problems):
        try:
            game_id = resolve_game(values["game"], aliases)
        except UnknownGameError as error:
            hint = f"did you mean {', '.join(error.suggestions)}? " if error.suggestions else ""
            problems.append(Problem(label, line, "game", f"unknown game {values['game']!r}",
                                    f"{hint}use an ALE id (battle_zone), Gymnasium id or printed name "
                                    "of one of the 57 games"))
        else:
            if not bool(constants.loc[game_id, "in_57"]):
                problems.append(Problem(label, line, "game", f"{game_id} is not one of the 57 canonical games",
                                        "remove the row: Atari-5 scores and fits use only the 57 games"))
    if problems:
        return None, problems
    score = float(values["score"])
    random, human = constants.loc[game_id, "random_score"], constants.loc[game_id, "human_score"]
    floor = random - FAR_BELOW_RANDOM * (human - random)
    if score < floor:
        return None, [Problem(label, line, "score",
                              f"{values['score']} is far below random play on {game_id} (random {random:g}, "
                              f"human {human:g}; the limit is random - {FAR_BELOW_RANDOM} x (human - random) = {floor:g})",
                              "check the sign, the game and the scale (raw score, not normalised); if the paper "
                              "really prints it, say so in metadata notes and ask a maintainer")]
    def integer(column):
        return int(values[column]) if values.get(column) else None

    std = float(values["std"]) if values.get("std") else None
    return SubmittedScore(line, game_id, " ".join(raw_text.split()), score, integer("seed"), std,
                          integer("training_frames"), integer("points"), integer("first_frame"), integer("last_frame"),
                          values.get("provenance") or None), []


# --- reading a submission -----------------------------------------------------------------------------------

def _read_if_present(folder: Path, name: str) -> tuple[str | None, list[Problem]]:
    """read_text for a file that exists (or is a link); folder_problems already reported a missing one."""
    path = folder / name
    return read_text(folder, name) if path.exists() or path.is_symlink() else (None, [])


def id_collision_problems(folder: Path, submission_id: str, corrects: Any, dataset) -> list[Problem]:
    """The submission's ids are new (algorithm and source), and a correction names an existing algorithm."""
    known = set(dataset.algorithms["algorithm_id"])
    problems = []
    if f"contrib-{submission_id}" in set(dataset.sources["source_id"]):
        problems.append(Problem(_display(folder), None, None,
                                f"data/sources.csv already has the source 'contrib-{submission_id}'",
                                "rename the folder: every submission needs a new id"))
    if isinstance(corrects, str):
        if corrects not in known:
            close = difflib.get_close_matches(corrects, sorted(known), n=3)
            problems.append(Problem(_display(folder, METADATA_FILE), None, "corrects",
                                    f"no algorithm {corrects!r} in data/algorithms.csv",
                                    f"did you mean {', '.join(close)}?" if close
                                    else "give an algorithm_id from data/algorithms.csv"))
    elif submission_id in known:
        problems.append(Problem(_display(folder), None, None,
                                f"the algorithm id {submission_id!r} already exists in data/algorithms.csv",
                                f"for a new result, rename the folder (e.g. {submission_id}-{_dt.date.today().year}); "
                                f"to correct its numbers, set corrects: {submission_id} and drop name and protocol"))
    return problems


def read_submission(path: str | Path, dataset, this_year: int | None = None, check_ids: bool = True
                    ) -> tuple[Submission | None, list[Problem]]:
    """Read and check a submission folder: files, schemas, games, protocol, and (``check_ids``) that its ids are new.

    Every problem found is returned; the Submission only when there are none.
    """
    folder = Path(path)
    root, games = dataset.root, dataset.games
    submission_id = Path(os.path.abspath(folder)).name
    problems = folder_problems(folder)
    if any(p.file == _display(folder) for p in problems):
        return None, problems
    this_year = this_year or _dt.date.today().year
    metadata_label, scores_label = _display(folder, METADATA_FILE), _display(folder, SCORES_FILE)

    metadata, data = None, None
    text, read_problems = _read_if_present(folder, METADATA_FILE)
    problems += read_problems
    if text is not None:
        schema = json.loads((root / METADATA_SCHEMA).read_text(encoding="utf-8"))
        data, node, yaml_problems = parse_yaml(text, metadata_label)
        problems += yaml_problems
        if not yaml_problems:
            data = _as_written(data, node, schema)
            found = metadata_problems(data, node, schema, metadata_label, this_year)
            problems += found
            metadata = data if not found else None
    data = data if isinstance(data, dict) else {}

    scores: list[SubmittedScore] = []
    text, read_problems = _read_if_present(folder, SCORES_FILE)
    problems += read_problems
    if text is not None:
        table_schema = json.loads((root / SCORES_SCHEMA).read_text(encoding="utf-8"))
        descriptor = read_descriptor(root)
        raw_value = next(f for f in schema_of(root, descriptor, "scores")["fields"] if f["name"] == "raw_value")
        scores, score_problems = parse_scores(text, scores_label, table_schema, games,
                                              raw_value.get("constraints", {}).get("maxLength"))
        problems += score_problems

    # The folder name becomes the algorithm id (and, for a correction, the source id contrib-<id>).
    name = data.get("name") if isinstance(data.get("name"), str) else None
    naming = id_problems(submission_id, folder, schema_of(root, read_descriptor(root), "algorithms"), name)
    if check_ids and not naming:
        naming = id_collision_problems(folder, submission_id, data.get("corrects"), dataset)
    if metadata is not None and any(s.kind == "budget" for s in scores) and not (
            metadata.get("upstream") or {}).get("curve_rule"):
        problems.append(Problem(metadata_label, None, "upstream.curve_rule",
                                "scores.csv has learning-curve rows (training_frames) but the metadata states no rule",
                                "add upstream: with repository, commit, path and curve_rule (atari5-spec contribute "
                                "curves prints the rule it used)"))
    problems = naming + problems
    if problems or metadata is None:
        return None, problems
    return Submission(folder, submission_id, metadata, scores), []


# --- planning the merge ------------------------------------------------------------------------------------

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


PROTOCOL_KEYS = ("start_condition", "noop_max", "sticky_action_probability", "action_set", "life_loss_episode_end",
                 "frame_skip", "max_episode_frames", "training_frames", "regime", "evaluation", "eval_episodes",
                 "statistic", "seeds", "env_family")


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
    from .validation import regime_label

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
    from .writing import format_value

    protocol = submission.metadata.get("protocol", {})
    statistic, n_seeds = protocol.get("statistic"), protocol.get("seeds")
    extra = protocol.get("extra_training_data")
    origin = origin_text(submission.metadata)
    label = _display(submission.folder, SCORES_FILE)
    planned, problems, warnings = PlannedRows([], [], []), [], []

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
            warnings.append(Problem(label, seeds[0].line, "seed", f"{game_id} has {len(seeds)} per-seed rows, "
                                    f"metadata says seeds: {n_seeds}", "give every seed, or correct protocol.seeds"))
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


def _duplicate_warnings(rows: list[dict], dataset, label: str) -> list[Problem]:
    """Warn when a new algorithm's numbers are those of an existing entry (it would count twice in fits)."""
    import pandas as pd

    fit = pd.DataFrame([r for r in rows if r["use_in_fit"]], columns=["game_id", "score"])
    if len(fit) < 5:
        return []
    same = dataset.scores.merge(fit, on=["game_id", "score"])
    counts = same.groupby("algorithm_id")["game_id"].nunique()
    counts = counts[(counts >= 5) & (counts >= len(fit) / 2)].sort_values(ascending=False)
    return [Problem(label, None, None, f"{n} of the {len(fit)} scores equal those of {algorithm_id!r} in data/",
                    f"if this is the same result, do not add it (it would count twice in fits); "
                    f"if it corrects it, use corrects: {algorithm_id}")
            for algorithm_id, n in counts.items()]


def plan_merge(submission: Submission, dataset) -> tuple[Merge | None, list[Problem], list[Problem]]:
    """(merge, problems, warnings): the rows a submission adds to the dataset, with new score_ids.

    ``submission`` comes from :func:`read_submission`, which checked that its ids are new.
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
    if algorithm is not None:
        games57 = set(dataset.games.loc[dataset.games["in_57"].astype(bool), "game_id"])
        n_games = len({r["game_id"] for r in rows if r["use_in_fit"]} & games57)
        if algorithm["exclusion"]:
            warnings.append(Problem(metadata_label, None, "protocol",
                                    f"the entry stays out of fits: {algorithm['exclusion_note']}",
                                    "nothing to do if the protocol is right (it is stored with exclusion "
                                    f"{algorithm['exclusion']})"))
        elif n_games < FIT_MIN_GAMES:
            warnings.append(Problem(scores_label, None, None, f"scores for {n_games} of the 57 games: fits need at "
                                    f"least {FIT_MIN_GAMES}, so the entry is stored but does not enter fits",
                                    "add every game the paper reports"))
        warnings += _duplicate_warnings(rows, dataset, scores_label)
    first = int(dataset.scores["score_id"].max()) + 1 if len(dataset.scores) else 1
    scores = [{"score_id": first + i, **row} for i, row in enumerate(rows)]
    bump = "patch" if target and all_corrections and not planned.seed_scores and not planned.budget_scores else "minor"
    return Merge(source, algorithm, scores, bump, target, planned.seed_scores, planned.budget_scores), [], warnings


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


# --- rendering and writing -------------------------------------------------------------------------------------

def appended_text(old: str, columns: list[str], rows: list[dict]) -> str:
    """``old`` CSV text with ``rows`` appended (existing bytes untouched), in the schema's column order."""
    from .writing import csv_text

    header = old.split("\n", 1)[0].rstrip("\r")
    if header.split(",") != list(columns):
        raise InputError(f"the table's header {header!r} differs from its schema's columns {columns}")
    rendered = csv_text(columns, ([row[c] for c in columns] for row in rows)).split("\n", 1)[1]
    return old + ("" if old.endswith("\n") else "\n") + rendered


def merged_texts(root: Path, merge: Merge) -> dict[str, str]:
    """The new text of every data file a merge changes (relative path -> text)."""
    descriptor = read_descriptor(root)
    texts = {}
    for name, rows in (("sources", [merge.source]), ("algorithms", [merge.algorithm] if merge.algorithm else []),
                       ("scores", merge.scores), ("seed_scores", merge.seed_scores),
                       ("budget_scores", merge.budget_scores)):
        if not rows:
            continue
        resource = next(r for r in descriptor["resources"] if r["name"] == name)
        columns = [f["name"] for f in schema_of(root, descriptor, name)["fields"]]
        texts[resource["path"]] = appended_text((root / resource["path"]).read_text(encoding="utf-8"), columns, rows)
    return texts


def merged_dataset_problems(root: Path, texts: dict[str, str]) -> list[Problem]:
    """pandera validation of the package as it would be after writing ``texts`` (checked in a scratch copy)."""
    from .loading import TABLES, TableReadError, load
    from .validation import validate_dataset

    with tempfile.TemporaryDirectory(prefix="atari5-contribution-") as scratch:
        scratch = Path(scratch)
        shutil.copy2(root / "datapackage.json", scratch / "datapackage.json")
        shutil.copytree(root / "schemas", scratch / "schemas")
        for resource in read_descriptor(root)["resources"]:
            if resource["name"] in TABLES:
                target = scratch / resource["path"]
                target.parent.mkdir(parents=True, exist_ok=True)
                if resource["path"] in texts:
                    target.write_text(texts[resource["path"]], encoding="utf-8", newline="")
                else:
                    shutil.copy2(root / resource["path"], target)
        try:
            problems = validate_dataset(load(scratch))
        except TableReadError as error:
            problems = [Problem(f"data/{error.path.name}", line, column, f"{text!r} is not a {kind}", "")
                        for line, column, text, kind in error.cells]
    return [p._replace(message="after the merge: " + p.message) for p in problems]


# --- checking and adding --------------------------------------------------------------------------------------

def _package_for(folder: Path, package: str | Path | None, writing: bool) -> Path:
    """The data package a submission is checked against or merged into.

    Given: ``package``. Otherwise the package the folder sits in
    (<package>/contributions/<id>), else (checking only) the installed one.
    """
    if package is not None:
        return package_root(package)
    parent = Path(os.path.abspath(folder)).parent
    if parent.name == "contributions" and (parent.parent / "datapackage.json").is_file():
        return parent.parent
    if writing:
        raise InputError(f"{folder} is not in a data package's contributions/ folder: "
                         "pass --package DIR, the data package to merge it into")
    return package_root(None)


def _review(path: str | Path, package: str | Path | None, writing: bool, this_year: int | None = None
            ) -> tuple[Report, Path, Submission | None, dict[str, str]]:
    from .loading import load

    folder = Path(path)
    root = _package_for(folder, package, writing)
    dataset = load(root)
    submission_id = Path(os.path.abspath(folder)).name
    source_id = f"contrib-{submission_id}"
    sources = dataset.sources.set_index("source_id")
    merged = (source_id in sources.index
              and sources.loc[source_id, "upstream_file"] == f"contributions/{submission_id}/{SCORES_FILE}")
    submission, problems = read_submission(folder, dataset, this_year, check_ids=not merged)
    if submission is None:
        return Report(submission_id, problems, [], None, source_id if merged else None), root, None, {}
    if merged:  # CI re-checks merged folders: data/ must still hold exactly their rows
        report = Report(submission_id, merged_problems(submission, dataset, source_id), [], None, source_id)
        return report, root, submission, {}
    merge, problems, warnings = plan_merge(submission, dataset)
    if merge is None:
        return Report(submission_id, problems, warnings, None), root, submission, {}
    texts = merged_texts(root, merge)
    problems = merged_dataset_problems(root, texts)
    return Report(submission_id, problems, warnings, None if problems else merge), root, submission, texts


def check_submission(path: str | Path, package: str | Path | None = None, this_year: int | None = None) -> Report:
    """Check a submission folder against the schemas and the dataset; every problem is listed.

    ``package``: the data package to check against (default: the one the
    folder sits in, else the installed one). Nothing is written.
    """
    return _review(path, package, writing=False, this_year=this_year)[0]


def _changelog_line(merge: Merge, submission: Submission, version: str) -> tuple[str, str]:
    """(section, line) of the CHANGELOG entry of a merge."""
    fit = [r for r in merge.scores if r["use_in_fit"]]
    ids = f"score_id {merge.scores[0]['score_id']}-{merge.scores[-1]['score_id']}"
    contributor = submission.metadata["contributor"]["name"]
    folder = f"contributions/{submission.submission_id}/"
    seeds = "".join(f", {len(rows)} {what}" for rows, what in ((merge.seed_scores, "per-seed scores"),
                                                                (merge.budget_scores, "scores at training budgets"))
                    if rows)
    if merge.corrects:
        corrected = sum(1 for r in fit if r["supersedes"] is not None)
        section = "Fixed" if merge.bump == "patch" else "Added"
        return section, (f"Data {version}: {corrected} corrected and {len(fit) - corrected} new scores of "
                         f"`{merge.corrects}`{seeds} ({ids}) from {folder}, contributed by {contributor}; "
                         "the corrected rows stay, superseded.")
    algorithm = merge.algorithm
    excluded = f" Stays out of fits: {algorithm['exclusion']}." if algorithm["exclusion"] else ""
    return "Added", (f"Data {version}: algorithm `{algorithm['algorithm_id']}` ({algorithm['name']}; "
                     f"{algorithm['paper_title']}, {algorithm['year']}) with {len(fit)} scores{seeds} ({ids}) "
                     f"from {folder}, contributed by {contributor}.{excluded}")


def _submission_copy(folder: Path, root: Path, submission_id: str) -> dict[str, str]:
    """Files to write so that the package holds the submission at contributions/<id>/ (none if it already does)."""
    target = root / "contributions" / submission_id
    if os.path.realpath(folder) == os.path.realpath(target):
        return {}
    if target.exists() or target.is_symlink():
        raise InputError(f"{target} already exists and is not the submission {folder}: rename one of them")
    # Bytes as submitted (CRLF kept); the files were checked to be UTF-8 without BOM.
    return {f"contributions/{submission_id}/{name}": (folder / name).read_bytes().decode("utf-8")
            for name in SUBMISSION_FILES}


def add_submission(path: str | Path, package: str | Path | None = None, this_year: int | None = None) -> Merge:
    """Merge a clean submission into the package's data/, append-only, all files or none.

    Raises SubmissionError (an InputError) listing every problem when the
    submission is not clean or is already merged; then nothing is written.
    """
    from .versioning import apply_changes, changelog_with_entry, descriptor_with_stats

    folder = Path(path)
    report, root, submission, texts = _review(folder, package, writing=True, this_year=this_year)
    if report.merged_as:
        raise SubmissionError(report, f"{folder}: already merged as source {report.merged_as}; nothing to add")
    if not report.ok:
        raise SubmissionError(report)
    merge = report.merge
    files = dict(texts)
    files.update(_submission_copy(folder, root, submission.submission_id))
    descriptor = read_descriptor(root)
    descriptor["version"] = bump_version(descriptor["version"], merge.bump)
    descriptor = descriptor_with_stats(root, descriptor, files)
    files["datapackage.json"] = descriptor_text(descriptor)
    changelog = (root / CHANGELOG).read_text(encoding="utf-8") if (root / CHANGELOG).exists() else "# Changelog\n"
    files[CHANGELOG] = changelog_with_entry(changelog, *_changelog_line(merge, submission, descriptor["version"]))
    created = [d for d in (root / "contributions", root / "contributions" / submission.submission_id) if not d.exists()]
    try:
        apply_changes(root, files)
    except BaseException:
        for directory in reversed(created):  # apply_changes restores files; remove the folders it made
            if directory.is_dir() and not any(directory.iterdir()):
                directory.rmdir()
        raise
    return merge


def format_report(report: Report) -> str:
    """Problems, then warnings, then a one-line verdict."""
    lines = []
    if report.problems:
        lines.append(format_problems(report.problems))
    lines += [f"warning: {w}" for w in report.warnings]
    if report.merged_as and not report.problems:
        lines.append(f"{report.submission_id}: already merged as source {report.merged_as}; data/ matches the submission.")
    elif report.problems:
        lines.append(f"\n{report.submission_id}: {len(report.problems)} problem(s), {len(report.warnings)} warning(s): "
                     "NOT ready to merge.")
    else:
        merge = report.merge
        what = (f"corrects `{merge.corrects}`" if merge.corrects else f"new algorithm `{merge.algorithm['algorithm_id']}`")
        lines.append(f"{report.submission_id}: ready to merge: {what}, {merge.counts()} ({merge.bump} version bump)"
                     + (f", {len(report.warnings)} warning(s) for the reviewer." if report.warnings else "."))
    return "\n".join(lines)
