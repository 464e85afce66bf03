"""Emulator frames per CPU-second of `atari5-spec play`'s harness against a bare ale-py loop, paired in one run
(issue 45 item 5: target at least 0.9x).

Run: python benchmarks/bench_play.py [--rounds 3] [--cap 20000]   (needs pip install ".[ale]")

Each round plays, for each Atari-5 game, --episodes episodes of the uniformly random policy through the
harness (`atari5_spec.harness.emulator.play_episode` on one AtariEnv per game, as its workers do, with
machado-2018's settings and the episode cap lowered to --cap frames to keep the run short) and then the same
number in a bare loop on ale-py's `ALEInterface` (the same settings, one ROM load, a random legal action held
for the frame skip, the RGB screen read once per agent step as any policy needs it). Both sides alternate in one process, so a
machine shared with other jobs slows both alike. CPU time is the process's (`time.process_time`), frames
the emulator's episode frame numbers.

Prints frames per CPU-second of each side, their ratio (harness / bare), the peak of Python allocations of
each side (tracemalloc) and the process's peak resident memory.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import time
import tracemalloc

GAMES = ("battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert")


def harness_run(game: str, seed: int, settings, episodes: int) -> int:
    """Frames of ``episodes`` episodes through the harness, as its workers play them: one AtariEnv per game
    (harness.runs caches it), each episode reset with its own seed (which reloads the ROM: the same seed gives
    the same episode in any process)."""
    from atari5_spec.harness.emulator import environment, play_episode
    from atari5_spec.harness.policies import RandomPolicy

    env = environment(game, settings)
    try:
        return sum(play_episode(env, RandomPolicy(), settings, game, seed, episode)[1] for episode in range(episodes))
    finally:
        env.close()


def bare_run(game: str, seed: int, settings, episodes: int) -> int:
    """Frames of ``episodes`` episodes in the plainest ale-py loop: one ROM load, reset_game between episodes."""
    import numpy as np
    from ale_py import ALEInterface, roms

    ale = ALEInterface()
    ale.setInt("random_seed", seed)
    ale.setFloat("repeat_action_probability", settings.repeat_action_probability)
    ale.setInt("max_num_frames_per_episode", settings.max_num_frames_per_episode)
    ale.loadROM(str(roms.get_rom_path(game)))
    actions = ale.getLegalActionSet() if settings.full_action_space else ale.getMinimalActionSet()
    generator = np.random.default_rng(seed)
    frames = 0
    for _ in range(episodes):
        ale.reset_game()
        while not ale.game_over():
            action = actions[int(generator.integers(len(actions)))]
            for _ in range(settings.frameskip):
                ale.act(action)
            ale.getScreenRGB()
        frames += int(ale.getEpisodeFrameNumber())
    return frames


def seeded_reset_seconds(settings, count: int = 5) -> float:
    """CPU seconds of one seeded reset of the harness's AtariEnv (Q*bert), the part a bare loop does not pay."""
    from atari5_spec.harness.emulator import environment

    env = environment("qbert", settings)
    start = time.process_time()
    for seed in range(count):
        env.reset(seed=seed)
    seconds = (time.process_time() - start) / count
    env.close()
    return seconds


def timed(play, game: str, seed: int, settings, episodes: int) -> tuple[int, float]:
    """(frames, CPU seconds) of one run of ``episodes`` episodes."""
    start = time.process_time()
    frames = play(game, seed, settings, episodes)
    return frames, time.process_time() - start


def peak_allocations(play, settings) -> int:
    """Peak Python allocations (bytes) of one Q*bert episode, measured apart: tracing slows what it traces."""
    tracemalloc.start()
    play("qbert", 0, settings, 1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cap", type=int, default=20000, help="episode cap in frames (default: 20000)")
    parser.add_argument("--episodes", type=int, default=3, help="episodes per game and round (default: 3)")
    args = parser.parse_args()
    from atari5_spec.harness.emulator import require_ale
    from atari5_spec.harness.protocols import emulator_settings, protocol

    require_ale()
    settings = dataclasses.replace(emulator_settings(protocol("machado-2018")), max_num_frames_per_episode=args.cap)
    sides = {"harness": harness_run, "bare ale-py": bare_run}
    totals = {label: [0, 0.0] for label in sides}
    harness_run("qbert", 0, settings, 1)  # warm-up: imports and the ROM hash outside the measurement
    for round_ in range(args.rounds):
        for game in GAMES:
            for label, play in sides.items():
                frames, seconds = timed(play, game, round_, settings, args.episodes)
                totals[label][0] += frames
                totals[label][1] += seconds
    peaks = {label: peak_allocations(play, settings) for label, play in sides.items()}
    print(f"random policy, machado-2018 settings with a {args.cap:,}-frame cap, {args.rounds} rounds x "
          f"{len(GAMES)} games x {args.episodes} episodes, paired in one process; "
          f"load average {os.getloadavg()[0]:.2f}")
    rates = {}
    for label, (frames, seconds) in totals.items():
        rates[label] = frames / seconds
        print(f"  {label:<12} {frames:>9,} frames {seconds:7.2f} CPU s {rates[label]:9,.0f} frames/CPU-s  "
              f"peak Python allocations of a Q*bert episode {peaks[label] / 2**20:6.2f} MiB")
    ratio = rates["harness"] / rates["bare ale-py"]
    print(f"harness / bare: {ratio:.2f}x (target at least 0.90x) {'ok' if ratio >= 0.9 else 'BELOW TARGET'}")
    reset = seeded_reset_seconds(settings)
    episodes = args.rounds * len(GAMES) * args.episodes
    print(f"a seeded reset (the ROM reloaded, so that a seed gives the same episode in any process) costs "
          f"{reset:.3f} CPU s: {episodes * reset / totals['harness'][1]:.0%} of the harness's time here, less "
          "with full-length episodes")
    print(f"peak resident memory of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
