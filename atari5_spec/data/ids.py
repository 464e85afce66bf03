"""Identifiers: algorithm slugs and the resolution of game names.

Algorithm ids are slugs of the published name (``"Prior+Duel hs"`` ->
``prior-duel-hs``). Game ids are ALE ROM ids (``battle_zone``); a game can be
named in any common spelling: ROM id, Gymnasium id (``ALE/BattleZone-v5``,
``BattleZoneNoFrameskip-v4``), or a printed name ("Battle Zone", "Q*bert"),
ignoring case and punctuation.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:  # pandas only for the annotation: scoring resolves names without importing it
    import pandas as pd

__all__ = ["algorithm_slug", "ALGORITHM_ID_PATTERN", "game_key", "game_aliases", "resolve_game",
           "UnknownGameError", "EXTRA_GAME_SPELLINGS", "ALE_GAMES_OUTSIDE_THE_PACKAGE", "run_id", "RUN_ID_RULE",
           "WINDOWS_DEVICE_NAMES", "windows_device_name", "case_clash"]

# One rule for the id of a run (a seed) wherever runs are read: a submission's scores.csv (its seed column,
# an integer >= 0 in schemas/contribution-scores.schema.json), data/seed_scores.csv and budget_scores.csv, and
# the runs file of `atari5-spec aggregate`. "007" and "7" are the same run.
RUN_ID_RULE = "a whole number 0 or more, in ASCII digits (e.g. 0, 1, 17)"

ALGORITHM_ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"

# Names Windows reserves for devices in every folder, in any case and with any extension ("aux", "NUL.txt",
# "com1.csv"): a file or folder so named cannot be checked out there, so a merged one breaks every Windows
# clone of the repository. COM0/LPT0 and the superscript digits are left out: the id pattern refuses them anyway.
WINDOWS_DEVICE_NAMES = ("con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                        *(f"lpt{i}" for i in range(1, 10)))

# Greek letters appear in a few published names (Sarsa-ε); spell them out so
# that distinct names keep distinct slugs.
_GREEK = {"ε": "epsilon", "φ": "phi", "λ": "lambda", "α": "alpha", "β": "beta", "γ": "gamma"}


def algorithm_slug(name: str) -> str:
    """Lower-case slug of a published algorithm name: runs outside [a-z0-9] become '-'."""
    text = "".join(f"-{_GREEK[c]}-" if c in _GREEK else c for c in name.strip().lower())
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    if not slug:
        raise ValueError(f"cannot make an id from algorithm name {name!r}")
    return slug


# Spellings that do not reduce to the key of a ROM id, display name or
# Gymnasium id: misprints and abbreviations in the Atari-5 paper and in common
# use. (Most paper spellings, "Ms Pacman", "Montezuma Revenge", "Up n Down",
# "Yars Revenge", "QBert", "Riverraid", already reduce to one of those keys.)
EXTRA_GAME_SPELLINGS = {
    "DoubleDdunk": "double_dunk",          # Table 12 misprint
    "S. Invaders": "space_invaders",       # Table 2 abbreviation
    "James Bond 007": "jamesbond",         # the cartridge's title
}


def game_key(text: str) -> str:
    """Case- and punctuation-insensitive key of a game spelling (letters and digits only).

    Environment-id decorations are dropped first: ``ALE/`` prefixes, ``-ram``,
    ``NoFrameskip``/``Deterministic`` and ``-vN`` suffixes, and a ROM file's ``.bin``.
    """
    text = str(text).strip()
    text = re.sub(r"^ALE/", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\.bin$", "", text, flags=re.IGNORECASE)
    text = re.sub(r"(-ram)?(NoFrameskip|Deterministic)?-v[0-9]+\Z", "", text, flags=re.IGNORECASE)
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _game_records(games: "pd.DataFrame | Iterable[Mapping[str, Any]]") -> Iterable[Mapping[str, Any]]:
    """Rows of the games table as mappings, from a DataFrame or from csv.DictReader rows."""
    if hasattr(games, "to_dict"):
        return games.to_dict("records")
    return games


def game_aliases(games: "pd.DataFrame | Iterable[Mapping[str, Any]]",
                 extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Map every accepted spelling key to a game id, from the games table.

    ``games`` is the games DataFrame or its rows as mappings (so that callers
    can build aliases from the CSV without pandas). Keys come from the ROM id,
    the display name and the Gymnasium id, then EXTRA_GAME_SPELLINGS; ``extra``
    adds further spellings that reduce to another key.
    """
    aliases: dict[str, str] = {}
    for row in _game_records(games):
        for spelling in (row["game_id"], row["name"], row["gymnasium_id"]):
            if isinstance(spelling, str) and spelling:
                aliases[game_key(spelling)] = row["game_id"]
    known = set(aliases.values())
    for spelling, game_id in EXTRA_GAME_SPELLINGS.items():
        if game_id in known:  # a reduced games table keeps only its own games
            aliases.setdefault(game_key(spelling), game_id)
    for spelling, game_id in (extra or {}).items():
        aliases[game_key(spelling)] = game_id
    return aliases


