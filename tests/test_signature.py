"""The citation signature: printed by ``score``, parsed back, checked field by field by ``signature check``."""

from __future__ import annotations

import re

import pytest
from scoring_support import write_csv

import atari5_spec
from atari5_spec.data.errors import InputError
from atari5_spec.method.pinned import load_coefficient_set
from atari5_spec.scoring.estimate import score
from atari5_spec.scoring.signature import Signature, data_package_version, parse_signature
from atari5_spec.scoring.signature_check import ABSENT, DIFFERS, MATCHES, UNCHECKED, check_signature

OLD_FORMAT = "Atari-5|coef:paper-2023@071b0e4b|norm:agent57-human|phi:log10p1|seeds:3,3,3,3,3|boot:10000,seed=0,ci=95|v:0.1.0"
# Three seeds per Atari-5 game: the estimate, a seed interval and a prediction interval.
RUNS = {"battle_zone": [30000, 32000, 31000], "double_dunk": [-1, -2, 0], "name_this_game": [12000, 11000, 13000],
        "phoenix": [8000, 9000, 7000], "qbert": [15000, 16000, 14000]}


@pytest.fixture()
def scores_csv(tmp_path):
    lines = [f"{game},{value},{seed}" for game, values in RUNS.items() for seed, value in enumerate(values, 1)]
    return write_csv(tmp_path / "runs.csv", "game,score,seed", lines)


@pytest.fixture()
def pasted_line(run, scores_csv):
    """The line `score` asks to paste, exactly as printed."""
    status, out, _ = run("score", str(scores_csv))
    assert status == 0
    lines = out.splitlines()
    return lines[lines.index(next(l for l in lines if l.startswith("Paste this line"))) + 1].strip()


def test_the_api_returns_the_signature_parsed():
    result = score(RUNS)
    coefficients = load_coefficient_set()
    parsed = result.parsed_signature
    assert isinstance(parsed, Signature) and str(parsed) == result.signature
    assert (parsed.subset, parsed.kind) == ("Atari-5", "score")
    assert (parsed.coefficients, parsed.coefficients_digest) == (coefficients.version, coefficients.digest)
    assert f"{parsed.calibration}@{parsed.calibration_digest}" == result.prediction_interval.calibration
    assert parsed.seeds == (3, 3, 3, 3, 3)
    assert (parsed.boot.n_resamples, parsed.boot.seed, parsed.boot.ci_percent) == (10000, 0, 95.0)
    assert parsed.data_version == data_package_version()
    assert parsed.code_version == atari5_spec.__version__
    single = score({g: v[0] for g, v in RUNS.items()}).parsed_signature
    assert single.seeds is None and single.boot is None and single.calibration is not None


def _statuses(check) -> dict[str, str]:
    return {c.field: c.status for c in check.fields + check.results}


def test_pasted_score_line_matches(run, pasted_line, scores_csv):
    check = check_signature(pasted_line, scores=_observations(scores_csv))
    assert check.matches and check.unchecked == ()
    assert [(c.field, c.status) for c in check.results] == [("score", MATCHES), ("prediction interval", MATCHES)]
    status, out, err = run("signature", "check", pasted_line, "--scores", str(scores_csv))
    assert status == 0, out + err
    # the signature alone matches too (no number to compare)
    alone = pasted_line.split("[")[1].rstrip("]")
    assert check_signature(alone).matches and check_signature(alone).results == ()
    assert run("signature", "check", alone)[0] == 0


def test_the_verdicts_as_printed(run, pasted_line, scores_csv):
    # each sentence `signature check` ends with, once: matched, one field differs, the number not checked
    verdicts = [run("signature", "check", line, *extra)[1].splitlines()[-1] for line, extra in
                [(pasted_line, ["--scores", str(scores_csv)]),
                 (pasted_line.replace("phi:log10p1", "phi:log10", 1), ["--scores", str(scores_csv)]),
                 (_wrong_number(pasted_line), [])]]
    assert verdicts[0] == "matches: this install reproduces what the signature pins"
    assert verdicts[1] == "does not match: phi differs"
    assert verdicts[2].startswith("the signature's fields match this install; number not checked: ")
    status, _, err = run("signature", "check", pasted_line.replace("phi:log10p1", "phi:log10", 1))
    assert status == 1 and err.startswith("error: the signature does not match this install: phi")


