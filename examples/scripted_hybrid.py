"""Scripted and LLM play mixed in one graph: the reference navigator (a plain `act(observation)` policy)
drives for the first frames and takes over whenever the LLM's answer is unusable; the LLM plays the rest.

    python examples/scripted_hybrid.py [--autopilot-frames 100] [--max-frames 400]

It shows policies as nodes (`policy_node`), a branch (a router that skips straight to `act` while the
autopilot drives) and a replaced node (the navigator instead of WAIT as the fallback).
"""

from __future__ import annotations

import argparse
from typing import Any

from doomagent import NEXT, GraphBuilder, RunContext, load_recipe, policy_node, run_trial
from doomagent.policies import ReferenceNavigator


def navigator(ctx: RunContext) -> ReferenceNavigator:
    """Build one navigator per trial, for the trial's map."""
    return ReferenceNavigator.for_map(ctx.env.rooms, screen_width=ctx.env.config.width, skill=ctx.env.config.skill)


def build(recipe: Any, autopilot_frames: int) -> GraphBuilder:
    """Return the recipe's graph with the autopilot first and the navigator as the fallback."""
    driving = policy_node(factory=navigator, reason="autopilot", key="navigator")
    fallback = policy_node(factory=navigator, reason="navigator (LLM answer unusable)", key="navigator")
    return (
        GraphBuilder.from_recipe(recipe)
        .add_node("autopilot", driving, before="vision", when=lambda s: s["frame"] < autopilot_frames)
        .add_router("autopilot", lambda s: "act", targets=["act"])
        .replace_node("wait", fallback)
        .add_router("vision", lambda s: NEXT, targets=[])  # the default route, spelled out
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--autopilot-frames", type=int, default=100)
    parser.add_argument("--max-frames", type=int, default=400)
    parser.add_argument("--out", default="runs/scripted-hybrid")
    args = parser.parse_args()
    # The navigator reads the live map (sector heights, keys held): the environment reports it when asked to.
    recipe, folder = load_recipe(
        "naive", model="test", vision_model="test", max_frames=args.max_frames, overrides=["env.live_map=true"]
    )
    result = run_trial(recipe, builder=build(recipe, args.autopilot_frames), out=args.out, recipe_dir=folder)
    print(f"{result.outcome} after {result.frames} frames; rooms entered: {[r for _, r in result.rooms_entered]}")


if __name__ == "__main__":
    main()
