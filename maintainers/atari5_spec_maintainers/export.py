"""The data package as a release artefact: a self-contained folder and a byte-reproducible zip.

For people who never pip-install: ``atari5-spec export --out DIR`` writes
``DIR/atari5-spec-data-<version>/`` and ``DIR/atari5-spec-data-<version>.zip``
(the same folder, zipped), holding datapackage.json, data/, schemas/, the
pinned coefficient versions (coefficients/, with their manifests and index),
the calibrations (calibration/), the paper's published tables (published/),
a README of every field generated from the schemas, the licences, and any
extra files the caller adds (the command adds CITATION.cff). Every package
file is copied byte for byte, so the hashes in datapackage.json still hold
and any Frictionless reader validates the folder as it validates the
package.

The zip is byte-reproducible: entries in sorted order, every timestamp
1980-01-01 00:00, fixed permissions and creator system, deflate at level 9
(the same zlib gives the same bytes). Both outputs are written under the
output policy (:mod:`atari5_spec.data.paths`): never into a data package,
never through a symbolic link, each atomically (a folder built beside its
target and renamed into place; a zip written to a temporary file and
renamed), so an interrupted export leaves the previous one as it was.
"""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path, PurePosixPath
from typing import Mapping, NamedTuple

from atari5_spec.data.datapackage import DESCRIPTOR, fields_markdown, read_descriptor
from atari5_spec.data.errors import InputError
from atari5_spec.data.paths import output_directory, regular_file_problem, write_output
from atari5_spec.data.writing import replace_folder

__all__ = ["ExportResult", "export_package", "release_files", "zip_bytes", "export_readme", "PACKAGE_FOLDERS",
           "LICENCE_FILES", "EXPORT_MARK"]

# The folders of a package that make up the release artefact (the same the wheel ships).
PACKAGE_FOLDERS = ("data", "schemas", "coefficients", "calibration", "published")
LICENCE_FILES = ("LICENSE", "LICENSE-DATA")
# The first line of the generated README: marks a folder as an earlier export that may be replaced.
EXPORT_MARK = "<!-- written by atari5-spec export; regenerated on every export -->"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can hold
FILE_MODE = 0o644
UNIX = 3  # the zip "created by" system


class ExportResult(NamedTuple):
    folder: Path
    zip_path: Path
    n_files: int
    zip_bytes: int


def release_files(root: Path) -> dict[str, Path]:
    """Relative POSIX path -> file, for datapackage.json and every regular file in PACKAGE_FOLDERS.

    Hidden files (temporary files of an interrupted write) are left out; a
    symbolic link or anything but a regular file is refused.
    """
    root = Path(root)
    read_descriptor(root)  # the descriptor's shape and paths are checked before anything is copied
    files = {DESCRIPTOR: root / DESCRIPTOR}
    for folder in PACKAGE_FOLDERS:
        if not (root / folder).is_dir():
            continue
        for directory, subfolders, names in os.walk(root / folder):
            subfolders[:] = sorted(s for s in subfolders if not s.startswith("."))
            for name in sorted(n for n in names if not n.startswith(".")):
                path = Path(directory) / name
                problem = regular_file_problem(path, follow_links=False)
                if problem:
                    raise InputError(f"{path}: {problem}: a package file must be a regular file (remove it)")
                files[PurePosixPath(path.relative_to(root).as_posix()).as_posix()] = path
    return dict(sorted(files.items()))


def _licence_texts(root: Path) -> dict[str, bytes]:
    """LICENSE and LICENSE-DATA from the package's folder, else from the installed distribution's metadata."""
    texts = {}
    for name in LICENCE_FILES:
        path = Path(root) / name
        if path.is_file():
            texts[name] = path.read_bytes()
            continue
        try:
            from importlib.metadata import distribution

            text = distribution("atari5-spec").read_text(f"licenses/{name}")
        except Exception:  # noqa: BLE001 - any failure means "not found"
            text = None
        if text is None:
            raise InputError(f"{name}: not found beside {root / DESCRIPTOR} nor in the installed atari5-spec: "
                             "an export without its licence cannot be shared")
        texts[name] = text.encode("utf-8")
    return texts