FIELD_CHANGES = {
    "subset": ("[Atari-5|", "[Atari-3|"),
    "coef": ("coef:paper-2023@071b0e4b", "coef:paper-2023@071b0e4c"),
    "cal": ("|cal:", "|cal:other-"),
    "norm": ("norm:agent57-human", "norm:custom-0123abcd"),
    "phi": ("phi:log10p1", "phi:log10"),
    "seeds": ("seeds:3,3,3,3,3", "seeds:3,3,3,3,2"),
    # boot: is checked through the interval it produced, at the printed precision: 50 resamples move it
    "boot": ("boot:10000,", "boot:50,"),
    "data": ("|data:", "|data:0."),
    "v": ("|v:", "|v:9."),
}


@pytest.mark.parametrize("field", sorted(FIELD_CHANGES))
def test_changing_one_field_is_detected_and_named(run, pasted_line, scores_csv, field):
    old, new = FIELD_CHANGES[field]
    assert old in pasted_line
    altered = pasted_line.replace(old, new, 1)
    check = check_signature(altered, scores=_observations(scores_csv))
    assert field in check.differing, check
    status, out, err = run("signature", "check", altered, "--scores", str(scores_csv))
    assert status == 1 and field in out.splitlines()[-1] and "Traceback" not in err


def test_a_changed_number_or_interval_is_detected(run, pasted_line, scores_csv):
    number = re.search(r"score ([\d,.]+)", pasted_line).group(1)
    bumped = f"{float(number.replace(',', '')) + 0.1:,.1f}"
    runs = _observations(scores_csv)
    assert check_signature(pasted_line.replace(f"score {number}", f"score {bumped}"), scores=runs).differing == ("score",)
    low = re.search(r"interval ([\d,.]+) to", pasted_line).group(1)
    changed = pasted_line.replace(f"interval {low} ", "interval 1.0 ")
    # boot: is judged through the interval it produced, so it differs with it
    assert check_signature(changed, scores=runs).differing == ("boot", "prediction interval")
    assert run("signature", "check", changed, "--scores", str(scores_csv))[0] == 1


def test_an_old_format_signature_is_read():
    parsed = parse_signature(OLD_FORMAT)
    assert parsed.format == "0.1" and str(parsed) == OLD_FORMAT
    assert parsed.calibration is None and parsed.data_version is None and parsed.code_version == "0.1.0"
    check = check_signature(OLD_FORMAT, scores=_observations_from(RUNS))
    status = {c.field: c.status for c in check.fields}
    assert status["cal"] == status["data"] == ABSENT
    assert status["coef"] == status["norm"] == status["phi"] == status["seeds"] == MATCHES
    assert check.differing == (() if atari5_spec.__version__ == "0.1.0" else ("v",))
    # the 0.1.0 paste line, with its ", calibration ..." inside the parentheses, is read too
    line = f"Atari-5 score 109.7 (95% prediction interval 65.6 to 182.1, calibration paper-2023@9ca22b6e)  [{OLD_FORMAT}]"
    assert check_signature(line).reported.number == "109.7"


@pytest.mark.parametrize("text", ["", "Atari-5", "Atari-5|coef:paper-2023|norm:x|phi:log10p1|v:1",
                                  "Atari-5|coef:paper-2023@071b0e4b|norm:x|phi:log10p1|v:1|zz:3",
                                  "Atari-5|v:1|coef:paper-2023@071b0e4b|norm:x|phi:log10p1",
                                  "Atari-5 score 12 (95% interval) [Atari-5|",
                                  "Atari-5|coef:../../etc@071b0e4b|norm:x|phi:log10p1|v:1",
                                  "Atari-5|coef:paper-2023@071b0e4b|norm:\x1b[31m|phi:log10p1|v:1",
                                  "Atari-5|" + "x" * 5000])
def test_malformed_signatures_are_one_line_errors(run, text):
    with pytest.raises(InputError):
        check_signature(text)
    status, out, err = run("signature", "check", text)
    assert status == 1 and err.startswith("error: ") and len(err.strip().splitlines()) == 1


def _observations_from(runs):
    return {g: list(v) for g, v in runs.items()}


def _observations(path):
    from atari5_spec.scoring.input import read_scores_file

    return read_scores_file(str(path))


