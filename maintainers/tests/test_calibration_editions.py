"""Calibration editions: new evidence becomes the next edition beside the old file, which never changes.

A calibration is ``<version>[.<method>][.<edition>]``; ``evaluate --pin-calibration`` writes the next edition
when the data give other errors than the newest one, ``score`` uses the newest pinned edition, a signature
naming an older edition is checked with that edition, ``verify`` recomputes every edition, and the registry
flags an edition file the descriptor does not list.
"""

from __future__ import annotations

import json
import re

import pytest
from test_faults import snapshot

import atari5_spec
from atari5_spec.cli import main
from atari5_spec.data.datapackage import package_root
from atari5_spec.data.registry import registry_problems, split_calibration_name
from atari5_spec.method.calibration import calibration_editions, read_calibration, read_named_calibration, split_name
from atari5_spec_research.evaluation import version_errors
from atari5_spec_maintainers.pinning.calibrations import calibration_mismatches, calibration_text, pinned_calibration_names
from atari5_spec.method.pinned import load_coefficient_set
from atari5_spec.scoring.estimate import _prediction_interval, score
from atari5_spec.scoring.signature import parse_signature

DEFAULT = read_calibration(package_root() / "coefficients" / "paper-2023")  # score's: the newest edition of the first method

RUNS = {"battle_zone": [30000, 32000, 31000], "double_dunk": [-1, -2, 0], "name_this_game": [12000, 11000, 13000],
        "phoenix": [8000, 9000, 7000], "qbert": [15000, 16000, 14000]}


def test_names_carry_the_edition_from_the_second_on():
    assert split_name("paper-2023") == ("paper-2023", "pooled", 1)
    assert split_name("paper-2023.in-range") == ("paper-2023", "in-range", 1)
    assert split_name("paper-2023.in-range.2") == ("paper-2023", "in-range", 2)
    assert split_name("paper-2023.12") == ("paper-2023", "pooled", 12)
    for bad in ("paper-2023.in-range.1", "paper-2023.in-range.02", "paper-2023.unknown", "a.b.c.d"):
        assert split_name(bad) is None, bad
    assert split_calibration_name("paper-2023.in-range.1") is None  # the first edition has no number


def _same_rows(a, b, tolerance=1e-9, filled_since=(), added=None):
    """Two calibration files hold the same rows: text columns equal, numbers within ``tolerance`` (relative).

    ``added``: the algorithm ids merged since ``b`` was pinned; ``a`` holds exactly ``b``'s rows (in its order) plus
    rows of those agents, none of them a training agent's.

    A column of ``filled_since`` (protocol labels read from data/algorithms.csv) may differ only where ``b``,
    the older file, says nothing ("", "not stated", "unknown"): data filled since then (protocol evidence, data 1.25.0) states it now.
    """
    import csv
    import math

    def rows(path):
        with open(path, newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))

    left, right = rows(a), rows(b)
    if added is not None:
        new = [r for r in left if r["algorithm_id"] in added]
        assert new and {r["algorithm_id"] for r in new} == set(added) and {r["kind"] for r in new} == {"held-out"}
        assert not {r["algorithm_id"] for r in right} & set(added)
        left = [r for r in left if r["algorithm_id"] not in added]
    assert len(left) == len(right)
    for x, y in zip(left, right):
        assert x.keys() == y.keys()
        for key in x:
            try:
                u, v = float(x[key]), float(y[key])
            except ValueError:
                assert x[key] == y[key] or (key in filled_since and y[key] in ("", "not stated", "unknown")), (key, x, y)
                continue
            assert math.isclose(u, v, rel_tol=tolerance, abs_tol=tolerance), (key, x[key], y[key])
    return True


def _without_edition(root, name):
    """The package as it was before ``name`` was pinned: its file and its resource removed."""
    (root / "calibration" / f"{name}.csv").unlink()
    descriptor = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["resources"] = [r for r in descriptor["resources"] if r["name"] != f"calibration-{name}"]
    (root / "datapackage.json").write_text(json.dumps(descriptor, indent=2) + "\n", encoding="utf-8")


