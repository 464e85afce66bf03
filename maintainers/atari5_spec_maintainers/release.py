"""The release artefact from Python: the data package as a folder and a byte-reproducible zip, with its citation.

:func:`export` is what ``atari5-spec export --out DIR`` does: the package's
files (:mod:`atari5_spec_maintainers.export`) plus the CITATION.cff of the versions
exported (:mod:`.citation`). It sits in the scoring layer because the
citation does.
"""

from __future__ import annotations

from pathlib import Path

from atari5_spec.data.datapackage import package_root
from atari5_spec_maintainers.export import ExportResult, export_package
from atari5_spec.scoring import citation as cite

__all__ = ["export", "ExportResult"]


def export(out: str | Path, package: str | Path | None = None) -> ExportResult:
    """Write the data package as a self-contained folder and a byte-reproducible zip under ``out``.

    Parameters
    ----------
    out : str or Path
        A folder outside the package (created when missing); the export is
        ``out/atari5-spec-data-<version>/`` and ``out/atari5-spec-data-<version>.zip``.
    package : str or Path, optional
        The data package to export (default: the one you are in, else the installed copy).

    Returns
    -------
    ExportResult
        The folder, the zip's path and size, and the number of files.
    """
    root = package_root(package)
    cff = cite.as_cff(cite.citation(root=root)).encode("utf-8")
    return export_package(root, out, {"CITATION.cff": cff})
