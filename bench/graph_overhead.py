"""Measure decisions/s of the full agent graph with zero-latency scripted models against the bare
environment at the same settings, in the same run.

Both rates are steady-state (engine start and room building left out). The graph runs the k-levels
recipe (Vision every decision, Planner every 30 frames, 3 Experts every 60, Agent, WAIT fallback,
Act), so the figure includes prompt rendering, history clipping, parsing, call logging and
LangGraph's own per-step cost. Screenshots travel to models unencoded and the LiteLLM adapter
encodes them (about 1.3 ms per 640x400 JPEG here), so scripted models do not pay for JPEG. The
baseline steps DoomEnv with the same actions.

    python bench/graph_overhead.py [--frames 2000] [--rounds 3] [--recipe k-levels]
"""

from __future__ import annotations

import argparse
import time

from doomagent.env import DoomEnv
from doomagent.graph import run_trial
from doomagent.providers import ScriptedModel
from doomagent.recipes import load_recipe

VISION = '{"room": "a long hall", "enemies": [], "items": [], "hazards": [], "hud": ["health 100%", "ammo 50"]}'
MOVES = [
    "ACTION: UP\nREASON: onward",
    "ACTION: LEFT\nREASON: turn",
    "ACTION: UP\nREASON: onward",
    "ACTION: RIGHT\nREASON: turn",
    "ACTION: USE\nREASON: door",
]


def models() -> dict[str, ScriptedModel]:
    """Return zero-latency scripted models for every role."""
    agent_moves = iter(range(10**9))
    return {
        "vision": ScriptedModel([VISION]),
        "planner": ScriptedModel(["1. Walk east.\n2. Open the door."]),
        "experts": ScriptedModel(["ACTION: UP\nREASON: onward"]),
        "agent": ScriptedModel(lambda request: MOVES[next(agent_moves) % len(MOVES)]),
    }


def graph_rate(recipe_name: str, frames: int) -> tuple[float, int]:
    """Return steady decisions/s of the whole graph over one trial (setup excluded), and its decisions."""
    recipe, _ = load_recipe(recipe_name, max_frames=frames, overrides=["env.stuck_frames=1000000000"])
    stamps: list[float] = []
    result = run_trial(recipe, models=models(), on_progress=lambda p: stamps.append(time.perf_counter()))
    return (len(stamps) - 1) / (stamps[-1] - stamps[0]), result.decisions


def env_rate(recipe_name: str, frames: int, decisions: int) -> float:
    """Return steady decisions/s of DoomEnv.step alone: same settings, actions and number of decisions."""
    recipe, _ = load_recipe(recipe_name, max_frames=frames, overrides=["env.stuck_frames=1000000000"])
    env = DoomEnv(recipe.env)
    env.reset(seed=0)
    start = time.perf_counter()
    for i in range(decisions):
        *_, terminated, truncated, _ = env.step(MOVES[i % len(MOVES)].split("\n")[0].removeprefix("ACTION: "))
        if terminated or truncated:
            break
    rate = decisions / (time.perf_counter() - start)
    env.close()
    return rate


def main() -> None:
    """Print both rates and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--recipe", default="k-levels")
    args = parser.parse_args()
    graph_rate(args.recipe, 20)  # warm imports and caches
    envs, graphs = [], []
    for _ in range(args.rounds):
        rate, decisions = graph_rate(args.recipe, args.frames)
        graphs.append(rate)
        envs.append(env_rate(args.recipe, args.frames, decisions))
    env, graph = max(envs), max(graphs)
    print(f"recipe {args.recipe}, up to {args.frames} frames per trial ({decisions} decisions), best of {args.rounds}")
    print(f"DoomEnv.step alone : {env:8.1f} decisions/s  ({', '.join(f'{r:.1f}' for r in envs)})")
    print(f"full graph         : {graph:8.1f} decisions/s  ({', '.join(f'{r:.1f}' for r in graphs)})")
    print(f"ratio graph/env    : {graph / env:8.3f}  (target >= 0.5)")


if __name__ == "__main__":
    main()
