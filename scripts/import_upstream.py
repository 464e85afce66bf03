"""Rebuild data/ from the raw score tables published with the Atari-5 paper.

Usage::

    python scripts/import_upstream.py UPSTREAM_DIR [--out PACKAGE_DIR]

UPSTREAM_DIR is a folder with the upstream tables (PapersWithCode.csv,
RAINBOW (fixed).csv, SEED.csv, ..., Atari-Human.csv) as published in the
paper's repository (maitchison/Atari-5). This script is provenance: it documents
exactly how every row of data/ was obtained. It is not run by the tests and the
package never reads the upstream folder.

What it does, following the upstream README's description of the paper's
pipeline:

* game names are reduced to their letters, lower-cased, and mapped to ALE ROM
  ids (``"Space Invaders" -> spaceinvaders -> space_invaders``); the few
  spellings the sources abbreviate to a first word (NGU's ``time``) are mapped
  explicitly;
* wide tables are read cell by cell; ``-`` and empty cells are missing; a
  trailing ``k`` means x1000 (parsed as a decimal, so ``189.1k`` is exactly
  189100); columns starting with ``_`` are numbers another paper reported,
  quoted for comparison: they are kept, as entries excluded from fits;
* every cell becomes one row of data/scores.csv with its verbatim text and its
  position (``FILE:LINE[:COLUMN]``); nothing the sources give is dropped;
* algorithm entries the paper dropped (duplicates of a better source, UCT,
  Go-Explore, ...) are kept and carry the reason in ``exclusion``.

The output is deterministic: rows sorted, ids assigned in sorted order,
numbers written so they round-trip exactly.

This script writes the data package 0.1.0 layout. The current data is
rebuilt, byte for byte, by three steps on a package at 0.1.0::

    python scripts/import_upstream.py UPSTREAM_ATARI5_DIR --out PKG
    python scripts/migrate_0_to_1.py PKG                # protocol columns, new resources, 1.0.0
    python scripts/import_2023.py UPSTREAM_2023_DIR --package PKG   # results after 2022, as contributions
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from atari5_spec.data.datapackage import refresh_resource_stats  # noqa: E402
from atari5_spec.data.ids import algorithm_slug  # noqa: E402
from atari5_spec.data.writing import frame_csv_text, write_text_atomic  # noqa: E402

# ---------------------------------------------------------------------------
# Facts about the games (ALE ROM id, display name, Gymnasium id, genre).
# Genres follow the Atari-5 paper's Figure 5 (taken there from Wikipedia).
# ---------------------------------------------------------------------------
GAMES = [
    # game_id, display name, Gymnasium name, genre
    ("alien", "Alien", "Alien", "Maze"),
    ("amidar", "Amidar", "Amidar", "Maze"),
    ("assault", "Assault", "Assault", "Fixed shooter"),
    ("asterix", "Asterix", "Asterix", "Action"),
    ("asteroids", "Asteroids", "Asteroids", "Multidirectional shooter"),
    ("atlantis", "Atlantis", "Atlantis", "Fixed shooter"),
    ("bank_heist", "Bank Heist", "BankHeist", "Maze"),
    ("battle_zone", "Battle Zone", "BattleZone", "First-person shooter"),
    ("beam_rider", "Beam Rider", "BeamRider", "Fixed shooter"),
    ("berzerk", "Berzerk", "Berzerk", "Multidirectional shooter"),
    ("bowling", "Bowling", "Bowling", "Sports"),
    ("boxing", "Boxing", "Boxing", "Sports"),
    ("breakout", "Breakout", "Breakout", "Action"),
    ("centipede", "Centipede", "Centipede", "Fixed shooter"),
    ("chopper_command", "Chopper Command", "ChopperCommand", "Scrolling shooter"),
    ("crazy_climber", "Crazy Climber", "CrazyClimber", "Climbing"),
    ("defender", "Defender", "Defender", "Scrolling shooter"),
    ("demon_attack", "Demon Attack", "DemonAttack", "Fixed shooter"),
    ("double_dunk", "Double Dunk", "DoubleDunk", "Sports"),
    ("enduro", "Enduro", "Enduro", "Sports"),
    ("fishing_derby", "Fishing Derby", "FishingDerby", "Sports"),
    ("freeway", "Freeway", "Freeway", "Action"),
    ("frostbite", "Frostbite", "Frostbite", "Action"),
    ("gopher", "Gopher", "Gopher", "Action"),
    ("gravitar", "Gravitar", "Gravitar", "Multidirectional shooter"),
    ("hero", "H.E.R.O.", "Hero", "Action"),
    ("ice_hockey", "Ice Hockey", "IceHockey", "Sports"),
    ("jamesbond", "James Bond", "Jamesbond", "Scrolling shooter"),
    ("kangaroo", "Kangaroo", "Kangaroo", "Platform"),
    ("krull", "Krull", "Krull", "Action"),
    ("kung_fu_master", "Kung-Fu Master", "KungFuMaster", "Beat 'em up"),
    ("montezuma_revenge", "Montezuma's Revenge", "MontezumaRevenge", "Platform"),
    ("ms_pacman", "Ms. Pac-Man", "MsPacman", "Maze"),
    ("name_this_game", "Name This Game", "NameThisGame", "Action"),
    ("phoenix", "Phoenix", "Phoenix", "Fixed shooter"),
    ("pitfall", "Pitfall!", "Pitfall", "Platform"),
    ("pong", "Pong", "Pong", "Sports"),
    ("private_eye", "Private Eye", "PrivateEye", "Action"),
    ("qbert", "Q*bert", "Qbert", "Action"),
    ("riverraid", "River Raid", "Riverraid", "Scrolling shooter"),
    ("road_runner", "Road Runner", "RoadRunner", "Racing"),
    ("robotank", "Robotank", "Robotank", "First-person shooter"),
    ("seaquest", "Seaquest", "Seaquest", "Shoot 'em up"),
    ("skiing", "Skiing", "Skiing", "Sports"),
    ("solaris", "Solaris", "Solaris", "Space combat simulator"),
    ("space_invaders", "Space Invaders", "SpaceInvaders", "Shoot 'em up"),
    ("star_gunner", "Star Gunner", "StarGunner", "Scrolling shooter"),
    ("surround", "Surround", "Surround", "Action"),
    ("tennis", "Tennis", "Tennis", "Sports"),
    ("time_pilot", "Time Pilot", "TimePilot", "Multidirectional shooter"),
    ("tutankham", "Tutankham", "Tutankham", "Maze"),
    ("up_n_down", "Up'n Down", "UpNDown", "Racing"),
    ("venture", "Venture", "Venture", "Action"),
    ("video_pinball", "Video Pinball", "VideoPinball", "Pinball"),
    ("wizard_of_wor", "Wizard of Wor", "WizardOfWor", "Maze"),
    ("yars_revenge", "Yars' Revenge", "YarsRevenge", "Multidirectional shooter"),
    ("zaxxon", "Zaxxon", "Zaxxon", "Scrolling shooter"),
]
# Games some sources report that are not among the canonical 57.
EXTRA_GAMES = [
    ("air_raid", "Air Raid", "AirRaid", "Fixed shooter"),
    ("carnival", "Carnival", "Carnival", "Fixed shooter"),
    ("elevator_action", "Elevator Action", "ElevatorAction", "Action"),
    ("journey_escape", "Journey Escape", "JourneyEscape", "Action"),
    ("pooyan", "Pooyan", "Pooyan", "Fixed shooter"),
]
GENRE_CATEGORY = {
    "Platform": "Maze", "Maze": "Maze", "Racing": "Sports", "Sports": "Sports",
    "Pinball": "Other", "Climbing": "Other", "Action": "Action",
    "Shoot 'em up": "Combat", "Beat 'em up": "Combat", "Fixed shooter": "Combat",
    "Scrolling shooter": "Combat", "First-person shooter": "Combat",
    "Multidirectional shooter": "Combat", "Space combat simulator": "Combat",
}
# Spellings the sources use that do not reduce to a game's letters.
GAME_ALIASES = {
    "montezumasrevenge": "montezuma_revenge", "upanddown": "up_n_down",
    # NGU.csv abbreviates multi-word names to their first word.
    "bank": "bank_heist", "battle": "battle_zone", "beam": "beam_rider",
    "chopper": "chopper_command", "crazy": "crazy_climber", "demon": "demon_attack",
    "double": "double_dunk", "fishing": "fishing_derby", "ice": "ice_hockey",
    "james": "jamesbond", "kung": "kung_fu_master", "montezuma": "montezuma_revenge", "ms": "ms_pacman",
    "name": "name_this_game", "private": "private_eye", "road": "road_runner",
    "space": "space_invaders", "star": "star_gunner", "time": "time_pilot",
    "up": "up_n_down", "video": "video_pinball", "wizard": "wizard_of_wor",
    "yars": "yars_revenge",
}

# ---------------------------------------------------------------------------
# Sources: one per upstream table.
# ---------------------------------------------------------------------------
SOURCES = [
    # source_id, upstream file, kind, year, title, used by the paper's fit, description
    ("pwc-2022", "PapersWithCode.csv", "scrape", 2022,
     "Papers with Code, Atari 2600 evaluation tables (scrape of February 2022)", True,
     "Primary source of the Atari-5 paper; each number is attributed to the paper Papers with Code lists (reported_in)."),
    ("pwc-export", "Atari-Results.csv", "scrape", None,
     "Papers with Code, Atari 2600 evaluation tables (earlier alternative export)", False,
     "Kept for provenance; not used by the paper's fit."),
    ("rainbow-2018", "RAINBOW (fixed).csv", "paper", 2018,
     "Rainbow: Combining Improvements in Deep Reinforcement Learning (Hessel et al.), no-op starts table", True,
     "Corrected upstream transcription: the uncorrected RAINBOW.csv lacks River Raid and is otherwise identical."),
    ("seed-rl-2020", "SEED.csv", "paper", 2020,
     "SEED RL: Scalable and Efficient Deep-RL with Accelerated Central Inference (Espeholt et al.)", True,
     "Includes the human reference scores as an entry (Human Ref) and R2D2 reference numbers."),
    ("action-gap-2016", "INCREASE.csv", "paper", 2016,
     "Increasing the Action Gap: New Operators for Reinforcement Learning (Bellemare et al.)", True, ""),
    ("qr-dqn-2018", "DRLQR.csv", "paper", 2018,
     "Distributional Reinforcement Learning with Quantile Regression (Dabney et al.)", True, ""),
    ("bootstrapped-dqn-2016", "BOOTDQN.csv", "paper", 2016,
     "Deep Exploration via Bootstrapped DQN (Osband et al.)", True, ""),
    ("laser-2020", "LASER.csv", "paper", 2020,
     "Off-Policy Actor-Critic with Shared Experience Replay (Schmitt et al.), LASER configurations", True, ""),
    ("optimiser-study", "REVISITING.csv", "paper", None,
     "DQN optimiser/loss study (Adam or RMSProp x Huber or MSE), as collected by the Atari-5 authors", True,
     "The upstream README does not name the paper."),
    ("neuroevolution-2014", "NEAT.csv", "paper", 2014,
     "A Neuroevolution Approach to General Atari Game Playing (Hausknecht et al.)", True,
     "Includes the planning baseline reported in the same table."),
    ("reactor-2018", "REACTOR.csv", "paper", 2018,
     "The Reactor: A fast and sample-efficient Actor-Critic agent for Reinforcement Learning (Gruslys et al.)", True, ""),
    ("ngu-2020", "NGU.csv", "paper", 2020,
     "Never Give Up: Learning Directed Exploration Strategies (Badia et al.)", True,
     "Scores printed in thousands (189.1k)."),
    ("simple-2020", "SIMPLE.csv", "paper", 2020,
     "Model-Based Reinforcement Learning for Atari (Kaiser et al.), Atari 100k regime", True,
     "Loaded by the paper's pipeline; no entry has 40 games, and the training budget differs."),
    ("a3c-2016", "A3C.csv", "paper", 2016,
     "Asynchronous Methods for Deep Reinforcement Learning (Mnih et al.), human starts", False,
     "Same runs as the Papers with Code A3C entries, plus Phoenix; the paper's fit used the Papers with Code rows."),
    ("go-explore-2021", "FIRSTRETURN.csv", "paper", 2021,
     "First return, then explore (Ecoffet et al.), Go-Explore", False,
     "400,000-frame episode limit; the paper's out-of-sample robustness case."),
    ("atari5-misc", "MISC.csv", "compilation", 2022,
     "Single extra scores collected by the Atari-5 authors", False,
     "Repeats numbers other sources give (kept as alternatives); its Human and Random rows repeat the normalisation constants."),
    ("agent57-2020", "Atari-Human.csv", "paper", 2020,
     "Agent57: Outperforming the Atari Human Benchmark (Badia et al.), random and average-human scores", True,
     "Normalisation constants of the Atari-5 paper's Table 12."),
]
SOURCE_OF_FILE = {upstream: sid for sid, upstream, *_ in SOURCES}
WIDE_FILES = ["RAINBOW (fixed).csv", "SEED.csv", "INCREASE.csv", "DRLQR.csv", "BOOTDQN.csv",
              "LASER.csv", "REVISITING.csv", "NEAT.csv", "REACTOR.csv", "NGU.csv", "SIMPLE.csv",
              "A3C.csv", "FIRSTRETURN.csv"]
# Tables the paper's pipeline loaded: their entries form its raw pool of 116.
PAPER_POOL_FILES = {"PapersWithCode.csv", "RAINBOW (fixed).csv", "SEED.csv", "INCREASE.csv",
                    "DRLQR.csv", "BOOTDQN.csv", "LASER.csv", "REVISITING.csv", "NEAT.csv",
                    "REACTOR.csv", "NGU.csv", "SIMPLE.csv"}

# Entries the paper dropped before applying its inclusion rule, and why.
EXCLUSIONS = {
    ("PapersWithCode.csv", "Go-Explore"): ("episode-frame-limit", "Evaluated with a 400,000-frame episode limit instead of 108,000."),
    ("PapersWithCode.csv", "UCT"): ("emulator-as-model", "Plans with the emulator as a perfect model."),
    ("PapersWithCode.csv", "Rainbow"): ("duplicate", "Incomplete; the Rainbow paper's own table (rainbow-noop) is used."),
    ("PapersWithCode.csv", "DQN noop"): ("duplicate", "Same algorithm as dqn-noop from the Rainbow paper's table, which is used."),
    ("PapersWithCode.csv", "Duel noop"): ("duplicate", "Same algorithm as duel-ddqn-noop from the Rainbow paper's table, which is used."),
    ("PapersWithCode.csv", "DDQN (tuned) noop"): ("duplicate", "Same algorithm as ddqn-noop from the Rainbow paper's table, which is used."),
    ("PapersWithCode.csv", "Advantage Learning"): ("duplicate", "The Action Gap paper's own table is used."),
    ("PapersWithCode.csv", "Persistent AL"): ("duplicate", "The Action Gap paper's own table is used."),
    ("PapersWithCode.csv", "C51"): ("duplicate", "The QR-DQN paper's table is used."),
    ("PapersWithCode.csv", "C51 noop"): ("duplicate", "The QR-DQN paper's C51 column is used."),
    ("PapersWithCode.csv", "Bootstrapped DQN"): ("duplicate", "The Bootstrapped DQN paper's own table is used."),
    ("PapersWithCode.csv", "QR-DQN-1"): ("duplicate", "The QR-DQN paper's own table is used."),
    ("SEED.csv", "R2D2 Ref"): ("duplicate", "Matches r2d2 (Papers with Code) game for game."),
    ("FIRSTRETURN.csv", "FirstReturn"): ("episode-frame-limit", "Evaluated with a 400,000-frame episode limit instead of 108,000."),
}
SOURCE_EXCLUSIONS = {
    "SIMPLE.csv": ("training-budget", "Atari 100k regime: trained on a budget far below the other entries."),
}
# A3C.csv is the A3C paper's human-starts table: the same runs as the Papers with
# Code entries (identical numbers where both exist), so its cells are alternative
# numbers for those entries rather than new algorithms.
SAME_ENTRY = {("A3C.csv", "A3C FF"): ("PapersWithCode.csv", "A3C FF hs"),
              ("A3C.csv", "A3C LSTM"): ("PapersWithCode.csv", "A3C LSTM hs")}
ID_OVERRIDES = {("FIRSTRETURN.csv", "FirstReturn"): "go-explore-2021"}
DISPLAY_NAMES = {("FIRSTRETURN.csv", "FirstReturn"): "Go-Explore"}


def letters(text: str) -> str:
    """The letters of a game name, lower-cased: the upstream matching key."""
    return "".join(c for c in str(text) if c.isalpha()).lower()


def game_lookup() -> dict[str, str]:
    lookup = {g[0].replace("_", ""): g[0] for g in GAMES + EXTRA_GAMES}
    lookup.update(GAME_ALIASES)
    return lookup


def parse_number(text: str) -> float | None:
    """Parse one upstream cell; None for missing ('-' or empty)."""
    text = text.strip()
    if text in ("", "-"):
        return None
    if text.endswith("k"):  # NGU prints thousands: 189.1k is exactly 189100
        return float(Decimal(text[:-1]) * 1000)
    return float(text)


def read_rows(path: Path):
    """Yield (line number, row dict) for a CSV file, line numbers as in an editor."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            yield reader.line_num, row


