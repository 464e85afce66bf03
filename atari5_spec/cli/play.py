"""The ``play`` subcommand: a policy played under a named protocol, one row per episode (argparse only here)."""

from __future__ import annotations

import argparse
import sys

from ..data.errors import InputError

__all__ = ["add_play_commands", "parse_seeds"]

PLAY_HELP = "play a policy on the Atari-5 games under a named protocol and write one row per episode (ale-py)"
PLAY_DESCRIPTION = """\
Play POLICY (random, module:callable, or a Python file defining `policy`: a
callable from the RGB screen to an action index) on the Atari-5 games under a
protocol of data/protocols.csv (default machado-2018: sticky actions 0.25, full
action set, frame skip 4, 108,000-frame episodes, no no-op starts). Every
emulator setting comes from the protocol; each episode's score is the raw,
unclipped game score summed from the emulator's rewards. --out gets one row per
episode (schemas/episodes.schema.json); the same seeds give the same file, and
a run interrupted with the same settings is resumed (its rows are kept).
Needs ale-py and Gymnasium: pip install "atari5-spec[ale]". docs/evaluate.md says
which protocol, how many episodes and seeds."""


def parse_seeds(text: str):
    """``--seeds``: N (seeds 0 to N - 1) or a comma-separated list (``3,7``; one seed as ``7,``)."""
    parts = [p.strip() for p in text.split(",")]
    try:
        if len(parts) == 1:
            count = int(parts[0])
            if count < 1:
                raise ValueError
            return count
        return [int(p) for p in parts if p != ""]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seeds (3: seeds 0, 1, 2) or a list of "
                                         "non-negative seeds (0,4,7; one seed as 7,)") from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number of at least 1")
    return value


def add_play_commands(commands) -> None:
    """Register ``play`` on the main parser's subparsers."""
    from ..harness.protocols import DEFAULT_PROTOCOL

    p = commands.add_parser("play", help=PLAY_HELP, description=PLAY_DESCRIPTION,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("policy", metavar="POLICY", help="random, module:callable, or a .py file defining policy")
    p.add_argument("--protocol", default=DEFAULT_PROTOCOL, metavar="NAME",
                   help=f"a protocol_id of data/protocols.csv (default: {DEFAULT_PROTOCOL})")
    p.add_argument("--seeds", type=parse_seeds, default=1, metavar="N|LIST",
                   help="N seeds (0 to N-1) or a list such as 0,4,7 (default: 1)")
    p.add_argument("--episodes", type=_positive, default=None, metavar="N",
                   help="episodes per game and seed (default: the protocol's, else 30)")
    p.add_argument("--out", required=True, metavar="FILE", help="the episode table to write (CSV); resumed if "
                   "an interrupted run with the same settings left it")
    p.add_argument("--games", nargs="+", default=None, metavar="GAME",
                   help="games in any spelling score accepts (default: the Atari-5 games)")
    p.add_argument("--jobs", type=_positive, default=None, metavar="N",
                   help="local worker processes (default: the machine's cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a Dask scheduler (tcp://host:8786): play on its workers instead (dask.distributed)")
    p.add_argument("--progress", action="store_true",
                   help="print progress with the time left on standard error even when it is not a terminal")
    p.set_defaults(run=_cmd_play)


def progress_line(done: int, total: int, elapsed: float) -> str:
    """'play: 12/50 episodes, 0:41 elapsed, about 2:10 left'."""
    def clock(seconds: float) -> str:
        seconds = int(round(seconds))
        return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else \
            f"{seconds // 60}:{seconds % 60:02d}"

    left = f", about {clock(elapsed / done * (total - done))} left" if 0 < done < total else ""
    return f"play: {done:,}/{total:,} episodes, {clock(elapsed)} elapsed{left}"


def _progress(forced: bool):
    terminal = sys.stderr.isatty()
    if not (terminal or forced):
        return None
    shown = {"at": -1.0}

    def show(done: int, total: int, elapsed: float) -> None:
        if done < total and elapsed - shown["at"] < 1.0:
            return
        shown["at"] = elapsed
        line = progress_line(done, total, elapsed)
        if terminal:
            print(f"\r{line}", end="\n" if done >= total else "", file=sys.stderr, flush=True)
        else:
            print(line, file=sys.stderr, flush=True)

    return show


def _cmd_play(args) -> int:
    from ..harness.runs import play

    seeds = args.seeds
    if isinstance(seeds, list) and not seeds:
        raise InputError("--seeds: give at least one seed")
    result = play(args.policy, protocol_name=args.protocol, seeds=seeds, episodes=args.episodes, games=args.games,
                  out=args.out, jobs=args.jobs, scheduler=args.scheduler, on_progress=_progress(args.progress))
    means = result.means()
    print(f"{result.out}: {len(result.episodes):,} episodes under {result.protocol} ({result.played:,} played, "
          f"{result.kept:,} kept from an earlier run); {result.frames_played:,} frames in "
          f"{result.cpu_seconds:,.1f} CPU seconds")
    for game, rows in means.groupby("game", sort=False):
        print(f"  {game:<16} mean {rows.score.mean():>10.1f} over {len(rows)} seed(s), "
              f"{int(rows.episodes.sum())} episodes, {int(rows.truncated.sum())} cut at the cap")
    return 0
