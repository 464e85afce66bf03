"""Validation's text checks run over whole columns (issue 33 item 5: ``verify`` fast): they must flag exactly the
cells the per-text functions flag, which the contribution path and the messages use."""

from __future__ import annotations

import sys
import unicodedata

import pandas as pd

from atari5_spec.data.limits import _BIDI_CONTROLS, FORBIDDEN_CHARACTER, control_character_problem
from atari5_spec.data.validation import clean_text, inert_text, spreadsheet_formula

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