def read_cells(upstream: Path) -> list[dict]:
    """Every published number in the upstream tables, as one record per cell."""
    games = game_lookup()
    cells = []
    for long_file in ("PapersWithCode.csv", "Atari-Results.csv", "MISC.csv"):
        for line, row in read_rows(upstream / long_file):
            if not row.get("Algorithm"):
                continue  # MISC.csv has blank separator lines
            if long_file == "MISC.csv" and row["Algorithm"] in ("Human", "Random"):
                continue  # normalisation constants, checked against Atari-Human.csv below
            title = row.get("Paper Title") or row.get("Paper title") or None
            cells.append(dict(file=long_file, column=None, line=line, entry=row["Algorithm"],
                              game=games[letters(row["Game"])], raw=row["Score"].strip(),
                              reported_in=title, year=(row.get("Date") or "")[:4] or None,
                              extra_data={"True": True, "False": False}.get(row.get("Extra Training Data"))))
    for wide_file in WIDE_FILES:
        with (upstream / wide_file).open(newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle)
            header = next(reader)
            for row in reader:
                line = reader.line_num
                for column, raw in zip(header[1:], row[1:]):
                    if parse_number(raw) is None:
                        continue
                    cells.append(dict(file=wide_file, column=column, line=line,
                                      entry=column.strip(), game=games[letters(row[0])],
                                      raw=raw.strip(), reported_in=None, year=None, extra_data=None))
    for cell in cells:
        cell["score"] = parse_number(cell["raw"])
    return cells


