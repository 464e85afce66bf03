"""Reading a submission folder into a Submission: its files, metadata, scores and ids, every problem listed."""

from __future__ import annotations

import datetime as _dt
import difflib
import re
from pathlib import Path
from typing import Any

from atari5_spec.data.datapackage import read_descriptor, read_json_file, schema_of
from atari5_spec.data.ids import algorithm_slug, case_clash, windows_device_name
from atari5_spec.data.validation import Problem
from atari5_spec_maintainers.contributions.files import StoredFolder, _read_if_present, folder_label, folder_problems, submission_name
from atari5_spec_maintainers.contributions.metadata import _as_written, metadata_problems, parse_yaml
from atari5_spec_maintainers.contributions.model import METADATA_FILE, METADATA_SCHEMA, SCORES_FILE, SCORES_SCHEMA, Submission, SubmittedScore, _display
from atari5_spec_maintainers.contributions.scores_table import parse_scores


def id_problems(submission_id: str, folder: Path, algorithms_schema: dict, name: str | None) -> list[Problem]:
    """The folder name is a valid algorithm id (pattern and length from the algorithms Table Schema)."""
    field = next(f for f in algorithms_schema["fields"] if f["name"] == "algorithm_id")
    constraints = field.get("constraints", {})
    pattern, longest = constraints.get("pattern", ".*"), constraints.get("maxLength")
    if (longest is None or len(submission_id) <= longest) and \
            re.fullmatch(pattern.removeprefix("^").removesuffix("$"), submission_id):  # the length first
        device = windows_device_name(submission_id)
        if device is None:
            return []
        return [Problem(_display(folder), None, None,
                        f"the folder name {submission_id!r} is a Windows device name ({device}): a folder so "
                        "named cannot be checked out on Windows",
                        f"rename the folder, e.g. to {submission_id + '-agent'!r}: the folder name is the "
                        "algorithm's id")]
    try:
        suggestion = algorithm_slug(name or submission_id)[:longest]
    except ValueError:
        suggestion = "my-algorithm"
    return [Problem(_display(folder), None, None,
                    f"the folder name {submission_id!r} is not a valid algorithm id "
                    f"(lower-case letters, digits and single '-', at most {longest} characters)",
                    f"rename the folder, e.g. to {suggestion!r}: the folder name is the algorithm's id")]


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


def case_clash_problems(folder: Path, submission_id: str, dataset) -> list[Problem]:
    """The folder name is not an existing algorithm id or contributions/ folder in another case.

    The id pattern admits lower case only, so this names what a refused name collides with; it also keeps a
    folder the pattern admits from sharing one folder with another on a case-insensitive file system.
    """
    names = set(dataset.algorithms["algorithm_id"])
    if dataset.root is not None and (Path(dataset.root) / "contributions").is_dir():
        names |= {p.name for p in (Path(dataset.root) / "contributions").iterdir()}
    clash = case_clash(submission_id, names)
    if clash is None:
        return []
    return [Problem(_display(folder), None, None,
                    f"the folder name {submission_id!r} differs only by case from {clash!r}: on a "
                    "case-insensitive file system (macOS, Windows) the two are one folder",
                    "rename the folder: every submission needs a name of its own")]


def read_submission(path: str | Path | StoredFolder, dataset, this_year: int | None = None, check_ids: bool = True
                    ) -> tuple[Submission | None, list[Problem]]:
    """Read and check a submission folder: files, schemas, games, protocol, and (``check_ids``) that its ids are new.

    Every problem found is returned; the Submission only when there are none.
    """
    source = path if isinstance(path, StoredFolder) else Path(path)  # on disk, or read from git into memory
    folder = folder_label(source)
    root, games = dataset.root, dataset.games
    submission_id = submission_name(source)
    problems = folder_problems(source)
    if any(p.file == _display(folder) for p in problems):
        return None, problems
    this_year = this_year or _dt.date.today().year
    metadata_label, scores_label = _display(folder, METADATA_FILE), _display(folder, SCORES_FILE)

    metadata, data = None, None
    text, read_problems = _read_if_present(source, METADATA_FILE)
    problems += read_problems
    if text is not None:
        schema = read_json_file(root, METADATA_SCHEMA, "the metadata schema")
        data, node, yaml_problems = parse_yaml(text, metadata_label)
        problems += yaml_problems
        if not yaml_problems:
            data = _as_written(data, node, schema)
            found = metadata_problems(data, node, schema, metadata_label, this_year)
            problems += found
            metadata = data if not found else None
    data = data if isinstance(data, dict) else {}

    scores: list[SubmittedScore] = []
    text, read_problems = _read_if_present(source, SCORES_FILE)
    problems += read_problems
    if text is not None:
        table_schema = read_json_file(root, SCORES_SCHEMA, "the scores schema")
        descriptor = read_descriptor(root)
        raw_value = next(f for f in schema_of(root, descriptor, "scores")["fields"] if f["name"] == "raw_value")
        scores, score_problems = parse_scores(text, scores_label, table_schema, games,
                                              raw_value.get("constraints", {}).get("maxLength"))
        problems += score_problems

    # The folder name becomes the algorithm id (and, for a correction, the source id contrib-<id>).
    name = data.get("name") if isinstance(data.get("name"), str) else None
    naming = id_problems(submission_id, folder, schema_of(root, read_descriptor(root), "algorithms"), name)
    if check_ids:
        naming += case_clash_problems(folder, submission_id, dataset)
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


def submission_observations(folder: Path):
    """(observations, protocol) of a submission folder for ``atari5-spec score`` (entry point
    ``atari5_spec_folder_inputs``): the runs' final scores (one per seed) when the submission has them, else its
    per-game numbers; the protocol as its metadata states it (what ``contribute check`` reads: sticky actions,
    training frames, the episode cap)."""
    from atari5_spec.data.errors import InputError
    from atari5_spec.data.loading import load
    from atari5_spec.data.validation import format_problems
    from atari5_spec.scoring.input import Observation

    submission, problems = read_submission(folder, load(), check_ids=False)
    if submission is None:
        raise InputError(f"{folder}: not a readable submission folder:\n{format_problems(problems)}")
    finals = [s for s in submission.scores if s.kind == "seed"] or [s for s in submission.scores
                                                                     if s.kind == "published"]
    label = f"{folder.name}/scores.csv"
    observations = [Observation(s.game_id, s.score, None if s.seed is None else str(s.seed),
                                f"{label}, line {s.line}") for s in finals]
    stated = submission.metadata.get("protocol") or {}
    return observations, {k: stated.get(k) for k in ("sticky_action_probability", "training_frames",
                                                     "max_episode_frames")}