def export_readme(root: Path, folder_name: str, extra_names: list[str]) -> str:
    """The README.md of the export: what it is, how to read it, every field, licences."""
    descriptor = read_descriptor(root)
    names = [r["name"] for r in descriptor["resources"]]
    lines = [EXPORT_MARK, "", f"# {descriptor.get('title', descriptor['name'])}", "",
             f"Data package `{descriptor['name']}` version **{descriptor['version']}** "
             f"(folder `{folder_name}`), exported from atari5-spec. "
             f"{descriptor.get('description', '')}", "",
             "## Reading it", "",
             "It is a Frictionless Tabular Data Package: `datapackage.json` lists every table with its schema "
             "(`schemas/`), its size and its sha256, so a reader can check the files are these.", "",
             "    frictionless validate datapackage.json", "",
             "    import pandas as pd", "    scores = pd.read_csv(\"data/scores.csv\")", "",
             "Pinned coefficient versions are in `coefficients/<version>/` (`manifest.yaml` says how each was "
             "fitted; `index.yaml` names the default), the pinned out-of-sample errors of each version in "
             "`calibration/`, the Atari-5 paper's printed tables in `published/`. The atari5-spec software "
             "scores an agent with them; the signature it prints names the "
             "coefficient version and the data package version.", "",
             "## Files", ""]
    lines += [f"* `{name}`" for name in extra_names]
    lines += ["", "## Fields", "", "Generated from the Table Schemas in `schemas/`.", "",
              fields_markdown(root, names).rstrip("\n"), "", "## Contributors", ""]
    lines += [f"* {c['title']}: {c.get('description', c.get('role', ''))}"
              for c in descriptor.get("contributors", []) if c.get("title")]
    lines += ["", "Every row's source is in `data/sources.csv` (`source_id` in the other tables).", "",
              "## Licences", "",
              "Data (`data/`, `coefficients/`, `calibration/`, `published/`, `schemas/`): CC-BY-SA-4.0 "
              "(`LICENSE-DATA`), because it derives from the Papers with Code tables; the upstream Atari-5 "
              "tables are MIT (Copyright (c) 2022 Matthew Aitchison). The atari5-spec code is MIT (`LICENSE`)."]
    return "\n".join(lines) + "\n"


def zip_bytes(entries: Mapping[str, bytes]) -> bytes:
    """A zip of ``entries`` (archive path -> bytes) that depends only on them: sorted, fixed times and modes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = UNIX
            info.external_attr = (0o100000 | FILE_MODE) << 16  # a regular file, rw-r--r--
            archive.writestr(info, entries[name], compresslevel=9)
    return buffer.getvalue()


def _replace_folder(target: Path, contents: Mapping[str, bytes]) -> None:
    """Write ``contents`` as the folder ``target``, built beside it and renamed into place."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise InputError(f"--out: {target} exists and is not a folder: remove it or give another --out")
    if target.exists():
        readme = target / "README.md"
        if not (readme.is_file() and readme.read_text(encoding="utf-8", errors="replace").startswith(EXPORT_MARK)):
            raise InputError(f"--out: {target} exists and is not an earlier export: remove it or give another --out")
    replace_folder(target, contents)


def export_package(root: Path, out: Path | str, extra_files: Mapping[str, bytes] | None = None) -> ExportResult:
    """Write the package at ``root`` as ``out/atari5-spec-data-<version>/`` and ``...zip``.

    ``extra_files``: more files for the top of the folder (name -> bytes),
    e.g. CITATION.cff. Raises InputError when ``out`` is refused by the output
    policy or a package file is not a regular file.
    """
    root = Path(root)
    out = output_directory(out)
    descriptor = read_descriptor(root)
    name = f"atari5-spec-data-{descriptor['version']}"
    contents = {relative: path.read_bytes() for relative, path in release_files(root).items()}
    contents.update(_licence_texts(root))
    contents.update(dict(extra_files or {}))
    listing = sorted(set(contents) | {"README.md"})
    top = [f for f in listing if "/" not in f] + sorted({f.split("/")[0] + "/" for f in listing if "/" in f})
    contents["README.md"] = export_readme(root, name, top).encode("utf-8")
    contents = dict(sorted(contents.items()))
    _replace_folder(out / name, contents)
    archive = zip_bytes({f"{name}/{relative}": data for relative, data in contents.items()})
    zip_path = write_output(out / f"{name}.zip", archive)
    return ExportResult(out / name, zip_path, len(contents), len(archive))
