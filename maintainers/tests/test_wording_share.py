"""Tests pin numbers, not prose: the share of assertions that hold an English sentence may only fall."""

import ast
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# measured 19.0% (464 of 2,444) when this check was added; 18.4% (467 of 2,543) on 2026-12-04, when the ceiling
# came down to it. Issue 44's target is at most ~12%. Lower this when the share falls; never raise it.
CEILING = 0.185


def _script():
    spec = importlib.util.spec_from_file_location("wording_share", ROOT / "scripts" / "wording_share.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_share_of_assertions_pinning_wording_does_not_grow():
    wording, total = _script().wording_share(_script().assertion_counts(ROOT))
    assert total > 2000 and wording / total <= CEILING, (wording, total)


def test_the_count_tells_a_sentence_from_a_number_or_an_id():
    pins = _script().pins_wording
    cases = {'assert out == "ready to merge"': True, 'assert "the file, line 4" in message': True,
             'assert result.estimate == 116.9': False, 'assert ids == ["dreamerv3", "muzero"]': False,
             'assert path == "data/scores.csv"': False, 'assert x, "a message after the comma"': False}
    assert {code: pins(ast.parse(code).body[0]) for code in cases} == cases
