"""``atari5-spec report`` and ``atari5-spec irt``: real pictures, one self-contained HTML page."""

from __future__ import annotations

import base64
import contextlib
import io
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from atari5_spec import cli
from atari5_spec_research.analyses import report
from atari5_spec_research.analyses.report import figures
from atari5_spec_research.analyses.report import page as report_page
from atari5_spec.data.errors import InputError

# Every test here draws on the full analyses (several seconds to set up): the full run only.
pytestmark = pytest.mark.slow

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def analyses(dataset):
    return report.analyse(dataset)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Run the command once (it is the slow part); return the paths it says it wrote, and the directory."""
    out = tmp_path_factory.mktemp("report")
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert cli.main(["report", "--out", str(out)]) == 0
    said = re.findall(r"^wrote (.+)$", stdout.getvalue(), flags=re.MULTILINE)
    return [Path(p) for p in said], out


@pytest.mark.slow
def test_report_writes_every_file_it_names(written):
    paths, out = written
    names = {p.name for p in paths}
    assert names == set(report.FIGURE_FILES.values()) | {report.HTML_FILE}
    for path in paths:
        assert path.exists() and path.parent == out and path.stat().st_size > 0


@pytest.mark.slow
def test_every_png_is_a_real_plot(written):
    import matplotlib.image

    for path in written[0]:
        if path.suffix != ".png":
            continue
        image = matplotlib.image.imread(path)
        height, width = image.shape[:2]
        assert height > 100 and width > 100, path.name
        rgb = np.round(255 * image[..., :3]).astype(np.int64).reshape(-1, 3)
        colours = np.unique(rgb[:, 0] << 16 | rgb[:, 1] << 8 | rgb[:, 2])
        assert len(colours) > 10, f"{path.name} is (nearly) a single colour"


def test_html_is_self_contained_and_embeds_every_picture(written):
    paths, out = written
    page = (out / report.HTML_FILE).read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page
    # Nothing to load: every src/href is an embedded data URI.
    for reference in re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", page):
        assert reference.startswith("data:image/png;base64,"), reference[:60]
    assert "<script" not in page and "@import" not in page and "url(" not in page
    embedded = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", page)
    pngs = [p for p in paths if p.suffix == ".png"]
    assert len(embedded) == len(pngs)
    assert {base64.b64decode(e) for e in embedded} == {p.read_bytes() for p in pngs}


def test_html_holds_the_tables(written):
    page = (written[1] / report.HTML_FILE).read_text(encoding="utf-8")
    for text in ("single_game_r2_zaxxon", "atari5_per_game_variance_explained_percent", "Welch",
                 "paper_difficulty", "difficulty_se", "Spearman", "Table 8", "optimality_gap_percent",
                 "out-of-fold", "not positive semi-definite", "consistent with truncation"):
        assert text in page, text
    assert "seed 003" not in page and "seed003" not in page


@pytest.mark.slow
def test_tables_use_display_names_and_percent(analyses, written):
    page = (written[1] / report.HTML_FILE).read_text(encoding="utf-8")
    cells = re.findall(r"<td>([^<]*)</td>", page)
    # Game and algorithm ids (battle_zone, agent57-style slugs with '-') never appear as table cells.
    assert "Name This Game" in cells and "Battle Zone" in cells and "Agent57" in cells
    assert not {"battle_zone", "name_this_game", "ms_pacman", "agent57"} & set(cells)
    fairness, _ = report_page._fairness_tables(analyses)
    assert fairness["mean_absolute_relative_error_percent"].between(1, 50).all()  # %, as the plot


@pytest.mark.slow
def test_out_of_fold_estimates_are_not_the_in_sample_ones(analyses):
    oof, in_sample = analyses.out_of_fold.set_index("algorithm_id"), analyses.fairness.algorithms
    in_sample = in_sample.set_index("algorithm_id")
    assert set(oof.index) == set(in_sample.index) and oof["fold"].nunique() == 10
    np.testing.assert_allclose(oof["median"], in_sample.loc[oof.index, "median"])
    assert not np.allclose(oof["estimate"], in_sample.loc[oof.index, "estimate"])
    # Out-of-fold error is the honest one: larger on average than in-sample.
    assert oof["rel_err"].abs().mean() > in_sample["abs_rel_err"].mean()
    # held-out agents (atari5-spec evaluate) are drawn beside them: never the training algorithms
    held = analyses.held_out
    assert len(held) and not set(held["algorithm_id"]) & set(oof.index)
    assert {"dreamerv3", "ppo-dreamerv3", "muzero-curves"} <= set(held["algorithm_id"])


def test_correlation_matrix_is_not_positive_semidefinite(analyses):
    assert analyses.smallest_eigenvalue < 0


@pytest.mark.slow
def test_every_axis_says_its_unit(analyses):
    for key, plot in figures._PLOTS.items():
        figure = plot(analyses)
        for axes in figure.axes:
            labels = [axes.get_xlabel(), axes.get_ylabel()]
            assert any(label for label in labels), key
            for label in labels:
                if label and not label.startswith(("tertile", "ability", "difficulty", "game")):
                    assert re.search(r"%|0-1|-1 to 1|probability|R\$\^2\$", label), (key, label)


def test_trivial_bars_are_marked(analyses):
    figure = figures.plot_per_game_r2(analyses)
    legend = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    assert any("by construction" in text for text in legend)
    hatched = [patch for patch in figure.axes[0].patches if patch.get_hatch()]
    assert len(hatched) == 5 + 10  # Atari-5's own games, and Atari-10's


@pytest.mark.slow
@pytest.mark.browser
def test_report_renders_in_headless_chromium(written, tmp_path):
    """The page opens in a real browser: Chromium's screenshot is a page with text and pictures, not blank."""
    import shutil
    import subprocess

    import matplotlib.image

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (Debian: apt-get install -y chromium; .ci/run installs it)")
    shot = tmp_path / "report.png"
    page = (written[1] / report.HTML_FILE).resolve()
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1280,6000", f"--screenshot={shot}", page.as_uri()],
                   check=True, capture_output=True, timeout=120)
    image = matplotlib.image.imread(shot)
    assert image.shape[:2] == (6000, 1280)
    rgb = np.round(255 * image[..., :3]).astype(np.int64).reshape(-1, 3)
    not_white = np.mean(rgb.sum(axis=1) < 3 * 240)
    colours = np.unique(rgb[:, 0] << 16 | rgb[:, 1] << 8 | rgb[:, 2])
    assert not_white > 0.05, f"only {not_white:.1%} of the screenshot is not white"
    assert len(colours) > 200  # text, plots and colour maps, not a blank or error page


