"""Loading the data package into tidy pandas frames, typed by its Table Schemas."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from .datapackage import package_root, read_descriptor, resource_path, schema_of

__all__ = ["Dataset", "load", "read_table", "PANDAS_DTYPES"]

# Frictionless field type -> pandas dtype (nullable, so that missing stays missing).
PANDAS_DTYPES = {"string": "string", "number": "float64", "integer": "Int64", "boolean": "boolean"}
_BOOLEAN = {"true": True, "false": False}


class Dataset(NamedTuple):
    """The data package's tables, one tidy DataFrame per resource."""

    games: pd.DataFrame
    algorithms: pd.DataFrame
    scores: pd.DataFrame
    sources: pd.DataFrame
    version: str
    root: Path


def read_table(path: Path | str, schema: dict) -> pd.DataFrame:
    """Read a CSV resource with each column converted to its schema type.

    Cells are read as text first so that nothing is guessed: empty cells are
    missing, numbers are parsed exactly as written. Raises ValueError naming the
    file, line and column for a cell that does not parse (validation reports all
    such problems at once; this is the fast path for a valid package).
    """
    path = Path(path)
    text = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8")
    frame = pd.DataFrame(index=text.index)
    for field in schema["fields"]:
        name, kind = field["name"], field.get("type", "string")
        if name not in text.columns:
            raise ValueError(f"{path.name}: missing column {name!r}")
        column = text[name]
        missing = column == ""
        try:
            if kind == "boolean":
                values = pd.array([None if m else _BOOLEAN[v] for v, m in zip(column, missing)], dtype="boolean")
            elif kind in ("number", "integer"):
                cells = np.where(missing, None, column.to_numpy(dtype=object))
                values = pd.Series(pd.to_numeric(cells), index=column.index).astype(PANDAS_DTYPES[kind])
            else:
                values = column.astype("string").mask(missing, pd.NA)
        except (KeyError, ValueError, TypeError) as error:
            raise ValueError(f"{path.name}: column {name!r} has a value that is not a {kind}: {error}; "
                             "run `atari5-spec validate` for every problem with its line") from None
        frame[name] = values
    return frame


def load(path: str | Path | None = None) -> Dataset:
    """Load the data package (by default the copy installed with atari5_spec).

    >>> import atari5_spec
    >>> data = atari5_spec.load()
    >>> data.scores.head()          # one row per published number
    """
    root = package_root(path)
    descriptor = read_descriptor(root)
    tables = {name: read_table(resource_path(root, descriptor, name), schema_of(root, descriptor, name))
              for name in ("games", "algorithms", "scores", "sources")}
    return Dataset(**tables, version=descriptor["version"], root=root)