class UnknownGameError(ValueError):
    """A game name that matches no game; carries the closest known names."""

    def __init__(self, name: str, suggestions: Iterable[str]):
        self.name = name
        self.suggestions = list(suggestions)
        hint = f"; did you mean {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"unknown game {name!r}{hint}")


# ROM ids of the Arcade Learning Environment (ale-py's supported ROMs) that data/games.csv does not list: real
# games outside the 57-game benchmark. A name that is one of them resolves to its ROM id (never to a
# look-alike benchmark game such as venture for Adventure); having no normalisation constants, such a game is
# then left out of every score, median and fit with a note.
ALE_GAMES_OUTSIDE_THE_PACKAGE = (
    "adventure", "atlantis2", "backgammon", "basic_math", "blackjack", "casino", "combat", "crossbow",
    "darkchambers", "donkey_kong", "earthworld", "entombed", "et", "flag_capture", "frogger", "galaxian", "hangman",
    "haunted_house", "human_cannonball", "kaboom", "keystone_kapers", "king_kong", "klax", "koolaid", "laser_gates",
    "lost_luggage", "mario_bros", "miniature_golf", "mr_do", "othello", "pacman", "pitfall2", "sir_lancelot",
    "space_war", "superman", "tetris", "tic_tac_toe_3d", "trondead", "turmoil", "video_checkers", "video_chess",
    "video_cube", "warlords", "word_zapper")


def resolve_game(name: str, aliases: Mapping[str, str]) -> str:
    """The game id for ``name`` in any accepted spelling, or UnknownGameError with suggestions.

    A game of the ALE that ``aliases`` (data/games.csv) does not know resolves to its ROM id (see
    ALE_GAMES_OUTSIDE_THE_PACKAGE); callers look it up in the games table and treat it as outside the 57.
    """
    key = game_key(name)
    if key in aliases:
        return aliases[key]
    outside = {game_key(rom): rom for rom in ALE_GAMES_OUTSIDE_THE_PACKAGE}
    if key in outside:
        return outside[key]
    close = difflib.get_close_matches(key, list(aliases), n=5, cutoff=0.6)
    suggestions = list(dict.fromkeys(aliases[k] for k in close))[:3]
    raise UnknownGameError(name, suggestions)


def windows_device_name(name: str) -> str | None:
    """The Windows device ``name`` stands for (WINDOWS_DEVICE_NAMES; any case, with or without an extension,
    trailing spaces ignored as Windows ignores them), upper-cased as Windows spells it, or None."""
    stem = str(name).split(".", 1)[0].rstrip(" ").casefold()
    return stem.upper() if stem in WINDOWS_DEVICE_NAMES else None


def case_clash(name: str, existing: Iterable[str]) -> str | None:
    """The first of ``existing`` (sorted) that differs from ``name`` only by case, or None.

    On a case-insensitive file system (macOS's and Windows' default) the two are one file or folder.
    """
    folded = str(name).casefold()
    same = sorted(str(other) for other in existing if str(other) != str(name) and str(other).casefold() == folded)
    return same[0] if same else None


def run_id(text: str) -> int:
    """The run id a seed cell stands for, under RUN_ID_RULE; ValueError naming the rule otherwise."""
    cleaned = str(text).strip()
    if re.fullmatch(r"[0-9]{19,}", cleaned):
        raise ValueError(f"{cleaned[:20]!r} does not fit in 64 bits: a run id has at most 18 digits")
    if not re.fullmatch(r"[0-9]{1,18}", cleaned):
        raise ValueError(f"{cleaned!r} is not a run id: give {RUN_ID_RULE}")
    return int(cleaned)
