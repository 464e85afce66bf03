"""The attacks of issue 25 on the contribution path, each from the contributor's side: a submission folder or an
edit of the package, then the commands a maintainer and the workflows run (``contribute check``, ``contribute
report``, ``validate``). The pull-request workflow itself is run on a hostile branch in test_review_workflow.py.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from test_contributions import make_submission, metadata

REPOSITORY = Path(__file__).resolve().parents[2]


def _fit_rows(dataset, algorithm_id):
    scores = dataset.scores
    rows = scores[(scores.algorithm_id == algorithm_id) & scores.use_in_fit.astype(bool)
                  & ~scores.score_id.isin(scores.supersedes.dropna())]
    return rows.sort_values("game_id")


def _scores_csv(rows, factor=1.0) -> str:
    from atari5_spec.data.loading import load

    names = load().games.set_index("game_id")["name"]
    return "game,score\n" + "".join(f"{names[r.game_id]},{float(r.score) * factor:.6f}\n"
                                    for r in rows.itertuples())


# --- look-alikes and near-copies ----------------------------------------------------------------------------------

def test_a_copy_times_1_001_under_a_new_id_is_warned_naming_the_entry(package_copy, run, dataset):
    rows = _fit_rows(dataset, "dreamerv3")
    assert len(rows) == 57
    make_submission(package_copy / "contributions", "dreamer-copy", meta=metadata(name="WorldModelAgent"),
                    scores=_scores_csv(rows, 1.001))
    status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "dreamer-copy"))
    assert "57 of the 57 scores are those of 'dreamerv3' ('DreamerV3') in data/ times 1.001 game by game" in out, out


@pytest.mark.parametrize("name", ["Dr\u0435amerV3"] + [pytest.param(n, marks=pytest.mark.slow)
                                                       for n in ("DreamerV3", "dreamer-v3", "ＤｒｅａｍｅｒＶ３")])
def test_a_name_that_looks_like_an_entry_is_warned(package_copy, run, name):
    from atari5_spec.data.loading import load

    assert name not in set(load(package_copy).algorithms["name"]) or name == "DreamerV3"
    make_submission(package_copy / "contributions", "new-agent", meta=metadata(name=name))
    status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "new-agent"))
    assert status == 0  # a warning for the reviewer, not a problem
    assert "that of 'dreamerv3' ('DreamerV3') in data/" in out, out
    assert ("is exactly" if name == "DreamerV3" else "looks like") in out


def test_an_unrelated_name_and_numbers_get_no_resemblance_warning(package_copy, run):
    make_submission(package_copy / "contributions", "new-agent")
    status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "new-agent"))
    assert status == 0 and "looks like" not in out and "within 1%" not in out and "is exactly" not in out


def test_the_skeleton_folds_what_renders_alike():
    from atari5_spec_maintainers.contributions.lookalikes import skeleton

    assert len({skeleton(n) for n in ("DreamerV3", "Dr\u0435amerV3", "DREAMER-V3", "ＤｒｅａｍｅｒＶ３",
                                      "Dreamer V3")}) == 1
    assert skeleton("Rainbow") != skeleton("Rainbow-IQN") and skeleton("DQN") != skeleton("DDQN")


# --- corrections shown in full -------------------------------------------------------------------------------------

def test_who_sent_a_correction_decides_it_never_metadata_yamls_handle(package_copy, dataset):
    """Issue 47: a correction is free of holds only when the pull request's author (``author``, the platform's
    word) is the entry's recorded contributor; an entry the maintainers imported needs a maintainer whoever
    sends it; a change beyond LARGE_CHANGE needs one too."""
    from atari5_spec_maintainers.contributions import check_submission
    from atari5_spec_maintainers.contributions.checking import LARGE_CHANGE

    made = []

    def held(target, factor, author):
        made.append(target)
        rows = _fit_rows(dataset, target)
        meta = metadata(name=None, protocol=None, corrects=target,
                        contributor={"name": "atari5-spec maintainers", "github": "atari5-spec"})  # the claim
        folder = make_submission(package_copy / "contributions", f"{target}-fix-{len(made)}",
                                 meta=meta, scores=_scores_csv(rows[rows.score > 0].iloc[:3], factor))
        report = check_submission(folder, package_copy, author=author)
        assert report.ok, report.problems
        return [(h.column, h.message) for h in report.holds]

    assert held("dreamerv3", 0.9, "atari5-spec") == [] and held("dreamerv3", 0.9, "Atari5-Spec") == []
    ((column, message),) = held("dreamerv3", 0.9, "mallory")
    assert column == "contributor.github" and all(n in message for n in ("'dreamerv3'", "@mallory", "@atari5-spec"))
    assert [c for c, _ in held("dreamerv3", 0.9, None)] == ["contributor.github"]  # not known: held
    assert [c for c, _ in held("dreamerv2", 0.9, "atari5-spec")] == ["corrects"]  # imported from the paper
    assert LARGE_CHANGE == 2.0
    assert [c for c, _ in held("dreamerv3", 2.1, "atari5-spec")] == ["score"]
    assert [c for c, _ in held("dreamerv3", 1 / 2.1, "atari5-spec")] == ["score"]
    assert held("dreamerv3", 1.9, "atari5-spec") == []



def test_a_correction_shows_old_new_and_ratio_and_warns_on_a_large_change_by_someone_else(package_copy, run,
                                                                                             dataset):
    old = _fit_rows(dataset, "dreamerv3").set_index("game_id").loc["alien", "score"]
    meta = metadata(name=None, protocol=None, corrects="dreamerv3",
                    contributor={"name": "Mallory", "github": "mallory"})
    make_submission(package_copy / "contributions", "dreamerv3-fix", meta=meta, scores="game,score\nAlien,99999\n")
    status, out, _ = run("contribute", "report", str(package_copy / "contributions" / "dreamerv3-fix"), "--markdown")
    assert status == 0
    assert f"| alien | {old:,.6g} | 99,999 | {99999 / old:.4g} |" in out, out
    assert "1 corrected number(s) change by more than 2 times" in out
    assert "the correction of 'dreamerv3' is sent by someone not known here, not by who contributed the entry " \
        "(@\u200batari5-spec" in out  # metadata.yaml's @mallory is a claim: not who sent it


# --- formulas ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [" =1+1", "  @SUM(A1)", "\u00a0+cmd|' /C calc'!A0"])
def test_a_formula_behind_spaces_is_refused(package_copy, run, name):
    make_submission(package_copy / "contributions", "new-agent", meta=metadata(name=name))
    status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "new-agent"))
    assert status == 1 and "is read as a formula by spreadsheets" in out, out


def _rerecord_hash(root: Path, relative: str) -> None:
    """What an attacker does after editing a data file: write its new sha256 and size into datapackage.json."""
    descriptor = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))
    for resource in descriptor["resources"]:
        if resource.get("path") == relative:
            resource["hash"] = "sha256:" + hashlib.sha256((root / relative).read_bytes()).hexdigest()
            resource["bytes"] = (root / relative).stat().st_size
    (root / "datapackage.json").write_text(json.dumps(descriptor, indent=2) + "\n", encoding="utf-8")


@pytest.mark.slow
def test_validate_refuses_a_formula_or_tab_stored_in_data(package_copy, run):
    path = package_copy / "data" / "algorithms.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[1] = lines[1].replace(lines[1].split(",")[1], "=HYPERLINK(\"https://evil.example\")".replace(",", ""), 1)
    lines[2] = lines[2].replace(lines[2].split(",")[1], "Agent\twith tab", 1)
    path.write_text("\n".join(lines), encoding="utf-8")
    _rerecord_hash(package_copy, "data/algorithms.csv")
    status, out, err = run("validate", "--package", str(package_copy))
    assert status == 1
    assert "starts with = + - or @, which a spreadsheet runs as a formula" in out + err
    assert "control or bidirectional character" in out + err


def test_numbers_are_not_formulas():
    from atari5_spec.data.validation import spreadsheet_formula

    assert not any(spreadsheet_formula(t) for t in ("-12.5", "-1.2 ± 0.3", "+3", "-1e3", "Alien"))
    assert all(spreadsheet_formula(t) for t in ("=1+1", " =1+1", "-A1", "@x", "+cmd", "-1.2 ± x"))


# --- bounds --------------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_forty_thousand_seeds_of_one_game_are_refused(package_copy, run):
    rows = "".join(f"Phoenix,{1000 + i},{i}\n" for i in range(40_000))
    meta = metadata(protocol={"seeds": 3, "statistic": "mean"})
    make_submission(package_copy / "contributions", "many-seeds", meta=meta, scores="game,score,seed\n" + rows)
    status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "many-seeds"))
    assert status == 1 and "phoenix: more than 100 seeds (runs); this is run 101" in out, out
    assert out.count("more than 100 seeds") == 1



# --- published data edited in a pull request -------------------------------------------------------------------------

def test_an_edited_published_score_with_its_hash_re_recorded_needs_a_maintainer(package_copy, package_git, run,
                                                                               monkeypatch):
    git = package_git
    scores = package_copy / "data" / "scores.csv"
    text = scores.read_text(encoding="utf-8")
    old = next(line for line in text.split("\n") if ",dreamerv3,alien," in line and line.endswith(",true,"))
    new = old.replace(old.split(",")[3], "99999.0", 1)
    scores.write_text(text.replace(old, new), encoding="utf-8")
    _rerecord_hash(package_copy, "data/scores.csv")
    git("add", "-A")
    git("commit", "-qm", "pull request")
    monkeypatch.chdir(package_copy)
    status, out, _ = run("contribute", "report", "--changed", "HEAD~1..HEAD", "--markdown")
    assert status == 1 and "ready to merge" not in out
    assert out.index("Needs a maintainer") < out.index("- `data/scores.csv`")
    assert "- `datapackage.json`" in out
    # The privileged review shows the edited row itself, old -> new.
    status, out, _ = run("contribute", "review", "--base", "HEAD~1", "--head", "HEAD")
    assert status == 1 and "Verdict: needs a maintainer" in out
    assert f"`line {text.split(chr(10)).index(old) + 1}: {old} -> {new}`" in out
