"""Loading the data package into tidy pandas frames, typed by its Table Schemas."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from .datapackage import package_root, read_descriptor, resource_path, schema_of
from .errors import InputError
from .paths import read_regular_file

__all__ = ["Dataset", "load", "open_dataset", "fit_score_rows", "SCORE_ROWS", "read_table", "TableReadError", "PANDAS_DTYPES", "TABLES", "present_tables"]

# Frictionless field type -> pandas dtype (nullable, so that missing stays missing).
PANDAS_DTYPES = {"string": "string", "number": "float64", "integer": "Int64", "boolean": "boolean"}


class Dataset(NamedTuple):
    """The data package's tables, one tidy DataFrame per resource."""

    games: pd.DataFrame
    algorithms: pd.DataFrame
    scores: pd.DataFrame
    sources: pd.DataFrame
    version: str
    root: Path
    seed_scores: pd.DataFrame | None = None    # per-seed final scores (data package 1.0)
    budget_scores: pd.DataFrame | None = None  # per-seed scores at training budgets (data package 1.0)
    protocol_evidence: pd.DataFrame | None = None  # where each protocol fact is stated (data package 1.25)
    cross_checks: pd.DataFrame | None = None    # one algorithm's numbers from two sources, compared (1.25)
    benchmark_games: pd.DataFrame | None = None  # the games of a benchmark other than the 57: Atari 100k (1.32)
    paper_links: pd.DataFrame | None = None  # per entry its paper's DOI, arXiv id or URL, or none-found (1.43)
    protocols: pd.DataFrame | None = None  # the evaluation protocols `atari5-spec play` runs (1.95)
    score_rows: str = "all"  # which rows ``scores`` holds: "all" (the file), or "fit" (one per algorithm and game)

    def complete(self) -> "Dataset":
        """This dataset with every score row (read again when ``scores`` holds the fit's rows only): what
        validation and fitting need."""
        return self if self.score_rows == "all" else load(self.root)

    def _tables(self) -> list[tuple[str, pd.DataFrame]]:
        return [(name, getattr(self, name)) for name in TABLES if getattr(self, name) is not None]

    def __repr__(self) -> str:
        """One line (the default repr printed every table in full): version, folder, rows per table."""
        sizes = ", ".join(f"{name} {len(frame):,}" + (" (one per algorithm and game, the fit's; scores='all' for every "
                                                       "row)" if name == "scores" and self.score_rows == "fit" else "")
                          for name, frame in self._tables())
        return f"Dataset(data package {self.version} at {self.root}; rows: {sizes})"

    def _repr_html_(self) -> str:
        import html

        rows = "".join(f"<tr><th style=\"text-align:left\">{name}</th><td>{len(frame):,}</td>"
                       f"<td style=\"text-align:left\">{html.escape(', '.join(map(str, frame.columns)))}</td></tr>"
                       for name, frame in self._tables())
        return (f"<table><caption style=\"text-align:left\"><b>Dataset</b>: data package {html.escape(self.version)}"
                f"</caption><thead><tr><th>table</th><th>rows</th><th>columns</th></tr></thead><tbody>{rows}"
                "</tbody></table>")


_PATTERNS = {
    # Plain decimal or scientific notation in ASCII digits ([0-9], not \d, which takes any script's
    # digits); NaN/inf parse here and are then rejected by validation with their line, instead of failing
    # to load. Integers have at most 18 digits: they must fit in 64 bits.
    "number": r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:nan|NaN|NAN|inf|INF|Inf)",
    "integer": r"[+-]?[0-9]{1,18}",
    "boolean": r"true|false",
}


# The package's data tables (resource names), in validation order.
TABLES = ("sources", "games", "benchmark_games", "algorithms", "paper_links", "scores", "seed_scores", "budget_scores",
          "protocol_evidence", "cross_checks", "protocols")
# Tables a package made before data 1.25 (1.32 for benchmark_games, 1.43 for paper_links, 1.95 for protocols) does
# not have: read when the descriptor lists them, else None.
OPTIONAL_TABLES = ("protocol_evidence", "cross_checks", "benchmark_games", "paper_links", "protocols")


def present_tables(descriptor: dict) -> tuple[str, ...]:
    """The TABLES a package's descriptor lists (every required one; an optional one only if it is there)."""
    names = {r.get("name") for r in descriptor.get("resources", [])}
    return tuple(t for t in TABLES if t not in OPTIONAL_TABLES or t in names)


