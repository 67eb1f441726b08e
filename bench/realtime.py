"""Compare the paused protocol with the real-time one: the same fixed-latency test model at 0, 0.5 and 2 s
per call (reported, not slept: deterministic), a few seeds each. Prints frames per decision, frames spent
waiting for the model, and PMAT per room (mean frames in each room, over the trials that entered it).

    python bench/realtime.py [--seeds 11 12 13] [--frames 3000]
"""

from __future__ import annotations

import argparse
import os

from doomagent.env.geometry import MapGeometry
from doomagent.env.rooms import build_rooms
from doomagent.eval.metrics import pmat_table
from doomagent.graph import run_trial
from doomagent.recipes import load_recipe


def main() -> None:
    """Print one table row per latency."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[11, 12, 13])
    parser.add_argument("--frames", type=int, default=3000)
    args = parser.parse_args()
    labels = [r.label for r in build_rooms(MapGeometry.load("E1M1")).rooms if r.on_route]
    print(f"naive recipe, seeded test model, E1M1, {args.frames} frames, seeds {args.seeds}")
    print(f"| protocol | s per call | frames/decision | waiting frames | {' | '.join(f'PMAT_{r}' for r in labels)} |")
    print("|---|---|---|---|" + "---|" * len(labels))
    for realtime, latency in ((False, 0.5), (True, 0.0), (True, 0.5), (True, 2.0)):
        sets = [f"{role}.extra={{latency: {latency}, sleep: false}}" for role in ("vision", "agent")]
        recipe, _ = load_recipe(
            "naive",
            model="test",
            vision_model="test",
            max_frames=args.frames,
            overrides=[*sets, f"env.realtime={str(realtime).lower()}"],
        )
        trials = [run_trial(recipe, seed=seed) for seed in args.seeds]
        frames = sum(t.frames for t in trials)
        decisions = sum(t.decisions for t in trials)
        waiting = sum(t.wait_frames for t in trials) / len(trials)
        cells = pmat_table(trials, labels)
        row = " | ".join(f"{c.pmat:.0f}" if c.pmat is not None else "∞" for c in cells.values())
        name = "real time" if realtime else "paused"
        print(f"| {name} | {latency:g} | {frames / decisions:.1f} | {waiting:.0f} | {row} |")


if __name__ == "__main__":
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    main()
