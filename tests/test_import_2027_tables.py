"""The text-table baselines of issue 33 item 2 (scripts/import_2027_tables.py): SLM-Lab's 2019 benchmark (four of its
five columns) and ChainerRL's DQN and A3C reproductions, merged through `contribute add` from the transcription
scripts/upstream_tables_2027.csv.

Checked here: each submission is what the script builds from the transcription, byte for byte; the column kept aside
(A2C (n-step)) is neither transcribed nor accepted; every stored score names its contribution line and the upstream
file's line; the protocol each source states (40M frames counting skipped frames, the 5-minute cap) is recorded, with
its evidence rows; and the leaderboard shows them.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import pytest

from atari5_spec.scoring.ranking import leaderboard

ROOT = Path(__file__).resolve().parents[1]
SLM = ("slm-lab-2019-dqn", "slm-lab-2019-ddqn-per", "slm-lab-2019-a2c-gae", "slm-lab-2019-ppo")
CHAINERRL = ("chainerrl-dqn", "chainerrl-a3c")


@pytest.fixture(scope="module")
def script():
    sys.path.insert(0, str(ROOT / "scripts"))
    import import_2027_tables

    return import_2027_tables


@pytest.fixture(scope="module")
def imported(dataset):
    missing = set(SLM + CHAINERRL) - set(dataset.algorithms.algorithm_id)
    if missing:
        pytest.fail(f"not imported: {sorted(missing)}")
    return dataset


def test_each_submission_is_what_the_script_builds_from_the_transcription(script):
    from submissions import submission_yaml

    tables = script.read_tables(script.TABLES)
    assert {a["id"] for a in script.AGENTS} == set(SLM + CHAINERRL)
    for agent in script.AGENTS:
        metadata, scores = agent["make"](agent, tables)
        folder = ROOT / "contributions" / agent["id"]
        assert (folder / "metadata.yaml").read_text(encoding="utf-8") == \
            submission_yaml(metadata, "scripts/import_2027_tables.py"), agent["id"]
        assert (folder / "scores.csv").read_text(encoding="utf-8") == scores, agent["id"]


def test_the_column_kept_aside_is_not_transcribed_and_is_refused(script, tmp_path):
    rows = script.read_tables(script.TABLES)
    assert {r["column"] for r in rows if r["table"] == "slm-lab-2019"} == {"DQN", "DDQN+PER", "A2C (GAE)", "PPO"}
    assert {r["column"] for r in rows if r["table"] != "slm-lab-2019"} == {"ChainerRL Score"}
    # every SLM-Lab game row is one line of the file's table (lines 15-76), its four cells on that line
    lines = {}
    for r in rows:
        if r["table"] == "slm-lab-2019":
            lines.setdefault(r["game"], set()).add(int(r["line"]))
    assert len(lines) == 62 and sorted(min(v) for v in lines.values()) == list(range(15, 77))
    assert all(len(v) == 1 for v in lines.values())
    leaked = tmp_path / "tables.csv"
    with leaked.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["table", "line", "game", "column", "cell"], lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows + [dict(table="slm-lab-2019", line="15", game="Alien", column="A2C (n-step)",
                                      cell="1")])
    with pytest.raises(SystemExit, match=r"A2C \(n-step\)"):
        script.main(["--tables", str(leaked), "--package", str(tmp_path), "--dry-run"])
    assert not (tmp_path / "contributions").exists()


def test_every_score_names_its_contribution_line_and_the_upstream_line(imported):
    slm = re.compile(r"^contributions/(?P<id>slm-lab-2019-[a-z0-9-]+)/scores\.csv:\d+; kengz/SLM-Lab-doc@"
                     r"82db68f9687250a11103508ad56c86c087e831f1:benchmark-results/atari-benchmark\.md line "
                     r"(?P<line>\d+)( \(printed in bold\))?$")
    dqn = re.compile(r"^contributions/chainerrl-dqn/scores\.csv:\d+; chainer/chainerrl@"
                     r"2d9f3328b1265862c912bf530bd615ea6781d679:examples/atari/reproduction/dqn/README\.md line "
                     r"(?P<line>\d+)( \(printed in bold\))?$")
    a3c = re.compile(r"^contributions/chainerrl-a3c/scores\.csv:\d+; line (?P<line>\d+)( \(printed in bold\))?$")
    scores = imported.scores[imported.scores.algorithm_id.isin(SLM + CHAINERRL)]
    counts = scores.groupby("algorithm_id").size().to_dict()
    # 62 games less Adventure (not a game of the package); DQN 59 and A3C 61 less Defender and Surround (N/A)
    assert counts == {**{i: 61 for i in SLM}, "chainerrl-dqn": 59, "chainerrl-a3c": 59}
    for row in scores.itertuples():
        pattern = slm if row.algorithm_id in SLM else dqn if row.algorithm_id == "chainerrl-dqn" else a3c
        m = pattern.match(row.provenance)
        assert m, row.provenance
        low, high = (15, 76) if row.algorithm_id in SLM else (50, 108) if row.algorithm_id == "chainerrl-dqn" else (47, 107)
        assert low <= int(m["line"]) <= high
    assert not scores.game_id.eq("surround").any()
    assert set(scores[scores.algorithm_id.isin(SLM)].game_id) >= {"defender", "elevator_action"}


def test_the_protocol_each_source_states_is_recorded(imported):
    algorithms = imported.algorithms.set_index("algorithm_id")
    for i in SLM:  # "10M frames (40M including skipped frames)", 4 sessions, means only
        row = algorithms.loc[i]
        assert (row.training_frames, row.regime, row.frame_skip, row.seeds, row.statistic) == \
            (40_000_000, "40M", 4, 4, "other")
    assert algorithms.loc["slm-lab-2019-a2c-gae", "sticky_action_probability"] == 0
    assert algorithms.loc[list(SLM[:2]) + ["slm-lab-2019-ppo"], "sticky_action_probability"].isna().all()
    dqn, a3c = algorithms.loc["chainerrl-dqn"], algorithms.loc["chainerrl-a3c"]
    assert (dqn.max_episode_frames, dqn.exclusion, dqn.eval_episodes, dqn.seeds) == \
        (18_000, "episode-frame-limit", 30, 5)
    assert (a3c.max_episode_frames, a3c.seeds, a3c.statistic, a3c.sticky_action_probability) == \
        (108_000, 5, "best-checkpoint", 0)
    evidence = imported.protocol_evidence
    ours = evidence[evidence.algorithm_id.isin(SLM + CHAINERRL)].set_index(["algorithm_id", "field"])
    assert ours.loc[("chainerrl-dqn", "max_episode_frames"), "value"] == "18000"
    assert ours.loc[("slm-lab-2019-dqn", "sticky_action_probability"), "status"] == "not-found"
    assert all(ours.loc[(i, "training_frames"), "status"] == "stated" for i in SLM + CHAINERRL)


def test_the_leaderboard_shows_them(imported):
    rows = {r.algorithm_id: r for r in leaderboard(dataset=imported).rows}
    assert set(SLM) | {"chainerrl-a3c"} <= set(rows)
    assert rows["slm-lab-2019-ppo"].training_frames == 40_000_000 and rows["slm-lab-2019-ppo"].seeds == 4
    assert rows["chainerrl-a3c"].sticky_action_probability == 0