# A data table larger than this is not this package's (scores.csv is about 1 MB).
MAX_TABLE_BYTES = 256 << 20


class TableReadError(InputError):
    """Cells that do not parse as their column's type; ``cells`` lists (line, column, text, type)."""

    def __init__(self, path: Path, cells: list[tuple[int, str, str, str]]):
        self.path, self.cells = path, cells
        line, column, text, kind = cells[0]
        more = f" (and {len(cells) - 1} more)" if len(cells) > 1 else ""
        # Named as the package names it: data/scores.csv.
        where = f"{path.parent.name}/{path.name}, line {line}" + (f", column {column!r}" if column else "")
        super().__init__(f"{where}: {text!r} is not a {kind}{more}")


def read_table(path: Path | str, schema: dict, data: bytes | None = None) -> pd.DataFrame:
    """Read a CSV resource with each column converted to its schema type.

    Cells are read as text first so that nothing is guessed: empty cells are
    missing, numbers are parsed exactly as written. Raises TableReadError
    listing every cell that does not parse, with its line and column.
    ``data``: the file's bytes as they would be (a change not yet written);
    ``path`` then only names it.
    """
    path = Path(path)
    if data is None:
        data = read_regular_file(path, str(path), MAX_TABLE_BYTES)
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise TableReadError(path, [(line, "", f"byte {data[error.start]:#04x}", "UTF-8 text")]) from None
    if not decoded.strip():
        raise TableReadError(path, [(1, "", "", "header (the file is empty)")])
    # pandas 2.1 (the floor) ends a cell at a NUL character and reads on: NULs are read as a character the file
    # does not hold, so the cells holding one are named (on every pandas version) instead of silently cut.
    nul = next(c for c in map(chr, range(0xE000, 0xF900)) if c not in decoded) if "\x00" in decoded else None
    try:
        text = pd.read_csv(io.StringIO(decoded.replace("\x00", nul) if nul else decoded), dtype=str,
                           keep_default_na=False, na_filter=False)
    except pd.errors.ParserError as error:  # "Expected 3 fields in line 7, saw 4"
        found = re.search(r"line ([0-9]+)", str(error))
        raise TableReadError(path, [(int(found.group(1)) if found else 1, "", str(error).strip(),
                                     "CSV row of the header's width")]) from None
    if nul:
        raise TableReadError(path, _cells_holding(text, nul, "\x00"))
    columns, bad = {}, []
    for field in schema["fields"]:
        name, kind = field["name"], field.get("type", "string")
        if name not in text.columns:
            raise TableReadError(path, [(1, name, "", "column in the header")])
        cells = text[name].to_numpy(object)
        missing = cells == ""
        if kind in _PATTERNS:
            invalid = _invalid_cells(cells, kind)
            bad += [(int(i) + 2, name, cells[i], kind) for i in np.flatnonzero(invalid)]
            missing |= invalid
        if kind == "boolean":
            values = pd.arrays.BooleanArray(cells == "true", missing)
        elif kind in ("number", "integer"):
            numbers = np.where(missing, "nan", cells).astype("float64")  # float() of each text: exact
            values = pd.array(numbers, dtype=PANDAS_DTYPES[kind]) if kind == "integer" else numbers
        else:
            values = pd.array(np.where(missing, None, cells), dtype="string")
        columns[name] = values
    if bad:
        raise TableReadError(path, bad)
    return pd.DataFrame(columns, index=text.index)


def _cells_holding(text: pd.DataFrame, marker: str, character: str) -> list[tuple[int, str, str, str]]:
    """The header names and cells of ``text`` holding ``marker`` (standing for ``character``), as TableReadError
    lists them."""
    kind = f"cell without NUL characters ({character!r}: remove them)"
    found = [(1, str(name).replace(marker, character), str(name).replace(marker, character), kind)
             for name in text.columns if marker in str(name)]
    for name in text.columns:
        cells = text[name].to_numpy(object)
        found += [(int(i) + 2, str(name).replace(marker, character), cells[i].replace(marker, character), kind)
                  for i in np.flatnonzero([marker in cell for cell in cells])]
    return sorted(found, key=lambda cell: cell[0])


