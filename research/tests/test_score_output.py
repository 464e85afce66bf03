"""``atari5-spec score`` answers first (issue 32): a few lines by default, every figure under --explain,
paper-ready Markdown and LaTeX for score, leaderboard and aggregate, and the number alone with --score-only."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import atari5_spec
from atari5_spec.cli.score_output import POPULATION, WIDTH, number
from atari5_spec.cli.tables import Table, as_latex, as_markdown
from atari5_spec.scoring.signature import data_package_version
from atari5_spec.scoring.signature_check import MATCHES, check_signature

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "score_output_1_2_0"
RUNS_57 = FIXTURES / "ppo_dreamerv3_runs.csv"
README_FIVE = ["--score", "battle_zone=35000", "--score", "double_dunk=-1.5", "--score", "name_this_game=12000",
               "--score", "phoenix=9000", "--score", "qbert=15000"]
README_FIVE_SCORES = {"battle_zone": 35000, "double_dunk": -1.5, "name_this_game": 12000, "phoenix": 9000,
                      "qbert": 15000}


def _numbers(text: str) -> set[str]:
    """Every number written in ``text`` ('35,000.00', '94.4', '1.2.0'; '305685f5' gives 305685 and 5; the seeds
    list '5,5,5' gives 5)."""
    return set(re.findall(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)*", text))


def _paste_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if "[" in line and "|coef:" in line and line.startswith("  ")]


# --- the answer first ------------------------------------------------------------------------------------------

def test_the_readmes_five_games_give_the_answer_in_at_most_8_lines(run):
    status, out, _ = run("score", *README_FIVE)
    lines = out.rstrip("\n").split("\n")
    assert status == 0 and len(lines) <= 8, out
    assert lines[0].startswith("Atari-5 score: 116.9 ")
    pi = atari5_spec.score(README_FIVE_SCORES).prediction_interval  # the default calibration's interval
    interval = f"{number(pi.low)} to {number(pi.high)}"
    assert lines[1] == f"95% prediction interval: {interval} (where the agent's 57-game median lies)"
    assert lines[2].startswith("evidence: ")
    paste = _paste_lines(out)
    assert len(paste) == 1 and paste[0].startswith(f"  Atari-5 score 116.9 (95% prediction interval {interval})  [")
    assert f"|cal:{pi.calibration}|" in paste[0]
    assert all(len(line) <= WIDTH for line in lines if line not in paste), [l for l in lines if len(l) > WIDTH]
    assert out.count("|coef:") == 1  # the signature once


def test_the_evidence_line_is_the_pinned_interval_tables_numbers(run):
    result = atari5_spec.score({"battle_zone": 35000, "double_dunk": -1.5, "name_this_game": 12000,
                                "phoenix": 9000, "qbert": 15000})
    row = result.prediction_interval.row
    _, out, _ = run("score", *README_FIVE)
    runs = f"; {row.runs_covered} of {row.runs} runs" if row.runs and "pairs" not in row.population else ""
    assert (f"evidence: {row.agents_covered} of {row.agents} {POPULATION.get(row.population, row.population)} held "
            f"({row.agents_covered / row.agents:.1%}{runs}), {row.papers} papers, {row.sources} sources") in out


def test_a_57_game_file_answers_in_8_lines_with_the_agents_own_median(run):
    status, out, _ = run("score", str(RUNS_57))
    lines = out.rstrip("\n").split("\n")
    assert status == 0 and len(lines) <= 8, out
    result = atari5_spec.score(str(RUNS_57))
    assert f"your agent's own 57-game median: {result.own_median.median:,.1f}" in out
    assert all(len(line) <= WIDTH for line in lines if line not in _paste_lines(out))


# What depends on the calibration in a 1.2.0 output: 1.2.0 used paper-2023.reselected, the default since data
# 1.80.0 is paper-2023.formula.2 (docs/out-of-sample.md), so these figures are checked against the calibration the
# fixture's own signatures name, not against today's default.
_CALIBRATION_FIGURES = [re.compile(r"prediction interval.*?[0-9][0-9.,]* to [0-9][0-9.,]*"),  # interval bounds
                        re.compile(r"cal:[^|\]]*"),                                          # calibration@hash
                        re.compile(r"^ *(calibrated on|measured coverage:).*$", re.M)]       # its evidence


def _without_calibration_figures(text: str) -> str:
    for pattern in _CALIBRATION_FIGURES:
        text = pattern.sub("", text)
    return text


@pytest.mark.parametrize("fixture, arguments, scores", [
    ("five_games.txt", README_FIVE, README_FIVE_SCORES),
    ("57_games.txt", [str(RUNS_57)], str(RUNS_57)),
    ("57_games_relative.txt", [str(RUNS_57), "--relative-to", "rainbow-noop"], str(RUNS_57)),
])
def test_explain_keeps_every_figure_that_1_2_0_printed(run, fixture, arguments, scores):
    """Every number of the 1.2.0 output (tests/fixtures/score_output_1_2_0) that does not depend on the calibration
    is in the --explain output; the data package version in the signatures is this package's (it moved on since).
    The calibration's figures: 1.2.0's paste line recomputes, with the calibration its signature names (still
    pinned), to the interval it printed; today's output prints the default calibration's interval."""
    before = (FIXTURES / fixture).read_text(encoding="utf-8").replace("data:1.41.0", f"data:{data_package_version()}")
    status, out, _ = run("score", *arguments, "--explain")
    assert status == 0
    missing = _numbers(_without_calibration_figures(before)) - _numbers(out)
    assert not missing, sorted(missing)
    assert len(before.splitlines()) > len(run("score", *arguments)[1].splitlines())
    (paste,) = _paste_lines(before)
    checked = {c.field: c for c in check_signature(paste.strip(), scores).results}
    assert checked["prediction interval"].status == MATCHES, checked["prediction interval"]
    assert checked["score"].status == MATCHES, checked["score"]
    pi = atari5_spec.score(scores).prediction_interval
    assert f"{number(pi.low)} to {number(pi.high)}" in out and f"cal:{pi.calibration}|" in out


def test_explain_prints_each_signature_once(run):
    _, out, _ = run("score", str(RUNS_57), "--relative-to", "rainbow-noop", "--explain")
    relative = atari5_spec.relative_score(str(RUNS_57), "rainbow-noop")
    signatures = re.findall(r"Atari-[0-9A-Za-z-]+(?: ratio)?\|coef:[^\]\s]+", out)
    assert len(signatures) == len(set(signatures)), signatures
    assert signatures.count(relative.agent.signature) == 1  # the agent's, in its paste line
    assert signatures.count(relative.signature) == 1  # the ratio's, in its paste line
    assert signatures.count(relative.baseline.signature) == 1  # the baseline's, with its provenance


def test_relative_to_puts_the_ratio_and_its_decision_first_with_its_own_paste_line(run):
    status, out, _ = run("score", str(RUNS_57), "--relative-to", "rainbow-noop")
    lines = out.splitlines()
    relative = atari5_spec.relative_score(str(RUNS_57), "rainbow-noop")
    pi = relative.prediction_interval
    assert status == 0 and lines[0].startswith(f"ratio to rainbow-noop: {relative.ratio:.3f}")
    assert lines[1].endswith(f"{pi.low:.3f} to {pi.high:.3f}") and lines[2].startswith("decision: ")
    paste = _paste_lines(out)
    assert paste[0].startswith(f"  Atari-5 ratio {relative.ratio:.3f} (95% prediction interval {pi.low:.3f} to "
                               f"{pi.high:.3f})  [{relative.signature}]")
    assert len(paste) == 2 and paste[1].startswith("  Atari-5 score ")


def test_a_subset_that_cannot_be_computed_says_so_first(run):
    status, out, err = run("score", *README_FIVE[:6])
    assert status == 1
    assert out.splitlines()[0] == "Atari-5 score: not computable: needs phoenix, qbert (not given)"
    assert "Atari-1 166.5" in out.splitlines()[1] and "error: Atari-5 needs phoenix, qbert" in err


def test_score_only_prints_the_number_alone(run):
    assert run("score", *README_FIVE, "--score-only")[1] == "116.9\n"
    relative = atari5_spec.relative_score(str(RUNS_57), "rainbow-noop")
    assert run("score", str(RUNS_57), "--relative-to", "rainbow-noop", "--score-only")[1] == f"{relative.ratio:.3f}\n"
    status, out, err = run("score", *README_FIVE, "--score-only", "--format", "latex")
    assert status == 1 and out == "" and "--score-only prints the number alone" in err


def test_format_json_is_the_json_output(run):
    assert run("score", *README_FIVE, "--format", "json")[1] == run("score", *README_FIVE, "--json")[1]
    data = json.loads(run("score", str(RUNS_57), "--format", "json")[1])
    assert data["own_median"]["label"] == "57-game median" and data["prediction_interval"]["row"]["agents"] > 0
    status, _, err = run("score", *README_FIVE, "--json", "--format", "markdown")
    assert status == 1 and "disagree" in err


# --- labels say what they measure ---------------------------------------------------------------------------------

def test_an_agents_own_median_over_44_games_is_not_called_a_57_game_median(run, tmp_path):
    rows = RUNS_57.read_text(encoding="utf-8").splitlines()
    games = sorted({line.split(",")[0] for line in rows[1:]})
    kept = set(games[:44]) | {"battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert"}
    path = tmp_path / "partial.csv"
    path.write_text("\n".join([rows[0]] + [r for r in rows[1:] if r.split(",")[0] in kept]) + "\n")
    result = atari5_spec.score(str(path))
    own = result.own_median
    assert own.n_games == len(kept) < 57 and own.label == f"median over {len(kept)} of the 57 games"
    assert own == atari5_spec.own_median(result)
    out = run("score", str(path), "--explain")[1]
    assert f"your agent's own median over {len(kept)} of the 57 games: {own.median:,.1f}" in out
    assert "own 57-game median" not in out


def test_relative_scores_to_frame(tmp_path):
    five = {"battle_zone": 35000, "double_dunk": -1.5, "name_this_game": 12000, "phoenix": 9000, "qbert": 15000}
    results = atari5_spec.relative_scores({"a": five, "b": {**five, "qbert": 30000}}, "rainbow-noop",
                                          n_bootstrap=0)
    frame = results.to_frame()
    assert list(frame.index) == ["a", "b"] and tuple(frame.columns) == results.COLUMNS
    for name, result in results.items():
        assert frame.loc[name, "ratio"] == result.ratio
        assert frame.loc[name, "low"] == result.prediction_interval.low
        assert frame.loc[name, "decision"] == result.prediction_interval.decision
        assert frame.loc[name, "signature"] == result.signature


# --- paper-ready tables --------------------------------------------------------------------------------------------

HOSTILE = Table(("Agent", "Score"), (("Q*bert | R2_D2 <b>", "-1.5"), ("DrQ(\u03b5) & 100% $x$ #1 ~{}\\ ^", "2,091.6")),
                "lr", "Caption with 95% & an_underscore", ("- a note that starts like a list item",), "tab:x")


def _markdown_table(text: str) -> list[list[str]]:
    """The cells of the one table in ``text`` as markdown-it-py (GFM tables) renders them."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    assert [t.type for t in tokens].count("table_open") == 1
    rows, row = [], None
    for token in tokens:
        if token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:
            row.append("".join(child.content for child in token.children if child.type in ("text", "text_special", "code_inline")))
        elif token.type == "tr_close":
            rows.append(row)
            row = None
    return rows


