"""Each pinned coefficient version read once per run: its manifest, its typed tables and its training matrix.

``atari5-spec verify`` checks every version, then every calibration of it, and each calibration needs the version's
tables and training matrix (a reselected one also its search version's): read from the files each time, the same
tables were parsed dozens of times. A :class:`PinnedReads` is made by the caller that reads them many times, for one
loaded dataset, and passed down explicitly (no module-level cache): every function that takes one reads through it,
and without one reads the files as before. What it hands out is shared: callers read it and never modify it.
"""

from __future__ import annotations

import pandas as pd

from . import coefficients as coef
from . import training

__all__ = ["PinnedReads", "pinned_training_matrix"]


class PinnedReads:
    """The pinned versions of ``dataset``'s package, each read (and its training matrix built) at most once."""

    def __init__(self, dataset) -> None:
        self.dataset = dataset
        self._tables: dict[str, tuple[dict, dict[str, pd.DataFrame]]] = {}
        self._matrices: dict[str, tuple[pd.DataFrame, pd.Series]] = {}

    def version_tables(self, version: str) -> tuple[dict, dict[str, pd.DataFrame]]:
        """(manifest, tables) of ``version``: :func:`atari5_spec.method.coefficients.read_version_tables`."""
        if version not in self._tables:
            self._tables[version] = coef.read_version_tables(self.dataset.root / "coefficients", version)
        return self._tables[version]

    def training_matrix(self, version: str) -> tuple[dict, pd.DataFrame, pd.Series]:
        """(manifest, X, y): the version's training rows as :func:`atari5_spec.method.training.training_matrix`
        gives them."""
        manifest, tables = self.version_tables(version)
        if version not in self._matrices:
            self._matrices[version] = training.training_matrix(tables["training_rows"], self.dataset.games,
                                                               self.dataset.algorithms)
        return (manifest, *self._matrices[version])


def pinned_training_matrix(dataset, version: str, reads: PinnedReads | None = None) -> tuple[dict, pd.DataFrame, pd.Series]:
    """(manifest, X, y) of ``version``'s training rows, through ``reads`` when given, else from the files."""
    if reads is not None:
        return reads.training_matrix(version)
    manifest, tables = coef.read_version_tables(dataset.root / "coefficients", version)
    return (manifest, *training.training_matrix(tables["training_rows"], dataset.games, dataset.algorithms))
