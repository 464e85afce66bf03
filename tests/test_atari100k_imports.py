"""The Atari 100k field (issue 26, data 1.34.0-1.41.0): the agents scripts/import_atari100k_field.py merged hold
the 26 games with their runs, every row names its file and line, the field has at least twelve algorithms, the
CURL cross-checks are recorded, and the new agents' protocol evidence agrees with data/algorithms.csv."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# entry -> runs per game in its upstream file
NEW = {"twm": 5, "der": 100, "otrainbow": 100, "drq": 100, "playvirtual": 15, "curl-atari100k": 100}
# Entries that are another run or setting of an algorithm already counted (ablations, a second source of PPO).
SAME_ALGORITHM = {"bbf-rr2": "bbf", "bbf-sticky": "bbf", "bbf-rr2-sticky": "bbf", "ppo-dreamerv3-atari100k": "ppo-100k"}


@pytest.fixture(scope="module")
def ATARI_100K(dataset):
    """The 26 games of Atari 100k as the package lists them (data/benchmark_games.csv)."""
    games = dataset.benchmark_games
    return set(games.loc[games.benchmark == "atari-100k", "game_id"])


@pytest.fixture(scope="module")
def field(dataset):
    algorithms = dataset.algorithms
    return algorithms[algorithms.regime == "atari-100k"].set_index("algorithm_id")


def test_every_atari100k_entry_holds_the_26_games_with_a_provenance_per_row(dataset, field, ATARI_100K):
    scores = dataset.scores[dataset.scores.algorithm_id.isin(field.index)]
    for algorithm_id in field.index:
        rows = scores[scores.algorithm_id == algorithm_id]
        assert ATARI_100K <= set(rows.game_id), (algorithm_id, sorted(ATARI_100K - set(rows.game_id)))
        assert rows.provenance.notna().all() and (rows.provenance.str.strip() != "").all(), algorithm_id
        assert field.loc[algorithm_id, "training_frames"] == 400_000


def test_the_field_has_at_least_twelve_distinct_algorithms(field, dataset, ATARI_100K):
    games = dataset.scores.groupby("algorithm_id").game_id.apply(set)
    complete = {a for a in field.index if ATARI_100K <= games.get(a, set())}
    distinct = {SAME_ALGORITHM.get(a, a) for a in complete}
    assert len(ATARI_100K) == 26 and set(NEW) <= complete
    assert len(distinct) >= 12, sorted(distinct)


@pytest.mark.parametrize("algorithm_id,runs", sorted(NEW.items()))
def test_new_entries_keep_their_runs_and_the_per_game_number_is_their_mean(dataset, algorithm_id, runs, ATARI_100K):
    seeds = dataset.seed_scores[dataset.seed_scores.algorithm_id == algorithm_id]
    assert set(seeds.game_id) == ATARI_100K and seeds.groupby("game_id").size().eq(runs).all()
    per_game = dataset.scores[dataset.scores.algorithm_id == algorithm_id].set_index("game_id").score
    assert (seeds.groupby("game_id").score.mean() - per_game).abs().max() < 1e-6
    entry = dataset.algorithms.set_index("algorithm_id").loc[algorithm_id]
    assert entry.seeds == runs and entry.statistic == "mean" and entry.exclusion == "training-budget"


def test_each_run_names_its_upstream_file_commit_and_line(dataset):
    seeds = dataset.seed_scores[dataset.seed_scores.algorithm_id.isin(NEW)]
    where = {
        "twm": r"jrobine/twm@e9e9d6f[0-9a-f]{33}:results/scores\.json line \d+, run [0-4]$",
        "der": r"RLE-Foundation/rllte@[0-9a-f]{40}:hsuanwu/evaluation/atari_100k/DER\.json line 1, key \w+, run \d+$",
        "otrainbow": r"RLE-Foundation/rllte@[0-9a-f]{40}:hsuanwu/evaluation/atari_100k/OTRainbow\.json line 1, key \w+, run \d+$",
        "drq": r"RLE-Foundation/rllte@[0-9a-f]{40}:hsuanwu/evaluation/atari_100k/DrQ\.json line 1, key \w+, run \d+$",
        "playvirtual": r"RLE-Foundation/rllte@[0-9a-f]{40}:hsuanwu/evaluation/atari_100k/PlayVirtual\.json line 1, key \w+, run \d+$",
        "curl-atari100k": r"RLE-Foundation/rllte@[0-9a-f]{40}:hsuanwu/evaluation/atari_100k/CURL \w+\.json \(read at [0-9a-f]{7}\) "
                r"line 1, run_number \d+$",
    }
    for row in seeds.itertuples():
        assert re.search(where[row.algorithm_id], row.provenance), row.provenance


def test_the_licence_of_each_new_source_is_recorded(dataset):
    sources = dataset.sources.set_index("source_id")
    for algorithm_id in NEW:
        contribution = ROOT / "contributions" / algorithm_id / "metadata.yaml"
        assert "licence: MIT" in contribution.read_text(encoding="utf-8"), algorithm_id
        assert f"contrib-{algorithm_id}" in sources.index


def test_curl_cross_checks_are_recorded_and_their_verdicts_recompute(dataset, ATARI_100K):
    checks = dataset.cross_checks[dataset.cross_checks.algorithm_id == "curl-atari100k"]
    assert set(checks.game_id) == ATARI_100K and checks.game_id.is_unique
    for row in checks.itertuples():
        a, b = float(row.value_a), float(row.value_b)
        assert abs(row.relative_difference - (b - a) / max(abs(a), abs(b), 1.0)) < 1e-8
        assert bool(row.agree) == (abs(b - a) <= 1e-9 + 1e-6 * max(abs(a), abs(b))), row.game_id
        assert "HNS column" in row.source_a and "eval_average_return" in row.source_b


def test_the_new_agents_protocol_evidence_passes_the_packages_evidence_rules(dataset):
    """scripts/protocol_evidence_100k-new.csv: the rows the evidence updater adds for these agents (same columns as
    data/protocol_evidence.csv). Appended to the package's table they pass its validation rules (schema enums, one
    row per field, a stated value equal to data/algorithms.csv's), and they cover every new agent's sticky setting
    and training frames."""
    import pandas as pd

    from atari5_spec.data.validation import validate_dataset

    schema = json.loads((ROOT / "schemas" / "protocol-evidence.schema.json").read_text(encoding="utf-8"))
    new = pd.read_csv(ROOT / "scripts" / "protocol_evidence_100k-new.csv", dtype="string", keep_default_na=False)
    assert list(new.columns) == [f["name"] for f in schema["fields"]]
    new["value"] = new["value"].where(new["value"] != "", pd.NA)
    covered = set(zip(new.algorithm_id, new.field))
    for algorithm_id in NEW:
        assert {(algorithm_id, "sticky_action_probability"), (algorithm_id, "training_frames")} <= covered
    held = dataset.protocol_evidence
    later = pd.read_csv(ROOT / "scripts" / "protocol_evidence_2027-34.csv", dtype="string", keep_default_na=False)
    superseded = set(zip(later.algorithm_id, later.field))  # a later reading (issue 34, data 1.42.0) replaced these
    kept = new[[k not in superseded for k in zip(new.algorithm_id, new.field)]]
    recorded = held[[k in covered and k not in superseded for k in zip(held.algorithm_id, held.field)]]
    assert recorded.sort_values(["algorithm_id", "field"]).fillna("").astype(str).values.tolist() == \
        kept.sort_values(["algorithm_id", "field"]).fillna("").astype(str).values.tolist()  # the updater ran (1.41.0)
    others = held[[k not in covered or k in superseded for k in zip(held.algorithm_id, held.field)]]
    evidence = pd.concat([others, kept], ignore_index=True)
    problems = validate_dataset(dataset._replace(protocol_evidence=evidence))
    assert [p for p in problems if p.file == "data/protocol_evidence.csv"] == []
    # and the rule bites: a stated value that is not the table's is refused
    wrong = kept.copy()
    wrong.loc[(wrong.algorithm_id == "twm") & (wrong.field == "noop_max"), "value"] = "31"
    evidence = pd.concat([others, wrong], ignore_index=True)
    assert [p for p in validate_dataset(dataset._replace(protocol_evidence=evidence))
            if p.file == "data/protocol_evidence.csv"]