def test_markdown_tables_render_every_cell_as_written():
    assert _markdown_table(as_markdown(HOSTILE)) == [list(HOSTILE.columns)] + [list(r) for r in HOSTILE.rows]
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(as_markdown(HOSTILE))
    assert "<li>" not in html and "<b>" not in html and "&lt;b&gt;" in html


def _latex_cells(text: str) -> list[list[str]]:
    """The cells of the tabular in ``text``, parsed with pylatexenc and turned back into text."""
    pytest.importorskip("pylatexenc")
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
    from pylatexenc.latexwalker import LatexEnvironmentNode, LatexWalker

    nodes, _, _ = LatexWalker(text, tolerant_parsing=False).get_latex_nodes()
    tables = [n for n in nodes if isinstance(n, LatexEnvironmentNode)]
    assert [t.environmentname for t in tables] == ["table"]
    tabular = [n for n in tables[0].nodelist if isinstance(n, LatexEnvironmentNode)]
    assert [t.environmentname for t in tabular] == ["tabular"]
    body = text[text.index("\\hline") + len("\\hline"):text.rindex("\\hline")]
    rows = [r.strip() for r in body.replace("\\hline", "").split("\\tabularnewline") if r.strip()]
    context = get_default_latex_context_db()  # and the LaTeX kernel's text commands pylatexenc does not list
    context.add_context_category("kernel-text", prepend=True, macros=[
        MacroTextSpec("textbar", "|"), MacroTextSpec("textless", "<"), MacroTextSpec("textgreater", ">"),
        MacroTextSpec("allowbreak", ""), MacroTextSpec("textasciicircum", "^")])
    converter = LatexNodes2Text(math_mode="verbatim", latex_context=context)
    cells = []
    for row in rows:
        parts = re.split(r"(?<!\\)&", row)
        # a wrapped name starts with \\raggedright; a stacked header is a nested tabular: its lines joined by spaces
        parts = [p.replace("\\raggedright ", "") for p in parts]
        cells.append([" ".join(converter.latex_to_text(p).replace("$\\varepsilon$", "\u03b5").split()) for p in parts])
    return cells


