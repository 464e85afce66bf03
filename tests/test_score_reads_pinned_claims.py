"""Issue 44 item 2: `atari5-spec score` reads the pinned interval table's row and formats it; no quantile,
Clopper-Pearson, beta or pair measurement runs when a user scores an agent (they run at pinning time)."""

import contextlib
import io

import pytest

from atari5_spec.cli.main import main

FIVE = ["--score", "battle_zone=35000,36000,34000", "--score", "double_dunk=-1.5,-2,-1", "--score",
        "name_this_game=12000,11000,13000", "--score", "phoenix=9000,8000,9500", "--score", "qbert=15000,14000,16000"]
BUILDERS = {"atari5_spec.method.claims": ["clopper_pearson", "conformal_quantile", "pool_quantiles", "claim_details",
                                          "evidence"],
            "atari5_spec.method.reference": ["conformal_quantile"],
            "atari5_spec.method.distributions": ["t_quantile", "beta_quantile", "regularised_beta"],
            "atari5_spec.method.pairs": ["pair_agents", "same_setup_model", "two_paper_evidence",
                                         "same_setup_evidence", "t_two_sided"]}


@pytest.mark.parametrize("extra", [[], ["--explain"], ["--relative-to", "rainbow-noop", "--explain"],
                                   ["--relative-to", "rainbow-noop", "--same-setup", "--explain"],
                                   ["--sticky-actions", "0.25", "--explain", "--json"]])
def test_score_runs_no_quantile_or_interval_builder(monkeypatch, extra):
    import importlib

    def refuse(*args, **kwargs):
        raise AssertionError("a pinning-time builder ran during score")

    for module, names in BUILDERS.items():
        loaded = importlib.import_module(module)
        for name in names:
            monkeypatch.setattr(loaded, name, refuse)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(["score", *FIVE, "--bootstrap", "200", *extra]) == 0
    assert out.getvalue()
