"""Frictionless's verdicts kept by content (atari5_spec.data.validation_cache): an unchanged resource is not read
again, and every change its verdict depends on (its bytes, its schema, a referenced id) is judged afresh."""

import json
import shutil

import pytest

from atari5_spec.data import validation, validation_cache
from test_validation import edit_cell, line_of


@pytest.fixture(scope="module")
def cold_run(tmp_path_factory):
    """One validation of the package with an empty cache (about 10 s: every resource read row by row), shared by
    the module: (the cache folder it filled, the resources it read, the problems it found)."""
    from conftest import copy_package

    folder = tmp_path_factory.mktemp("cold-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder))
        patch.delenv("ATARI5_SPEC_NO_CACHE", raising=False)
        names = judged(patch)
        problems = validation.frictionless_problems(copy_package(tmp_path_factory.mktemp("cold") / "package"))
    return folder / "atari5-spec" / "frictionless", names, problems


@pytest.fixture()
def own_cache(tmp_path, monkeypatch, cold_run):
    """This test's own copy of the cache the cold run filled (the package's verdicts, every one "no problem")."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ATARI5_SPEC_NO_CACHE", raising=False)
    shutil.copytree(cold_run[0], tmp_path / "cache" / "atari5-spec" / "frictionless")
    return tmp_path / "cache" / "atari5-spec" / "frictionless"


def judged(monkeypatch) -> list:
    """Record the resources Frictionless reads row by row from now on."""
    names = []
    real = validation._resource_findings

    def counting(root, resource, finding):
        names.append(resource.name)
        return real(root, resource, finding)
    monkeypatch.setattr(validation, "_resource_findings", counting)
    return names


@pytest.mark.slow
def test_an_unchanged_package_is_judged_once_and_a_copy_shares_the_verdicts(package_copy, own_cache, monkeypatch,
                                                                              tmp_path, cold_run):
    from conftest import copy_package

    _, cold_names, cold_problems = cold_run                 # the empty cache: every resource read
    assert cold_problems == [] and sorted(cold_names) == sorted(
        r["name"] for r in json.loads((package_copy / "datapackage.json").read_text())["resources"])
    names = judged(monkeypatch)
    assert validation.frictionless_problems(package_copy) == []
    assert validation.frictionless_problems(copy_package(tmp_path / "elsewhere")) == []
    assert names == []                                 # other folders, the same content: nothing read again
    monkeypatch.setenv("ATARI5_SPEC_NO_CACHE", "1")
    assert validation.frictionless_problems(package_copy) == []
    assert len(names) > 50                             # turned off: every resource read


@pytest.mark.slow
def test_a_changed_referenced_id_is_found_in_the_unchanged_referencing_table(package_copy, own_cache, monkeypatch):
    assert validation.frictionless_problems(package_copy) == []
    names = judged(monkeypatch)
    # a column no foreign key reads: only the edited table is judged again
    edit_cell(package_copy, "data/algorithms.csv", line_of(package_copy, "data/algorithms.csv", "agent57,"),
              "year", "2019")
    assert validation.frictionless_problems(package_copy) == []
    assert names == ["algorithms"]
    names.clear()
    # the id scores.csv refers to: scores.csv did not change, yet its foreign key now fails, and is reported
    edit_cell(package_copy, "data/algorithms.csv", line_of(package_copy, "data/algorithms.csv", "agent57,"),
              "algorithm_id", "agent57-renamed")
    problems = validation.frictionless_problems(package_copy)
    assert "scores" in names and "algorithms" in names
    assert any(p.file == "data/scores.csv" and "foreign" in p.message.lower() for p in problems)


@pytest.mark.slow
def test_a_changed_byte_or_schema_is_judged_again_and_a_found_problem_is_kept_too(package_copy, own_cache,
                                                                                   monkeypatch):
    assert validation.frictionless_problems(package_copy) == []
    path = package_copy / "data" / "games.csv"
    # a byte of a column no foreign key reads (a referenced id would send the referencing tables back too)
    path.write_text(path.read_text(encoding="utf-8").replace("pong,Pong,", "pong,Pong ,", 1), encoding="utf-8")
    names = judged(monkeypatch)
    first = validation.frictionless_problems(package_copy)      # the hash in datapackage.json no longer matches
    assert any(p.file == "data/games.csv" for p in first) and names == ["games"]
    names.clear()
    assert validation.frictionless_problems(package_copy) == first and names == []   # the problem, read back
    # a changed schema (of a table no other table references): that table is judged again, and only it
    schema = package_copy / "schemas" / "protocol-evidence.schema.json"
    schema.write_text(schema.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    validation.frictionless_problems(package_copy)
    assert names == ["protocol_evidence"]


@pytest.mark.slow
def test_a_tampered_or_foreign_entry_is_ignored(package_copy, own_cache, monkeypatch):
    assert validation.frictionless_problems(package_copy) == []
    entries = sorted(own_cache.glob("*.json"))
    assert entries
    for entry in entries:        # each claims every resource has no problem under another key, or is junk
        entry.write_text(json.dumps({"key": "0" * 64, "problems": []}) if entry.name < "8" else "{junk",
                         encoding="utf-8")
    names = judged(monkeypatch)
    assert validation.frictionless_problems(package_copy) == []
    assert len(names) > 50
    descriptor = json.loads((package_copy / "datapackage.json").read_text())
    assert validation_cache.resource_key(package_copy, descriptor, "no-such-resource", "5") is None
