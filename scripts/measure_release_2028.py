"""How the pinned Atari-5 estimate does on the agents of the 2028 release (issue 46 item 1), nothing re-pinned.

Usage::

    python scripts/measure_release_2028.py [--package DIR]

For each agent imported by scripts/import_2028_release.py that has 40 or more of the 57 games: its own median
human-normalised score over the games it has (the quantity Atari-5 predicts; ``score``'s own-median rule,
MIN_GAMES = 40), and what ``atari5-spec score contributions/<id>`` gives from its Atari-5 games under the pinned
default coefficients and interval (the folder's stated protocol, as the CLI reads it; per-seed rows where the
folder has them): the estimate, its 95% prediction interval, whether the interval holds the true median and the
ratio estimate / true. Then the coverage, in all and by code base. Reads the package only; writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from import_2028_release import AGENTS  # noqa: E402

CODE_BASE = {"rldb": "rldb-paper tables", "ppo-cleanrl": "openrlbenchmark", "pfrl": "PFRL", "nnabla": "nnabla-rl"}


def code_base(agent_id: str) -> str:
    return next(label for prefix, label in CODE_BASE.items() if agent_id.startswith(prefix))


def measure(package: Path) -> list[dict]:
    import os

    from atari5_spec.cli.score import submission_input
    from atari5_spec.scoring.estimate import score

    rows = []
    here = os.getcwd()
    os.chdir(package)  # the folder reader resolves contributions/<id> against the package
    try:
        for agent in AGENTS:
            folder = package / "contributions" / agent["id"]
            if not folder.is_dir():
                continue
            observations, stated = submission_input(str(folder))
            result = score(observations, n_bootstrap=10000, seed=0, partial=True,
                           sticky_action_probability=stated.get("sticky_action_probability"),
                           training_frames=stated.get("training_frames"),
                           max_episode_frames=stated.get("max_episode_frames"))
            own = result.own_median
            if own is None:
                continue
            pi = result.prediction_interval
            rows.append(dict(id=agent["id"], code_base=code_base(agent["id"]), n_games=own.n_games,
                             true=own.median, estimate=result.estimate, low=pi.low, high=pi.high,
                             inside=bool(pi.low <= own.median <= pi.high),
                             ratio=result.estimate / own.median if own.median > 0 else float("nan"),
                             ratio_1p=own.ratio, seeds=result.n_seeds))
    finally:
        os.chdir(here)
    return rows


def table_text(rows: list[dict]) -> str:
    lines = ["| agent | code base | games | true median | Atari-5 estimate | 95% interval | holds | estimate/true |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['id']} | {r['code_base']} | {r['n_games']} | {r['true']:.1f} | {r['estimate']:.1f} | "
                     f"{r['low']:.1f}-{r['high']:.1f} | {'yes' if r['inside'] else 'NO'} | {r['ratio']:.3f} |")
    held = sum(r["inside"] for r in rows)
    lines.append("")
    lines.append(f"Held: {held} of {len(rows)} agents.")
    for label in dict.fromkeys(r["code_base"] for r in rows):
        group = [r for r in rows if r["code_base"] == label]
        lines.append(f"- {label}: {sum(r['inside'] for r in group)} of {len(group)}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    print(table_text(measure(args.package.resolve())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