def entry_key(cell) -> tuple[str, str]:
    """The algorithm entry a cell belongs to: (file, name) before de-duplication."""
    if cell["file"] == "Atari-Results.csv":
        return ("PapersWithCode.csv", cell["entry"])  # an export of the same site
    if cell["file"] == "MISC.csv":
        return None  # resolved by name, see assign_misc
    key = (cell["file"], cell["entry"])
    return SAME_ENTRY.get(key, key)


def protocol(name: str, file: str) -> dict:
    """Evaluation protocol facts that the entry's name or source states outright."""
    lowered = name.lower()
    start = None
    if lowered.endswith(" hs") or file == "A3C.csv":
        start = "human-starts"
    elif "noop" in lowered:
        start = "no-op"
    frames = None
    for marker, value in (("(50m)", 50_000_000), ("(200m)", 200_000_000), ("200m frames", 200_000_000),
                          ("500m", 500_000_000), ("_100k", 400_000), ("_500k", 2_000_000), ("_1m", 4_000_000)):
        if marker in lowered:
            frames = value
    if file == "RAINBOW (fixed).csv":
        frames = 200_000_000
    if name == "SimPLe":
        frames = 400_000
    sticky = True if file == "SIMPLE.csv" else None
    limit = 400_000 if (file, name) in {("FIRSTRETURN.csv", "FirstReturn"), ("PapersWithCode.csv", "Go-Explore")} else None
    return dict(start_condition=start, sticky_actions=sticky, max_episode_frames=limit, training_frames=frames)


