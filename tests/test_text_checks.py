"""Validation's text checks run over whole columns (issue 33 item 5: ``verify`` fast): they must flag exactly the
cells the per-text functions flag, which the contribution path and the messages use."""

from __future__ import annotations

import sys
import unicodedata

import pandas as pd

from atari5_spec.data.limits import _BIDI_CONTROLS, FORBIDDEN_CHARACTER, control_character_problem
from atari5_spec.data.rawvalues import raw_value_number
from atari5_spec.data.validation import clean_text, inert_text, raw_value_agrees, spreadsheet_formula

TRICKY = ["Alien", "", " ", "a\x1bb", "tab\there", "line\nbreak", "cr\r", "\x7f", "\x85next", "\x9f", "\xa0nbsp",
          "rtl\u202eevil", "\u2066isolate", "\u061c", "\u200emark", "ñandú", "Q*bert", "=SUM(A1)", "  =1+1",
          "+cmd", "-A1", "@x", "-12.5", "-1.2 ± 0.3", "+3", "-1e3", "\t+3", " -1.2 ± x", "x=1", "10-20"]


def test_the_character_class_is_exactly_the_control_and_bidirectional_characters():
    disagree = [hex(c) for c in range(sys.maxunicode + 1)
                if (unicodedata.category(chr(c)) == "Cc" or chr(c) in _BIDI_CONTROLS)
                != bool(FORBIDDEN_CHARACTER.fullmatch(chr(c)))]
    assert disagree == []


def test_the_column_checks_flag_exactly_the_cells_the_text_functions_flag():
    values = pd.Series(TRICKY + [None], dtype="string")
    clean = clean_text(values)
    inert = inert_text(values)
    assert clean.tolist() == [v is None or control_character_problem(v) is None for v in TRICKY + [None]]
    assert inert.tolist() == [v is None or not spreadsheet_formula(v) for v in TRICKY + [None]]
    assert not clean.all() and not inert.all()  # the examples do hold bad cells of both kinds


def test_control_character_problem_names_the_first_bad_character_and_allows_line_breaks_in_notes():
    assert control_character_problem("ok\u202ex\x1b") == "contains the bidirectional control U+202E at position 3"
    assert control_character_problem("a\nb") == "contains the control character U+000A at position 2 (a line break)"
    assert control_character_problem("a\nb\tc", line_breaks=True) is None
    assert control_character_problem("a\nb\rc", line_breaks=True) == ("contains the control character U+000D at "
                                                                        "position 4 (a line break)")


RAW = ["12", " 12 ", "12.0", "1.5k", "2k", "-0", "+.5", "5.", "1e3", "1E+400", "1_000", "12 ± 3", "12 (± 3)", "12+-3",
       "12 ± x", "", "nan", "inf", "١٢", "0x10", "12\u00a0", "3" * 101, "1.10000000000000008881784197001"]


def plain_raw_value_agrees(frame: pd.DataFrame, with_std: bool) -> list[bool]:
    """The definition, cell by cell, that validation's column-wise raw_value rule must equal."""
    out = []
    for text, score, std in zip(frame.raw_value, frame.score, frame["std"] if with_std else [None] * len(frame)):
        found = raw_value_number(str(text))
        out.append(found is not None and found[0] == score and (not with_std or found[1] is None or found[1] == std))
    return out


def test_the_raw_value_rule_flags_exactly_the_cells_raw_value_number_flags(dataset):
    tricky = pd.DataFrame({"raw_value": pd.array(RAW + [None], dtype="string"),
                           "score": [12, 12, 12, 1500, 2000, 0, 0.5, 5, 1000, float("inf"), 1000, 12, 12, 12, 12, 0,
                                     float("nan"), float("inf"), 12, 16, 12, 3, 1.1, 0],
                           "std": [None] * 11 + [3, 4, 3] + [None] * 10})
    for frame, with_std in [(tricky, True), (tricky, False), (dataset.scores, True), (dataset.seed_scores, False),
                            (dataset.budget_scores, False)]:
        assert raw_value_agrees(frame, with_std).tolist() == plain_raw_value_agrees(frame, with_std)
    assert raw_value_agrees(tricky, True).tolist()[:3] == [True, True, True]
    assert not raw_value_agrees(tricky, True).all()


def test_the_column_checks_flag_a_bad_cell_among_many_good_ones_and_a_cell_holding_the_join_character():
    good = ["plain text"] * 1000
    for bad in ["a\x1bb", "=SUM(A1)", " @x", "x\ue000\x1b"]:
        values = pd.Series(good + [bad, None, "\ue000"], dtype="string")
        expected_clean = [v is None or control_character_problem(v) is None for v in good + [bad, None, "\ue000"]]
        expected_inert = [v is None or not spreadsheet_formula(v) for v in good + [bad, None, "\ue000"]]
        assert clean_text(values).tolist() == expected_clean and inert_text(values).tolist() == expected_inert
        assert not (all(expected_clean) and all(expected_inert)), bad