def test_latex_tables_parse_and_give_back_every_cell():
    """Parsed with pylatexenc (no LaTeX engine is installed here); compiled with pdflatex where there is one."""
    cells = _latex_cells(as_latex(HOSTILE))
    assert cells == [list(HOSTILE.columns)] + [list(r) for r in HOSTILE.rows]


def _compiles(latex: str, tmp_path) -> None:
    engine = shutil.which("pdflatex")
    if engine is None:
        return  # no engine: the structure is checked with pylatexenc instead
    document = tmp_path / "table.tex"
    document.write_text("\\documentclass{article}\n\\begin{document}\n" + latex + "\n\\end{document}\n",
                        encoding="utf-8")
    done = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", document.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    log = (tmp_path / "table.log").read_text(encoding="latin-1")
    # fits the page of article: not wider than the text (issue 48: 273 pt too wide), no float taller than a page
    # (the 90-row leaderboard ran 630 pt off it)
    assert "Overfull \\hbox" not in log and "Float too large" not in log, log[-3000:]


@pytest.mark.parametrize("command", [
    ["score", *README_FIVE],
    ["score", str(RUNS_57), "--relative-to", "rainbow-noop"],
    ["leaderboard"],
    ["leaderboard", *README_FIVE],
    ["leaderboard", *README_FIVE, "--top", "10"],
])
def test_score_and_leaderboard_give_markdown_that_renders_and_latex_that_parses(run, command, tmp_path):
    status, markdown, _ = run(*command, "--format", "markdown")
    assert status == 0
    for block in re.split(r"\n\n(?=\*\*)", markdown):  # one table per block, each under its bold caption
        rows = _markdown_table(block)
        assert len(rows) >= 2 and len({len(r) for r in rows}) == 1
    status, latex, _ = run(*command, "--format", "latex")
    assert status == 0 and latex.count("\\begin{table}") == latex.count("\\end{table}") >= 1
    for table in re.findall(r"\\begin\{table\}.*?\\end\{table\}", latex, re.S):
        cells = _latex_cells(table)
        assert len({len(r) for r in cells}) == 1
    _compiles(latex, tmp_path)