def build_algorithms(cells: list[dict]) -> tuple[pd.DataFrame, dict]:
    """One row per algorithm entry of every source, with stable slug ids."""
    entries = sorted({entry_key(c) for c in cells if entry_key(c) is not None})
    by_slug = defaultdict(list)
    for file, name in entries:
        slug = ID_OVERRIDES.get((file, name), algorithm_slug(name))
        if name.startswith("_"):  # a reference column: namespaced by its source
            slug = f"{SOURCE_OF_FILE[file]}-ref-{algorithm_slug(name)}"
        by_slug[slug].append((file, name))
    ids = {}
    for slug, owners in by_slug.items():
        if len(owners) == 1:
            ids[owners[0]] = slug
            continue
        # Several sources use the same name: the entry the fit uses keeps the
        # plain slug, the others are suffixed with their source id.
        for owner in owners:
            ids[owner] = slug if owner not in EXCLUSIONS else f"{slug}-{SOURCE_OF_FILE[owner[0]]}"
        assert len({ids[o] for o in owners}) == len(owners), owners

    titles = defaultdict(Counter)
    years = defaultdict(Counter)
    for c in cells:
        key = entry_key(c)
        if key and c["file"] == "PapersWithCode.csv":
            if c["reported_in"]:
                titles[key][c["reported_in"]] += 1
            if c["year"]:
                years[key][int(c["year"])] += 1
    source_meta = {upstream: (sid, year, title) for sid, upstream, _, year, title, *_ in SOURCES}

    rows = []
    for file, name in entries:
        sid, src_year, src_title = source_meta[file]
        reference = name.startswith("_")
        if reference:
            label = name.lstrip("_").strip().lower()
            kind = "random-reference" if label == "random" else "human-reference" if label == "human" else "agent"
        else:
            kind = "human-reference" if name == "Human Ref" else "agent"
        if (file, name) in EXCLUSIONS:
            exclusion, note = EXCLUSIONS[(file, name)]
        elif file in SOURCE_EXCLUSIONS:
            exclusion, note = SOURCE_EXCLUSIONS[file]
        elif reference:
            exclusion = "reference-scores" if kind != "agent" else "duplicate"
            note = f"Reference column {name.strip()!r} of {file}: numbers another paper reported, quoted for comparison."
        else:
            exclusion, note = None, None
        if file == "PapersWithCode.csv":
            title = max(sorted(titles[(file, name)]), key=titles[(file, name)].get) if titles[(file, name)] else None
            year = max(sorted(years[(file, name)]), key=years[(file, name)].get) if years[(file, name)] else None
        else:
            title, year = src_title.split(" (")[0], src_year
        rows.append(dict(
            algorithm_id=ids[(file, name)], name=DISPLAY_NAMES.get((file, name), name.strip()),
            kind=kind, paper_title=title, year=year, source_id=sid,
            **protocol(name.strip(), file),
            in_paper_pool=(file in PAPER_POOL_FILES and (file, name) not in EXCLUSIONS and not reference),
            exclusion=exclusion, exclusion_note=note))
    algorithms = pd.DataFrame(rows).sort_values("algorithm_id", kind="stable").reset_index(drop=True)
    assert algorithms.algorithm_id.is_unique
    return algorithms, ids


