"""The README's table of results after 2022 is generated from the data (scripts/update_readme_results.py)."""

from pathlib import Path

import pytest

from atari5_spec_research.analyses.contributed_results import README_BLOCK, contributed_results, results_markdown
from atari5_spec.data.datapackage import package_root
from atari5_spec.method.calibration import read_calibration

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture(scope="module")
def results(dataset):
    return contributed_results(dataset, "paper-2023")


def test_the_readme_table_is_what_the_data_gives(results):
    text = README.read_text(encoding="utf-8")
    block = text.split(f"<!-- {README_BLOCK}:start -->\n")[1].split(f"<!-- {README_BLOCK}:end -->")[0]
    assert block == results_markdown(results)


def test_the_new_entries_are_in_it(results):
    ids = {r.algorithm_id for r in results}
    assert {"bbf", "bbf-sticky", "bbf-rr2", "bbf-rr2-sticky", "slm-lab-ppo", "slm-lab-a2c", "slm-lab-sac",
            "chainerrl-rainbow", "chainerrl-iqn", "dreamerv3", "ppo2-baselines"} <= ids
    assert "dreamerv3-atari100k" not in ids  # 26 games: no 57-game median


def test_it_agrees_with_the_pinned_out_of_sample_errors_where_they_exist(results):
    calibration = read_calibration(package_root() / "coefficients" / "paper-2023")
    pinned = {r["agent"]: r for r in calibration.rows if r["subset"] == "Atari-5"}
    checked = 0
    for row in results:
        if row.algorithm_id in pinned:
            p = pinned[row.algorithm_id]
            assert row.true_median == pytest.approx(float(p["true_median"]), rel=1e-9)
            assert row.estimate == pytest.approx(float(p["estimate"]), rel=1e-9)
            assert row.ratio == pytest.approx(float(p["ratio"]), rel=1e-9)
            checked += 1
    # The pinned calibration holds every result after 2022, except the twelve imported after it was pinned (issue 46
    # item 1, data 1.98.0-1.109.0: the upstream-2028 release), which a re-pin, a new edition, takes in; until then
    # scripts/measure_release_2028.py measures them against the pinned interval (11 of 12 held).
    not_yet_pinned = {"nnabla-rl-c51", "pfrl-iqn", "pfrl-rainbow", "ppo-cleanrl-envpool-machado-200m",
                      "ppo-cleanrl-envpool-machado-40m", "rldb-impala-deep-multitask", "rldb-impala-shallow",
                      "rldb-noisynet-a3c", "rldb-noisynet-dqn", "rldb-noisynet-paper-a3c", "rldb-noisynet-paper-dqn",
                      "rldb-noisynet-paper-dudqn"}
    unpinned = {r.algorithm_id for r in results if r.algorithm_id not in pinned}
    assert results and unpinned == not_yet_pinned and checked == len(results) - len(not_yet_pinned)