def test_the_score_table_holds_the_results_numbers(run):
    result = atari5_spec.score({"battle_zone": 35000, "double_dunk": -1.5, "name_this_game": 12000,
                                "phoenix": 9000, "qbert": 15000})
    rows = _markdown_table(run("score", *README_FIVE, "--format", "markdown")[1])
    pi = result.prediction_interval
    assert rows[1][:3] == ["Atari-5", f"{result.estimate:,.1f}", f"{pi.low:,.1f} to {pi.high:,.1f}"]
    assert [r[0] for r in rows[2:]] == [s.subset for s in result.other_subsets]


def test_aggregate_gives_the_same_tables(run, tmp_path):
    runs = tmp_path / "runs.csv"
    runs.write_text("agent,game,seed,score\n" + "".join(
        f'"{agent}",{game},{seed},{100 + 37 * seed + 11 * i + 5 * a}\n'
        for a, agent in enumerate(("DrQ(\u03b5)", "R2_D2 | 100%")) for i, game in enumerate(("pong", "breakout", "qbert"))
        for seed in range(3)))
    data = json.loads(run("aggregate", str(runs), "--json", "--resamples", "50")[1])
    rows = _markdown_table(run("aggregate", str(runs), "--format", "markdown", "--resamples", "50")[1])
    assert [r[0] for r in rows[1:]] == ["DrQ(\u03b5)", "R2_D2 | 100%"]
    iqm = data["agents"]["DrQ(\u03b5)"]["iqm"]
    assert rows[1][2] == f"{iqm['estimate']:.3f} [{iqm['low']:.3f}, {iqm['high']:.3f}]"
    cells = _latex_cells(run("aggregate", str(runs), "--format", "latex", "--resamples", "50")[1])
    assert [r[0] for r in cells[1:]] == ["DrQ(\u03b5)", "R2_D2 | 100%"] and cells[1][2] == rows[1][2]