def build_scores(cells: list[dict], ids: dict) -> pd.DataFrame:
    by_name = {}
    for (file, name), aid in ids.items():
        if (file, name) not in EXCLUSIONS:
            by_name.setdefault(name.strip(), aid)
    primary_file = {aid: file for (file, name), aid in ids.items()}
    rows = []
    for c in cells:
        key = entry_key(c)
        aid = ids[key] if key else by_name[c["entry"]]
        where = f"{c['file']}:{c['line']}" + (f":{c['column'].strip()}" if c["column"] else "")
        rows.append(dict(algorithm_id=aid, game_id=c["game"], score=c["score"], raw_value=c["raw"],
                         source_id=SOURCE_OF_FILE[c["file"]], reported_in=c["reported_in"],
                         provenance=where, extra_training_data=c["extra_data"],
                         # The fit takes an entry's numbers from its own source; numbers
                         # for the same entry from other tables are kept as alternatives.
                         use_in_fit=(c["file"] == primary_file[aid]),
                         supersedes=None))
    scores = pd.DataFrame(rows)
    line = scores.provenance.str.extract(r":(\d+)")[0].astype(int)
    scores = (scores.assign(_line=line)
              .sort_values(["algorithm_id", "game_id", "source_id", "_line", "provenance"], kind="stable")
              .drop(columns="_line").reset_index(drop=True))
    scores.insert(0, "score_id", range(1, len(scores) + 1))
    # A source that gives two different numbers for one pair (Papers with Code
    # mixes Go-Explore's 2019 and 2020 papers) leaves it ambiguous which one a
    # fit should use: none is, until a correction says which.
    used = scores[scores.use_in_fit]
    spread = used.groupby(["algorithm_id", "game_id"]).score.transform(lambda x: x.max() - x.min())
    ambiguous = spread.index[spread != 0]
    scores.loc[ambiguous, "use_in_fit"] = False
    for row in scores.loc[ambiguous].itertuples():
        print(f"note: {row.algorithm_id}/{row.game_id}: {row.source_id} gives several numbers; none marked use_in_fit")
    return scores


