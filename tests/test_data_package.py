"""The data package: validity, tamper detection, and the paper's training table."""

import math
import re
import shutil
import subprocess
import sys

import pytest

from atari5_spec.cli import main
from atari5_spec.data.datapackage import package_root, read_descriptor, schema_of
from atari5_spec.data.loading import read_table
from atari5_spec.data.published import matches_printed, published_rows
from atari5_spec.data.writing import frame_csv_text
from atari5_spec.method import training

DATA_FILES = ["data/games.csv", "data/algorithms.csv", "data/scores.csv", "data/sources.csv"]


def frictionless_cli(root):
    exe = shutil.which("frictionless") or str(__import__("pathlib").Path(sys.executable).with_name("frictionless"))
    return subprocess.run([exe, "validate", "datapackage.json"], cwd=root, capture_output=True, text=True)


@pytest.mark.slow
def test_frictionless_cli_accepts_the_shipped_package():
    result = frictionless_cli(package_root())
    assert result.returncode == 0, result.stdout[-2000:]


@pytest.mark.slow
def test_atari5_spec_validate_accepts_the_shipped_package(capsys):
    assert main(["validate"]) == 0
    assert "valid" in capsys.readouterr().out


def change_one_digit(path):
    """Change the last digit of the first data line that has one (a real value change)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines[1:], start=1):
        match = re.search(r"\d(?=[^\d]*$)", line)
        if match:
            digit = line[match.start()]
            lines[i] = line[:match.start()] + str((int(digit) + 1) % 10) + line[match.start() + 1:]
            path.write_text("\n".join(lines), encoding="utf-8")
            return
    raise AssertionError(f"no digit in {path}")


@pytest.mark.slow
@pytest.mark.parametrize("relative", DATA_FILES)
def test_one_changed_digit_fails_both_validators_naming_the_file(package_copy, relative, capsys):
    change_one_digit(package_copy / relative)
    result = frictionless_cli(package_copy)
    assert result.returncode != 0
    assert relative.split("/")[-1] in result.stdout
    assert main(["validate", str(package_copy)]) == 1
    out = capsys.readouterr().out
    assert f"{relative}: " in out and "sha256" in out


def test_every_table_round_trips_byte_for_byte():
    """Numbers are written in a form that reads back exactly: write(read(file)) == file."""
    root = package_root()
    descriptor = read_descriptor(root)
    for resource in descriptor["resources"]:
        if not resource["path"].startswith("data/"):
            continue
        schema = schema_of(root, descriptor, resource["name"])
        frame = read_table(root / resource["path"], schema)
        text = frame_csv_text(frame, [f["name"] for f in schema["fields"]])
        assert text == (root / resource["path"]).read_text(encoding="utf-8"), resource["path"]


def test_rows_are_in_a_deterministic_order(dataset):
    # scores by score_id (contributions append new ids at the end); the import wrote
    # games and algorithms sorted by id, contributions append after them.
    assert dataset.scores.score_id.tolist() == sorted(dataset.scores.score_id)
    assert dataset.games.game_id.tolist() == sorted(dataset.games.game_id)
    imported = dataset.algorithms[dataset.algorithms.source_id.str.startswith("contrib-") == False]  # noqa: E712
    assert imported.algorithm_id.tolist() == sorted(imported.algorithm_id)


def test_inclusion_rule_selects_exactly_table_8(dataset):
    rows = training.training_rows(dataset, pool_only=True)
    summary = training.algorithm_summary(rows, dataset.games)
    table8 = {r["algorithm_id"]: r for r in published_rows("table08_algorithms")}
    assert set(summary.index) == set(table8)
    for algorithm_id, row in table8.items():
        assert summary.at[algorithm_id, "n_games"] == int(row["games"]), algorithm_id
        assert matches_printed(summary.at[algorithm_id, "median"], row["median"]), algorithm_id


def test_training_table_has_the_papers_3365_scores(dataset):
    rows = training.training_rows(dataset, pool_only=True)
    figures = {r["figure_id"]: r["value"] for r in published_rows("text_figures")}
    assert rows.algorithm_id.nunique() == int(figures["algorithms_retained"])
    # 3,365 is the row count of the training table the paper's authors published
    # with their code (not printed in the paper). It counts four numbers Papers with
    # Code lists twice (under two papers) for Prior+Duel hs; they are identical and
    # count once in every fit.
    assert len(rows) == 3365
    assert len(rows.drop_duplicates(["algorithm_id", "game_id"])) == 3361


def test_the_current_rule_on_the_upstream_tables_gives_the_same_training_table(dataset):
    # Every entry of the Atari-5 paper's upstream tables, not only its pool, under the
    # inclusion rule gives the paper's training table; contributed entries come on top.
    contributed = dataset.sources.loc[dataset.sources.kind == "contribution", "source_id"]
    upstream = dataset.algorithms[~dataset.algorithms.source_id.isin(contributed)]
    pool = training.training_rows(dataset, pool_only=True)
    everything = training.training_rows(dataset._replace(algorithms=upstream))
    assert pool.score_id.tolist() == everything.score_id.tolist()


def test_raw_pool_has_the_papers_116_algorithms(dataset):
    figures = {r["figure_id"]: r["value"] for r in published_rows("text_figures")}
    assert int(dataset.algorithms.in_paper_pool.sum()) == int(figures["algorithms_collected"])


def test_normalisation_constants_equal_table_12(dataset):
    games = dataset.games.set_index("game_id")
    table12 = published_rows("table12_normalisation")
    assert len(table12) == 57 == int(games.in_57.sum())
    for row in table12:
        assert games.at[row["game_id"], "random_score"] == float(row["random"]), row
        assert games.at[row["game_id"], "human_score"] == float(row["human"]), row
        assert games.at[row["game_id"], "in_57"]


def test_every_score_has_provenance_and_a_source(dataset):
    scores = dataset.scores
    assert scores.provenance.notna().all() and scores.source_id.notna().all()
    assert scores.source_id.isin(dataset.sources.source_id).all()
    # the provenance points at a file and a line (then, for a contribution taken from a
    # repository file, at repository@commit:path)
    assert scores.provenance.str.match(r"^[^:;]+:\d+").all()
    contributed = scores[scores.provenance.str.startswith("contributions/")]
    sources = dataset.sources.set_index("source_id")
    from_repository = contributed[sources.loc[contributed.source_id, "repository"].notna().to_numpy()]
    assert len(from_repository) and from_repository.provenance.str.contains(r"; [\w.-]+/[\w.-]+@[0-9a-f]{40}:").all()


def test_scores_are_finite_and_human_beats_random(dataset):
    assert dataset.scores.score.map(math.isfinite).all()
    games = dataset.games[dataset.games.in_57]
    assert (games.human_score > games.random_score).all()


README_TABLES = ["games", "algorithms", "scores", "seed_scores", "budget_scores", "sources"]


def test_the_data_page_documents_every_field_exactly_as_the_schemas_say():
    from pathlib import Path

    from atari5_spec.data.datapackage import fields_markdown

    page = (Path(__file__).resolve().parents[1] / "docs" / "data.md").read_text(encoding="utf-8")
    documented = page.split("<!-- fields:start -->\n")[1].split("<!-- fields:end -->")[0]
    assert documented == fields_markdown(package_root(), README_TABLES)


def test_the_data_page_states_how_many_training_entries_have_a_known_protocol(dataset):
    from pathlib import Path

    from atari5_spec.method import coefficients as coef

    manifest, _ = coef.read_version_tables(dataset.root / "coefficients", "paper-2023")
    trained = dataset.algorithms.set_index("algorithm_id").loc[manifest["training"]["algorithms"]]
    sticky, start = int(trained.sticky_action_probability.notna().sum()), int(trained.start_condition.notna().sum())
    readme = " ".join((Path(__file__).resolve().parents[1] / "docs" / "data.md").read_text(encoding="utf-8").split())
    assert (f"Of the paper's {len(trained)} training entries, {sticky} have a known sticky-action setting and "
            f"{start} a known start condition") in readme
    # every stated fact is cited
    stated = trained[["start_condition", "sticky_action_probability", "training_frames"]].notna().any(axis=1)
    assert trained.loc[stated, "protocol_note"].notna().all()


def test_contribution_protocol_keys_are_the_algorithm_protocol_columns_with_the_same_rules():
    # Two schemas describe the protocol: the algorithms Table Schema (data) and the contribution
    # metadata JSON Schema (what contributors write). They must say the same thing.
    import json
    from pathlib import Path

    from atari5_spec.data.validation import PROTOCOL_COLUMNS

    schemas = Path(package_root()) / "schemas"
    columns = {f["name"]: f for f in json.loads((schemas / "algorithms.schema.json").read_text())["fields"]}
    metadata = json.loads((schemas / "contribution-metadata.schema.json").read_text())
    keys = metadata["properties"]["protocol"]["properties"]
    for name in PROTOCOL_COLUMNS:
        column, key = columns[name].get("constraints", {}), keys[name]
        for rule in ("minimum", "maximum", "pattern", "maxLength"):
            assert column.get(rule) == key.get(rule), (name, rule)
        if "enum" in column:  # null ("the paper does not say") where the key may be null
            assert [v for v in key["enum"] if v is not None] == column["enum"], name
    assert "protocol_note" in columns and "protocol_note" in keys


def test_the_readme_counts_are_the_data_packages():
    # The introduction's row counts, recounted from the CSV files (a merge that adds rows must update them).
    import csv
    from pathlib import Path

    root = package_root()
    counts = {name: sum(1 for _ in csv.DictReader((root / "data" / f"{name}.csv").open(encoding="utf-8", newline="")))
              for name in ("scores", "seed_scores", "budget_scores")}
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8").split())
    stated = re.search(r"([\d,]+) per-game numbers, ([\d,]+) per-seed scores and ([\d,]+) scores at training budgets",
                       readme)
    assert stated, "README: the data package's row counts are not stated"
    assert [int(x.replace(",", "")) for x in stated.groups()] == [counts["scores"], counts["seed_scores"],
                                                                 counts["budget_scores"]]


def test_read_table_names_every_bad_cell_whatever_the_column_holds():
    """A column's cells are checked in one pass over the joined column; a bad cell anywhere, or a cell holding the
    join's separator, is still named with its line, as the cell-by-cell rule names it."""
    from atari5_spec.data.loading import TableReadError

    schema = {"fields": [{"name": "x", "type": "number"}, {"name": "n", "type": "integer"},
                         {"name": "ok", "type": "boolean"}, {"name": "t"}]}
    good = "".join(f"{i}.5,{i},{'true' if i % 2 else 'false'},t{i}\n" for i in range(500))
    frame = read_table("data/x.csv", schema, ("x,n,ok,t\n" + good + ",,,\n").encode())
    assert frame.x.iloc[3] == 3.5 and frame.n.iloc[3] == 3 and frame.ok.iloc[3] and frame.t.iloc[3] == "t3"
    assert frame.iloc[-1].isna().all() and str(frame.n.dtype) == "Int64" and str(frame.ok.dtype) == "boolean"
    bad = "x,n,ok,t\n" + good + "1e,7.0,TRUE,\n" + good + "1,2,true,x\n"
    with pytest.raises(TableReadError) as raised:
        read_table("data/x.csv", schema, bad.encode())
    assert raised.value.cells == [(502, "x", "1e", "number"), (502, "n", "7.0", "integer"),
                                  (502, "ok", "TRUE", "boolean")]


def test_read_table_names_every_cell_holding_a_nul_character():
    """pandas 2.1 (the floor) cuts a cell at a NUL and reads on: "1\x002" would be read as 1. Every pandas
    version must name the cells instead, a number's and a text's alike, with their lines."""
    from atari5_spec.data.loading import TableReadError

    schema = {"fields": [{"name": "x", "type": "number"}, {"name": "t"}]}
    kind = "cell without NUL characters ('\\x00': remove them)"
    bad = "x,t\n1.5,a\n1\x002,b\n2,\"c\x00\"\n"
    with pytest.raises(TableReadError) as raised:
        read_table("data/x.csv", schema, bad.encode())
    assert raised.value.cells == [(3, "x", "1\x002", kind), (4, "t", "c\x00", kind)]
    assert str(raised.value) == ("data/x.csv, line 3, column 'x': '1\\x002' is not a cell without NUL characters "
                                 "('\\x00': remove them) (and 1 more)")
