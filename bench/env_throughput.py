"""Measure decisions/s of DoomEnv at the paper's settings against a raw ViZDoom loop, same run.

Both loops use freedoom1 E1M1, skill 3, 640x400 RGB with the HUD, the labels buffer on, the same
game variables and buttons, and 2 tics per decision. The raw loop calls make_action(buttons, 2); the
env adds action parsing, held keys, room tracking, objects in view and outcome checks.

    python bench/env_throughput.py [--decisions 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

from doomagent.env import Action, DoomEnv
from doomagent.env.actions import ACTION_BUTTON, BUTTON_NAMES

# A fixed mix that walks, turns, fires and uses; long enough not to get stuck in the window.
PATTERN = (
    [Action.UP] * 6
    + [Action.LEFT] * 2
    + [Action.FIRE, Action.UP, Action.UP, Action.RIGHT, Action.USE, Action.STRAFE_LEFT, Action.WAIT]
)


def run_env(env: DoomEnv, n: int) -> float:
    """Return decisions/s of DoomEnv.step over n decisions (resetting when an episode ends)."""
    env.reset(seed=0)
    t = time.perf_counter()
    for i in range(n):
        _, _, term, trunc, _ = env.step(PATTERN[i % len(PATTERN)])
        if term or trunc:
            env.reset(seed=0)
    return n / (time.perf_counter() - t)


def run_raw(game: object, n: int) -> float:
    """Return decisions/s of a bare make_action(buttons, 2) loop on the same engine."""
    vectors = []
    for a in PATTERN:
        v = [0.0] * len(BUTTON_NAMES)
        b = ACTION_BUTTON[a]
        if b is not None:
            v[b] = 1.0
        vectors.append(v)
    game.new_episode()  # type: ignore[attr-defined]
    t = time.perf_counter()
    for i in range(n):
        game.make_action(vectors[i % len(vectors)], 2)  # type: ignore[attr-defined]
        state = game.get_state()  # type: ignore[attr-defined]
        if state is None:
            game.new_episode()  # type: ignore[attr-defined]
    return n / (time.perf_counter() - t)


def main() -> None:
    """Run both loops in alternation and print decisions/s and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    env = DoomEnv(stuck_frames=10**9)
    game = env._game  # the same engine instance and settings, driven directly
    env_rates, raw_rates = [], []
    for _ in range(args.rounds):
        raw_rates.append(run_raw(game, args.decisions))
        env_rates.append(run_env(env, args.decisions))
    env.close()
    raw, ours = max(raw_rates), max(env_rates)
    print(f"raw ViZDoom loop : {raw:8.1f} decisions/s  (rounds: {', '.join(f'{r:.1f}' for r in raw_rates)})")
    print(f"DoomEnv.step     : {ours:8.1f} decisions/s  (rounds: {', '.join(f'{r:.1f}' for r in env_rates)})")
    print(f"ratio env/raw    : {ours / raw:8.3f}  (target >= 0.8)")


if __name__ == "__main__":
    main()