def build_games(upstream: Path) -> pd.DataFrame:
    reference = pd.read_csv(upstream / "Atari-Human.csv", dtype=str, keep_default_na=False)
    lookup = game_lookup()
    reference["game_id"] = [lookup[letters(g)] for g in reference.Game]
    reference = reference.set_index("game_id")

    def number(game_id, column):
        if game_id not in reference.index:
            return None
        return parse_number(reference.at[game_id, column].replace("?", ""))

    rows = []
    for in_57, table in ((True, GAMES), (False, EXTRA_GAMES)):
        for game_id, name, gym, genre in table:
            rows.append(dict(game_id=game_id, name=name, gymnasium_id=f"ALE/{gym}-v5", in_57=in_57,
                             genre=genre, category=GENRE_CATEGORY[genre],
                             random_score=number(game_id, "Random"), human_score=number(game_id, "Human"),
                             reference_source="agent57-2020" if in_57 else None,
                             alt_random_score=number(game_id, "DQN_Random"),
                             top_human_score=number(game_id, "Human_Top")))
    return pd.DataFrame(rows).sort_values("game_id").reset_index(drop=True)


def check_consistency(upstream: Path, cells: list[dict], games: pd.DataFrame) -> None:
    """Assertions about the upstream tables this import relies on."""
    # MISC.csv's Human/Random rows repeat the normalisation constants.
    lookup = game_lookup()
    constants = games.set_index("game_id")
    for _, row in read_rows(upstream / "MISC.csv"):
        if row.get("Algorithm") in ("Human", "Random"):
            column = "human_score" if row["Algorithm"] == "Human" else "random_score"
            assert float(row["Score"]) == constants.at[lookup[letters(row["Game"])], column], row
    # The uncorrected Rainbow table adds nothing: every cell equals the fixed one.
    fixed = pd.read_csv(upstream / "RAINBOW (fixed).csv").set_index("Game")
    original = pd.read_csv(upstream / "RAINBOW.csv").set_index("Game")
    assert (original == fixed.loc[original.index]).all().all()
    # A3C.csv and the Papers with Code A3C entries agree wherever both have a game.
    values = defaultdict(set)
    for c in cells:
        if entry_key(c) in SAME_ENTRY.values() and c["file"] in ("A3C.csv", "PapersWithCode.csv"):
            values[(entry_key(c), c["game"])].add(c["score"])
    assert all(len(v) == 1 for v in values.values())