# A cell type's pattern over a whole column at once: the cells joined by a character none of them holds, matched in
# one pass (a column with a bad cell, or holding the separator, is then checked cell by cell to name the cells).
_SEPARATOR = "\x00"
_CELL_PATTERNS = {kind: re.compile(pattern) for kind, pattern in _PATTERNS.items()}
_COLUMN_PATTERNS = {kind: re.compile(f"(?:{pattern})?(?:{_SEPARATOR}(?:{pattern})?)*")
                    for kind, pattern in _PATTERNS.items()}


def _invalid_cells(cells: np.ndarray, kind: str) -> np.ndarray:
    """Per cell of a column (an object array of texts): not empty and not of the ``kind``'s pattern."""
    joined = _SEPARATOR.join(cells)
    if joined.count(_SEPARATOR) == len(cells) - 1 and _COLUMN_PATTERNS[kind].fullmatch(joined):
        return np.zeros(len(cells), bool)
    return np.array([cell != "" and _CELL_PATTERNS[kind].fullmatch(cell) is None for cell in cells], bool)


SCORE_ROWS = ("fit", "all")


def fit_score_rows(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per algorithm and game: the row the fits use (``use_in_fit``, not superseded; of rows that agree,
    the first by score_id). Pairs with no such row (a game outside the 57, a number kept only for the record)
    are left out. The original index is kept, so a row can be found among all rows."""
    superseded = set(scores["supersedes"].dropna().astype(int))
    keep = scores["use_in_fit"].fillna(False).astype(bool) & ~scores["score_id"].isin(superseded)
    rows = scores[keep].sort_values("score_id", kind="stable")
    return rows[~rows.duplicated(["algorithm_id", "game_id"], keep="first")]


def open_dataset(path: str | Path | None = None, *, scores: str = "fit") -> Dataset:
    """The data package for a notebook (``atari5_spec.load``): ``scores`` holds one row per algorithm and game.

    Parameters
    ----------
    path : str or Path, optional
        A data package folder (default: the package you are in, else the installed copy).
    scores : {"fit", "all"}, default "fit"
        ``"fit"``: ``data.scores`` holds, per algorithm and game, the one row the fits use (``use_in_fit``, not
        superseded), so a pivot or a median counts each number once. ``"all"``: every row of data/scores.csv
        (numbers from several sources, superseded and corrected rows, rows kept for the record), as validation
        and fitting read it.

    Examples
    --------
    >>> import atari5_spec
    >>> data = atari5_spec.load()
    >>> bool(data.scores.duplicated(["algorithm_id", "game_id"]).any())
    False
    >>> len(atari5_spec.load(scores="all").scores) > len(data.scores)
    True
    """
    if scores not in SCORE_ROWS:
        raise InputError(f"scores={scores!r}: give 'fit' (one row per algorithm and game) or 'all' (every row)")
    dataset = load(path)
    if scores == "all":
        return dataset
    return dataset._replace(scores=fit_score_rows(dataset.scores), score_rows="fit")


def load(path: str | Path | None = None) -> Dataset:
    """Load the data package with every row of every table (by default the copy installed with atari5_spec).

    This is what validation, fitting and the commands read. ``atari5_spec.load`` (:func:`open_dataset`) gives
    the notebook view, one score row per algorithm and game unless ``scores="all"``.

    Parameters
    ----------
    path : str or Path, optional
        A data package folder (one holding datapackage.json). Default: the
        package you are in (the current folder or the nearest one above it),
        else the installed copy.

    Returns
    -------
    Dataset
        Tidy pandas frames, one per table: ``games``, ``algorithms``,
        ``scores``, ``seed_scores``, ``budget_scores``, ``sources``, typed by
        the Table Schemas in schemas/.

    Raises
    ------
    InputError
        When a table cannot be read (the message names file, line and column).

    Examples
    --------
    >>> from atari5_spec.data.loading import load
    >>> data = load()
    >>> list(data.scores.columns[:3])          # one row per published number
    ['score_id', 'algorithm_id', 'game_id']
    """
    from .transaction import read_consistently

    root = package_root(path)

    def read() -> Dataset:
        descriptor = read_descriptor(root)
        tables = {name: read_table(resource_path(root, descriptor, name), schema_of(root, descriptor, name))
                  for name in present_tables(descriptor)}
        return Dataset(**tables, version=descriptor["version"], root=root)

    # A merge committed while the tables are read would mix two states: read again after it.
    return read_consistently(root, read)
