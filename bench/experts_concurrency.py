"""Measure decision latency of k-levels against plan with models of fixed latency, same run.

Every model call sleeps `--latency` seconds (a ScriptedModel with a fixed delay). k-levels adds
three Experts every 60 frames; run concurrently they cost about one call's latency, so k-levels
should be close to plan. The Experts node's own wall time is printed in units of one call.

    python bench/experts_concurrency.py [--latency 0.02] [--frames 240]
"""

from __future__ import annotations

import argparse
import time

from doomagent.graph import GraphBuilder, run_trial
from doomagent.nodes import experts
from doomagent.providers import ScriptedModel
from doomagent.recipes import load_recipe

VISION = '{"room": "a hall", "enemies": [], "items": [], "hazards": [], "hud": ["health 100%"]}'


def models(latency: float) -> dict[str, ScriptedModel]:
    """Return scripted models that each take `latency` seconds per call."""
    return {
        "vision": ScriptedModel([VISION], latency=latency),
        "planner": ScriptedModel(["1. Walk east.\n2. Open the door."], latency=latency),
        "experts": ScriptedModel(["ACTION: UP\nREASON: onward"], latency=latency),
        "agent": ScriptedModel(["ACTION: UP\nREASON: onward"], latency=latency),
    }


def decision_latency(name: str, latency: float, frames: int) -> tuple[float, list[float]]:
    """Return seconds per decision for a recipe, and the wall time of each Experts node run."""
    recipe, _ = load_recipe(name, max_frames=frames, overrides=["env.stuck_frames=1000000000"])
    expert_walls: list[float] = []

    def timed_experts(state, runtime):
        start = time.perf_counter()
        update = experts(state, runtime)
        expert_walls.append(time.perf_counter() - start)
        return update

    builder = GraphBuilder.from_recipe(recipe)
    if "experts" in builder.names:
        builder.replace_node("experts", timed_experts)
    start = time.perf_counter()
    result = run_trial(recipe, models=models(latency), builder=builder)
    return (time.perf_counter() - start) / result.decisions, expert_walls


def main() -> None:
    """Print both latencies, their ratio, and the Experts node's wall time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.02, help="seconds per model call")
    parser.add_argument("--frames", type=int, default=240)
    args = parser.parse_args()
    decision_latency("plan", args.latency, 20)  # warm imports and caches
    plan, _ = decision_latency("plan", args.latency, args.frames)
    klevels, walls = decision_latency("k-levels", args.latency, args.frames)
    print(f"{args.frames} frames per trial, {args.latency * 1000:.0f} ms per model call")
    print(f"plan     : {plan * 1000:7.1f} ms per decision")
    print(f"k-levels : {klevels * 1000:7.1f} ms per decision")
    print(f"ratio    : {klevels / plan:7.3f}  (target <= 1.1)")
    mean = sum(walls) / len(walls)
    print(
        f"Experts node: {len(walls)} runs, {mean * 1000:.1f} ms each = {mean / args.latency:.2f} calls' latency "
        f"for 3 calls (3.00 if they ran one after another)"
    )


if __name__ == "__main__":
    main()