@pytest.mark.slow
def test_new_evidence_is_the_next_edition_beside_the_unchanged_old_one(package_copy, capsys):
    root, version = package_copy, package_copy / "coefficients" / "paper-2023"
    _without_edition(root, "paper-2023.in-range.2")
    assert read_calibration(version, "in-range").name == "paper-2023.in-range"
    old_bytes = {p.name: p.read_bytes() for p in (root / "calibration").iterdir() if p.is_file()}
    assert main(["evaluate", "--pin-calibration", "--calibration-method", "in-range", "--package", str(root)]) == 0
    capsys.readouterr()
    # the new edition is beside the old ones, which are byte for byte what they were
    assert {p.name: p.read_bytes() for p in (root / "calibration").iterdir() if p.name in old_bytes} == old_bytes
    new = root / "calibration" / "paper-2023.in-range.2.csv"
    _, errors = version_errors(atari5_spec.load(root, scores="all"), "paper-2023")
    assert new.read_text(encoding="utf-8") == calibration_text(errors, "in-range")
    # ... and the repository's edition 2, up to the last bits of floating point (numpy and BLAS builds differ
    # there; verify compares with the same 1e-9 tolerance)
    # (protocol labels that data 1.25.0's protocol evidence stated since are the one difference allowed)
    # data 1.77.0-1.80.0 merged 28 never-selected agents (Dopamine, Cleanba) after edition 2 was pinned: they are
    # the rows the recomputed edition holds beyond it; data 1.83.0-1.88.0 merged 6 more (SLM-Lab 2019, ChainerRL DQN
    # and A3C), which the third formula edition holds
    pinned = package_root() / "calibration" / "paper-2023.in-range.2.csv"
    since = {r["algorithm_id"] for r in read_named_calibration(version, "paper-2023.formula.3").rows} - {
        r["algorithm_id"] for r in read_named_calibration(version, "paper-2023.formula").rows}
    assert len(since) == 28 + 6
    # data 1.98.0-1.109.0 merged the upstream-2028 release's 12 never-selected agents (issue 46 item 1), which no
    # pinned edition holds yet: rows of the recomputed edition beyond it too
    release = {"nnabla-rl-c51", "pfrl-iqn", "pfrl-rainbow", "ppo-cleanrl-envpool-machado-200m",
               "ppo-cleanrl-envpool-machado-40m", "rldb-impala-deep-multitask", "rldb-impala-shallow",
               "rldb-noisynet-a3c", "rldb-noisynet-dqn", "rldb-noisynet-paper-a3c", "rldb-noisynet-paper-dqn",
               "rldb-noisynet-paper-dudqn"}
    assert _same_rows(new, pinned, filled_since={"sticky", "budget", "regime"}, added=since | release)
    assert calibration_editions(version, "in-range") == [1, 2]
    # the method's newest edition is read; the old edition is still read by its name; score keeps the first
    # method (formula since data 1.77.0), whose file did not change
    newest = read_calibration(version, "in-range")
    assert newest.name == "paper-2023.in-range.2" and len(newest.rows) > len(read_named_calibration(
        version, "paper-2023.in-range").rows)
    default = read_calibration(version)
    assert score(RUNS, coefficients=load_coefficient_set("paper-2023", root)).prediction_interval.calibration == \
        f"{DEFAULT.name}@{default.digest}"
    descriptor = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))
    assert any(r["name"] == "calibration-paper-2023.in-range.2" and r["path"] == "calibration/paper-2023.in-range.2.csv"
               for r in descriptor["resources"])
    assert registry_problems(root) == []
    # the same data again: nothing new, exit 1, nothing written
    before = snapshot(root)
    assert main(["evaluate", "--pin-calibration", "--calibration-method", "in-range", "--package", str(root)]) == 1
    assert "nothing new: paper-2023.in-range.2 already holds these errors" in capsys.readouterr().err
    # --update-calibration is the same command (kept for old scripts)
    assert main(["evaluate", "--update-calibration", "--calibration-method", "in-range", "--package", str(root)]) == 1
    assert snapshot(root) == before