@pytest.mark.slow
def test_pictures_are_deterministic(analyses):
    def png_bytes():
        buffer = io.BytesIO()
        figures.plot_fairness(analyses).savefig(buffer, format="png", metadata={"Software": None})
        return buffer.getvalue()

    assert png_bytes() == png_bytes()


def test_correlation_order_groups_categories(analyses):
    order = figures.correlation_order(analyses.correlations, analyses.games)
    assert sorted(order) == sorted(analyses.correlations.index)
    category = analyses.games.set_index("game_id")["category"]
    runs = [category[g] for i, g in enumerate(order) if i == 0 or category[g] != category[order[i - 1]]]
    assert len(runs) == len(set(runs))  # each category is one contiguous block


def test_missing_matplotlib_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    with pytest.raises(InputError, match=r"pip install 'atari5-spec-research\[plot\]'"):
        report.require_matplotlib()


@pytest.mark.slow
def test_irt_command(capsys):
    assert cli.main(["irt", "--abilities"]) == 0
    out = capsys.readouterr().out
    assert "dropped (no variance after binarising): atlantis, krull, video_pinball" in out
    assert re.search(r"Spearman rank correlation of difficulty with the IRT paper.*: -?\d\.\d{3}", out)
    assert "seed 003" not in out
    number = r"(-?\d+\.\d{3}|-)"
    table = re.findall(rf"^([a-z_]+)\s+{number}\s+{number}\s+{number}\s+{number}\s+(\d\.\d\d)\s", out,
                       flags=re.MULTILINE)
    assert len(table) == 57 - 3 and "battle_zone" in [row[0] for row in table]
    located = [float(row[1]) for row in table if row[1] != "-"]
    assert located == sorted(located)  # easiest first, games without a difficulty last
    assert [row[1] for row in table[len(located):]] == ["-"] * (len(table) - len(located))
    assert re.search(r"^agent57\s+-?\d+\.\d{3}\s+\d\.\d{3}$", out, flags=re.MULTILINE)  # --abilities


@pytest.mark.slow
def test_irt_json(capsys):
    import json

    assert cli.main(["irt", "--json"]) == 0
    fit = json.loads(capsys.readouterr().out)
    games = {g["game_id"]: g for g in fit["games"]}
    assert len(games) == 54 and fit["estimation"] == "bayes-modal" and fit["warnings"] == []
    for game in games.values():
        assert 0 < game["discrimination"] < 10 and game["discrimination_se"] > 0
        assert 0 < game["success_rate"] < 1
        assert (game["difficulty"] is None) == (not game["discriminating"])
    assert games["double_dunk"]["difficulty"] is None and games["battle_zone"]["difficulty_se"] > 0


@pytest.mark.slow
def test_irt_unregularised_warns(capsys):
    assert cli.main(["irt", "--unregularised", "--quadrature", "21"]) == 0
    captured = capsys.readouterr()
    assert "maximum likelihood" in captured.out and "WARNING" in captured.out
    assert captured.err.startswith("warning:") and "separate" in captured.err


def test_irt_rejects_too_few_nodes(capsys):
    assert cli.main(["irt", "--quadrature", "2"]) == 1
    assert "--quadrature 2" in capsys.readouterr().err
