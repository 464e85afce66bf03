"""The episode table `atari5-spec play --out` writes (schemas/episodes.schema.json), and reading it back.

One flat table, one row per episode; what played it (protocol, policy, library versions, ROM hash) sits in
columns so that a schema describes the whole file. Rows are sorted by game, seed and episode and written by
the package's one writer (:func:`atari5_spec.data.writing.csv_text`: shortest exact numbers, ``true``/``false``,
LF), so the same episodes give the same bytes however the runs were scheduled or resumed.
"""

from __future__ import annotations

from pathlib import Path

from ..data.errors import InputError

__all__ = ["EPISODES_SCHEMA", "episode_columns", "episode_text", "read_episode_table", "episode_means"]

EPISODES_SCHEMA = "schemas/episodes.schema.json"
# An episode file larger than this is not one play wrote (a row is about 200 bytes).
MAX_EPISODE_FILE_BYTES = 64 << 20


def episodes_schema(root: Path | str | None = None) -> dict:
    from ..data.datapackage import package_root, read_json_file

    return read_json_file(package_root(root), EPISODES_SCHEMA, "the episode table's schema")


def episode_columns(root: Path | str | None = None) -> list[str]:
    """The episode table's columns, in the schema's order."""
    return [field["name"] for field in episodes_schema(root)["fields"]]


def _key(row) -> tuple:
    return row["game"], int(row["seed"]), int(row["episode"])


def episode_text(rows: list[dict], columns: list[str]) -> str:
    """The CSV text of ``rows`` (dicts by column), sorted by game, seed and episode."""
    from ..data.writing import csv_text

    ordered = sorted(rows, key=_key)
    return csv_text(columns, ([row[c] for c in columns] for row in ordered))


def read_episode_table(path: Path | str, root: Path | str | None = None) -> list[dict]:
    """The rows of an episode table (dicts by column, typed by the schema); InputError naming line and column."""
    from ..data.loading import read_table
    from ..data.paths import read_regular_file

    path = Path(path)
    schema = episodes_schema(root)
    data = read_regular_file(path, str(path), MAX_EPISODE_FILE_BYTES)
    header = data.split(b"\n", 1)[0].decode("utf-8", "replace").strip().split(",")
    expected = [field["name"] for field in schema["fields"]]
    if header != expected:
        raise InputError(f"{path}, line 1: the header is not an episode table's ({','.join(expected)}): give "
                         "another --out, or a file `atari5-spec play` wrote")
    frame = read_table(path, schema, data)
    for number, field in enumerate(schema["fields"]):
        column = frame[field["name"]]
        if field.get("constraints", {}).get("required") and column.isna().any():
            line = int(column.isna().to_numpy().nonzero()[0][0]) + 2
            raise InputError(f"{path}, line {line}, column {field['name']!r}: empty; an episode table fills every "
                             "column: give another --out, or a file `atari5-spec play` wrote")
    rows = frame.astype(object).to_dict("records")
    seen = {}
    for line, row in enumerate(rows, start=2):
        row["seed"], row["episode"], row["frames"] = int(row["seed"]), int(row["episode"]), int(row["frames"])
        row["score"], row["truncated"] = float(row["score"]), bool(row["truncated"])
        if _key(row) in seen:
            raise InputError(f"{path}, line {line}: game {row['game']}, seed {row['seed']}, episode "
                             f"{row['episode']} is also on line {seen[_key(row)]}: remove one of them")
        seen[_key(row)] = line
    return rows


def episode_means(episodes):
    """One row per game and seed: the mean raw score of its episodes (``score``), their number (``episodes``)
    and how many were truncated at the cap (``truncated``); ``episodes`` is a DataFrame of the episode table."""
    import pandas as pd

    frame = pd.DataFrame(episodes)
    grouped = frame.groupby(["game", "seed"], sort=True)
    return pd.DataFrame({"score": grouped["score"].mean(), "episodes": grouped["score"].size(),
                         "truncated": grouped["truncated"].sum().astype(int)}).reset_index()
