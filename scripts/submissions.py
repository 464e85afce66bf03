"""What the import scripts share: a submission's protocol and metadata text, and writing and merging it.

``import_2023.py``, ``import_2026.py`` and ``import_atari100k.py`` each turn upstream files into
``contributions/<id>/`` folders exactly as a contributor would write them, then
merge each with ``contribute add``. The protocol keys, their order and which of
them are required are read from the contribution schema
(schemas/contribution-metadata.schema.json), the one place they are defined.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTRIBUTOR = dict(name="atari5-spec maintainers", github="atari5-spec")


def _protocol_schema() -> dict:
    schema = json.loads((ROOT / "schemas" / "contribution-metadata.schema.json").read_text(encoding="utf-8"))
    return schema["properties"]["protocol"]


def protocol(**facts) -> dict:
    """metadata.yaml's protocol in the schema's key order; the required keys always present (null = unsaid)."""
    schema = _protocol_schema()
    required = set(schema.get("required", ()))
    return {k: facts.get(k) for k in schema["properties"] if k in facts or k in required}


def submission_yaml(metadata: dict, script: str) -> str:
    """metadata.yaml text, headed by the script that wrote it."""
    import yaml

    return (f"# Imported by {script} from the upstream files named under upstream.\n"
            + yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, width=110))


def write_and_merge(folder: Path, metadata_text: str, scores_text: str, package: Path, label: str,
                    dry_run: bool = False) -> bool:
    """Write contributions/<id>/ and merge it with ``contribute add`` (or only check it, ``dry_run``).

    Prints the outcome. A submission that cannot be merged (or a dry run) leaves no folder behind; returns
    whether it was merged.
    """
    from atari5_spec_maintainers.contributions import SubmissionError, add_submission, check_submission, format_report
    from atari5_spec.data.writing import write_text_atomic

    write_text_atomic(folder / "metadata.yaml", metadata_text)
    write_text_atomic(folder / "scores.csv", scores_text)
    try:
        if dry_run:
            report = check_submission(folder, package)
            print(format_report(report))
            raise SubmissionError(report, "dry run")
        merge = add_submission(folder, package)
    except SubmissionError as error:
        if not dry_run:
            print(format_report(error.report))
        for name in ("metadata.yaml", "scores.csv"):
            (folder / name).unlink()
        folder.rmdir()
        return False
    print(f"{label}: merged, {merge.counts()}")
    return True


def import_agents(agents, make, upstream: Path, package: Path, script: str, only=None, dry_run: bool = False) -> bool:
    """Write and merge ``contributions/<id>/`` for each agent (``make(agent, upstream)`` gives metadata, scores).

    Agents not in ``only`` (when given) and folders that exist already are skipped, saying so. Stops at the
    first submission that cannot be merged; returns whether every one was merged (a dry run merges nothing).
    """
    for agent in agents:
        if only and agent["id"] not in only:
            continue
        folder = package / "contributions" / agent["id"]
        if folder.exists():
            print(f"{agent['id']}: contributions/{agent['id']} exists; skipped")
            continue
        metadata, scores = make(agent, upstream)
        merged = write_and_merge(folder, submission_yaml(metadata, script), scores, package, agent["id"],
                                 dry_run=dry_run)
        if not merged and not dry_run:
            return False
    return True