def test_a_ratio_not_computable_names_the_side_that_lacks_games(run):
    """`score --relative-to`: when the agent (or the baseline) lacks games of the subset, the ratio line says which
    side lacks which games (it once said "the baseline lacks" with nothing after it for an agent's gap)."""
    status, out, _ = run("score", "--score", "battle_zone=30000", "--score", "double_dunk=-5", "--score",
                         "name_this_game=8000", "--score", "qbert=10000", "--relative-to", "dqn-noop")
    assert status == 1 and out.splitlines()[0] == "ratio to dqn-noop: not computable: your agent lacks phoenix"
    status, out, _ = run("score", "--score", "battle_zone=30000", "--score", "double_dunk=-5", "--score",
                         "name_this_game=8000", "--score", "phoenix=8000", "--score", "qbert=10000",
                         "--relative-to", "bootstrapped-dqn-2016-ref-nature")
    assert status == 1
    assert out.splitlines()[0] == "ratio to bootstrapped-dqn-2016-ref-nature: not computable: the baseline lacks phoenix"


def test_leaderboard_top_keeps_the_leaders_the_count_and_your_rank(run):
    full = json.loads(run("leaderboard", *README_FIVE, "--json")[1])
    top = json.loads(run("leaderboard", *README_FIVE, "--json", "--top", "10")[1])
    assert top["rows"] == full["rows"][:10] and top["ranked"] == full["ranked"] == len(full["rows"]) > 10
    assert top["user"] == full["user"] and top["user"]["rank"] > 10
    rows = _markdown_table(run("leaderboard", *README_FIVE, "--top", "10", "--format", "markdown")[1])
    assert [r[0] for r in rows[1:]] == [str(i) for i in range(1, 11)] + [str(full["user"]["rank"])]
    with pytest.raises(SystemExit) as refused:  # argparse's usage error
        run("leaderboard", "--top", "0")
    assert refused.value.code == 2