def write_sources(out: Path) -> None:
    rows = pd.DataFrame([dict(source_id=sid, title=title, kind=kind, year=year, upstream_file=upstream,
                              used_by_paper_fit=used, description=desc or None)
                         for sid, upstream, kind, year, title, used, desc in SOURCES]).sort_values("source_id")
    write_text_atomic(out / "data" / "sources.csv", frame_csv_text(rows, list(rows.columns)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("upstream", type=Path, help="folder with the upstream Atari-5 tables")
    parser.add_argument("--out", type=Path, default=ROOT, help="package directory to write (default: this repository)")
    args = parser.parse_args(argv)

    cells = read_cells(args.upstream)
    games = build_games(args.upstream)
    check_consistency(args.upstream, cells, games)
    algorithms, ids = build_algorithms(cells)
    scores = build_scores(cells, ids)

    write_sources(args.out)
    write_text_atomic(args.out / "data" / "games.csv", frame_csv_text(games, list(games.columns)))
    write_text_atomic(args.out / "data" / "algorithms.csv", frame_csv_text(algorithms, list(algorithms.columns)))
    write_text_atomic(args.out / "data" / "scores.csv", frame_csv_text(scores, list(scores.columns)))
    refresh_resource_stats(args.out)
    print(f"wrote {len(games)} games, {len(algorithms)} algorithm entries "
          f"({int(algorithms.in_paper_pool.sum())} in the paper's pool), {len(scores)} scores to {args.out / 'data'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
