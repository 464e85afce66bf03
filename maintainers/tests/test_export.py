"""``atari5-spec export``: a self-contained folder and a byte-reproducible zip of the data package."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from atari5_spec.cli import main
from atari5_spec.data.datapackage import package_root, read_descriptor, schema_of
from atari5_spec_maintainers.export import EXPORT_MARK, export_package


def _export(capsys, out, package=None):
    status = main(["export", "--out", str(out)] + (["--package", str(package)] if package else []))
    captured = capsys.readouterr()
    assert status == 0, captured.err
    version = read_descriptor(package or package_root())["version"]
    return out / f"atari5-spec-data-{version}", out / f"atari5-spec-data-{version}.zip"


def test_two_exports_give_byte_identical_zips(tmp_path, capsys, package_copy):
    _, first = _export(capsys, tmp_path / "a")
    first_bytes = first.read_bytes()
    _, again = _export(capsys, tmp_path / "a")  # over the earlier export
    # and from another copy of the package, elsewhere, later: the zip depends only on the package's files
    _, elsewhere = _export(capsys, tmp_path / "b", package_copy)
    assert again.read_bytes() == first_bytes
    assert hashlib.sha256(elsewhere.read_bytes()).hexdigest() == hashlib.sha256(first_bytes).hexdigest()
    with zipfile.ZipFile(first) as archive:
        infos = archive.infolist()
    assert [i.filename for i in infos] == sorted(i.filename for i in infos)
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}


def test_the_folder_and_the_zip_hold_the_whole_package(tmp_path, capsys):
    folder, archive_path = _export(capsys, tmp_path)
    root = package_root()
    descriptor = read_descriptor(root)
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    with zipfile.ZipFile(archive_path) as archive:
        zipped = {n.split("/", 1)[1]: archive.read(n) for n in archive.namelist()}
    assert zipped == files
    for resource in descriptor["resources"]:  # every table, byte for byte, so its recorded hash holds
        data = files[resource["path"]]
        assert "sha256:" + hashlib.sha256(data).hexdigest() == resource["hash"], resource["path"]
        assert resource["schema"] in files
    for name in ("datapackage.json", "LICENSE", "LICENSE-DATA", "CITATION.cff", "README.md",
                 "coefficients/index.yaml", "coefficients/paper-2023/manifest.yaml", "published/README.md"):
        assert name in files, name
    assert files["datapackage.json"] == (root / "datapackage.json").read_bytes()
    readme = files["README.md"].decode("utf-8")
    assert readme.startswith(EXPORT_MARK) and f"version **{descriptor['version']}**" in readme
    for resource in descriptor["resources"]:
        for field in schema_of(root, descriptor, resource["name"])["fields"]:
            assert f"| `{field['name']}` |" in readme, (resource["name"], field["name"])


@pytest.mark.slow
def test_frictionless_accepts_the_exported_folder(tmp_path, capsys):
    folder, _ = _export(capsys, tmp_path)
    exe = shutil.which("frictionless") or str(Path(sys.executable).with_name("frictionless"))
    result = subprocess.run([exe, "validate", "datapackage.json"], cwd=folder, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-2000:]


def test_export_is_refused_inside_a_package_and_over_a_folder_it_did_not_write(tmp_path, capsys, package_copy):
    assert main(["export", "--out", str(package_copy / "release")]) == 1
    assert "inside the data package" in capsys.readouterr().err
    version = read_descriptor(package_root())["version"]
    mine = tmp_path / f"atari5-spec-data-{version}"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["export", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "is not an earlier export" in err and len(err.strip().splitlines()) == 1
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert not (tmp_path / f"atari5-spec-data-{version}.zip").exists()


def test_export_api_names_what_it_wrote(tmp_path):
    result = export_package(package_root(), tmp_path, {"EXTRA.txt": b"x"})
    assert result.zip_path.stat().st_size == result.zip_bytes and (result.folder / "EXTRA.txt").read_bytes() == b"x"
    assert json.loads((result.folder / "datapackage.json").read_text(encoding="utf-8"))["name"] == "atari5-spec"