def test_an_unknown_version_or_subset_is_named_not_a_traceback(run, scores_csv):
    text = f"Atari-7|coef:future-2027@abcdef12|norm:agent57-human|phi:log10p1|data:{data_package_version()}|v:{atari5_spec.__version__}"
    check = check_signature(text, scores=_observations(scores_csv))
    assert check.differing == ("subset", "coef") and _statuses(check)["score"] == UNCHECKED
    status, out, err = run("signature", "check", text, "--scores", str(scores_csv))
    assert status == 1 and "Traceback" not in err and out.splitlines()[-1].endswith("subset, coef differ")


def test_a_line_printed_by_0_1_0_is_recomputed_with_the_calibration_it_names(run, scores_csv):
    """0.1.0 printed the calibration beside the interval; the check recomputes with that (pooled) calibration,
    not with this install's default one, and finds the same number and interval (only v: differs)."""
    from atari5_spec.method.calibration import read_calibration

    coefficients = load_coefficient_set("paper-2023")
    pooled = read_calibration(coefficients.path, "pooled")
    result = score(RUNS, coefficients="paper-2023")
    from atari5_spec.scoring.estimate import _prediction_interval

    pi = _prediction_interval(coefficients.subsets["Atari-5"], {g: tuple(v) for g, v in RUNS.items()},
                              result.estimate, result.interval, pooled, 0.95)
    line = (f"Atari-5 score {result.estimate:,.1f} (95% prediction interval {pi.low:,.1f} to {pi.high:,.1f}, "
            f"calibration paper-2023@{pooled.digest})  [{OLD_FORMAT}]")
    check = check_signature(line, scores=_observations(scores_csv))
    assert _statuses(check)["score"] == _statuses(check)["prediction interval"] == MATCHES
    assert check.differing == (() if atari5_spec.__version__ == "0.1.0" else ("v",))
    status, out, _ = run("signature", "check", line, "--scores", str(scores_csv))
    assert status == (0 if atari5_spec.__version__ == "0.1.0" else 1)


def test_every_signature_the_package_prints_parses_back_to_itself():
    from atari5_spec.scoring.prediction import predict
    from atari5_spec.scoring.ranking import leaderboard
    from atari5_spec.scoring.relative import relative_score

    baseline = {g: [v * 0.8 for v in values] for g, values in RUNS.items()}
    printed = [score(RUNS).signature, predict({g: v[0] for g, v in RUNS.items()}).signature,
               leaderboard().signature, relative_score(RUNS, baseline).signature]
    parsed = [parse_signature(text) for text in printed]
    assert [str(p) for p in parsed] == printed
    assert [p.kind for p in parsed] == ["score", "per-game", "score", "ratio"]
    assert parsed[3].calibration is not None  # the ratio's prediction interval names its calibration


# --- issue 25: an unchecked number must not read as checked -------------------------------------------------------

def _wrong_number(line: str) -> str:
    """The pasted line with its score changed by 10 (the attacker's edit of a paper's line)."""
    label, _, rest = line.partition(" score ")
    number = rest.split(" ", 1)[0]
    changed = f"{float(number.replace(',', '')) + 10:.{len(number.partition('.')[2])}f}"
    return f"{label} score {changed} {rest.split(' ', 1)[1]}"


def test_a_pasted_number_without_scores_is_said_not_checked(run, pasted_line, scores_csv):
    edited = _wrong_number(pasted_line)
    unchecked = check_signature(edited)
    assert unchecked.matches and unchecked.unchecked == ("score", "prediction interval")
    assert run("signature", "check", edited)[0] == 0  # the fields do match: only the number is unknown
    assert _statuses(check_signature(edited, scores=_observations(scores_csv)))["score"] == DIFFERS
    assert run("signature", "check", edited, "--scores", str(scores_csv))[0] == 1


def test_signature_check_json_is_json_on_bad_input_too(run, pasted_line, tmp_path):
    import json

    for arguments in (["not a signature [x]"], [pasted_line, "--scores", str(tmp_path / "missing.csv")]):
        status, out, err = run("signature", "check", *arguments, "--json")
        parsed = json.loads(out)
        assert status == 1 and parsed["matches"] is False and parsed["error"], (out, err)
    status, out, _ = run("signature", "check", _wrong_number(pasted_line), "--json")
    parsed = json.loads(out)
    assert status == 0 and parsed["unchecked"] == list(check_signature(_wrong_number(pasted_line)).unchecked)
    assert parsed["verdict"] and parsed["matches"] is True