@pytest.mark.slow
def test_the_pooled_method_gets_its_own_second_edition(package_copy, capsys):
    root, version = package_copy, package_copy / "coefficients" / "paper-2023"
    first = (root / "calibration" / "paper-2023.csv").read_bytes()
    assert main(["evaluate", "--update-calibration", "--package", str(root)]) == 0
    assert "paper-2023.2.csv" in capsys.readouterr().out
    assert (root / "calibration" / "paper-2023.csv").read_bytes() == first
    assert read_calibration(version, "pooled").name == "paper-2023.2"
    assert read_calibration(version).name == DEFAULT.name  # the first method still wins
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8") if (root / "CHANGELOG.md").exists() else ""
    assert changelog == "" or "calibration `paper-2023.2`, edition 2" in changelog
    data = atari5_spec.load(root, scores="all")
    names = pinned_calibration_names(root, "paper-2023")
    assert names == ["paper-2023.formula", "paper-2023.formula.2", "paper-2023.formula.3", "paper-2023.reselected",
                     "paper-2023.reselected.2", "paper-2023.reselected.3", "paper-2023.in-range", "paper-2023.in-range.2",
                     "paper-2023", "paper-2023.2"]
    for name in names:  # verify's calibration check, every edition: each against the agents it holds
        compared, problems = calibration_mismatches(data, name, 1e-9)
        assert compared > 400 and problems == [], name


def test_registry_flags_an_unlisted_edition_and_a_missing_earlier_one(package_copy):
    version = package_copy / "coefficients" / "paper-2023"
    calibration = package_copy / "calibration"
    (calibration / "paper-2023.in-range.3.csv").write_bytes((calibration / "paper-2023.in-range.2.csv").read_bytes())
    assert [p.file for p in registry_problems(package_copy)] == ["calibration/paper-2023.in-range.3.csv"]
    assert read_calibration(version, "in-range").name == "paper-2023.in-range.2"  # an unlisted edition is never used
    assert read_calibration(version).name == DEFAULT.name == "paper-2023.formula.3"
    (calibration / "paper-2023.in-range.3.csv").unlink()
    _without_edition(package_copy, "paper-2023.in-range")  # the old edition dropped: not allowed
    problems = registry_problems(package_copy)
    # its interval table is still listed: flagged too, as the table of a calibration the descriptor does not list
    assert [p.file for p in problems] == ["calibration/intervals/paper-2023.in-range.csv",
                                          "calibration/paper-2023.in-range.2.csv"]
    assert "edition 1" in problems[1].message


def test_a_signature_naming_the_old_edition_still_checks_with_that_edition(capsys, tmp_path):
    coefficients = load_coefficient_set("paper-2023")
    old = read_named_calibration(coefficients.path, "paper-2023.in-range")
    # at 95% both editions happen to give the same in-range quantile (the same error is the 95% rank); at 80%
    # they differ, so the check shows which edition it used
    result = score(RUNS, coefficients="paper-2023", confidence=0.8)
    assert result.prediction_interval.calibration == f"{DEFAULT.name}@{DEFAULT.digest}" != f"{old.name}@{old.digest}"
    old_pi = _prediction_interval(coefficients.subsets["Atari-5"], {g: tuple(v) for g, v in RUNS.items()},
                                  result.estimate, result.interval, old, 0.8)
    assert (old_pi.low, old_pi.high) != (result.prediction_interval.low, result.prediction_interval.high)
    signature = re.sub(r"\|cal:[^|]+\|", f"|cal:paper-2023.in-range@{old.digest}|", result.signature)
    assert parse_signature(signature).calibration == "paper-2023.in-range"
    scores = tmp_path / "runs.csv"
    scores.write_text("game,score,seed\n" + "".join(f"{g},{v},{s}\n" for g, values in RUNS.items()
                                                     for s, v in enumerate(values, 1)))

    def check(low, high, sig):
        line = f"Atari-5 score {result.estimate:,.1f} (80% prediction interval {low:,.1f} to {high:,.1f})  [{sig}]"
        main(["signature", "check", line, "--scores", str(scores)])
        return capsys.readouterr().out

    out = check(old_pi.low, old_pi.high, signature)
    assert re.search(r"^  cal\s+matches", out, re.M), out
    assert re.search(r"^  prediction interval\s+matches", out, re.M), out
    # the old interval under the new edition's name does not match: the edition named is the one used
    out = check(old_pi.low, old_pi.high, result.signature)
    assert re.search(r"^  prediction interval\s+differs", out, re.M), out
