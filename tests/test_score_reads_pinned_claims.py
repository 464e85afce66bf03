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
    import sys

    def refuse(*args, **kwargs):
        raise AssertionError("a pinning-time builder ran during score")

    argv = ["score", *FIVE, "--bootstrap", "200", *extra]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0  # first unpatched: every module the command needs is imported by now
    builders = {id(getattr(importlib.import_module(module), name)) for module, names in BUILDERS.items()
                for name in names}
    # Every binding of a builder in every loaded module of the package (a `from ... import` copies the name), so
    # nothing escapes the check and nothing patched outlives the test.
    for module in [m for name, m in sorted(sys.modules.items()) if name.startswith("atari5_spec") and m]:
        for attribute, value in list(vars(module).items()):
            if id(value) in builders:
                monkeypatch.setattr(module, attribute, refuse)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(argv) == 0
    assert out.getvalue()
