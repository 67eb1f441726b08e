"""Measure the wall time of 8 trials with a latency-bound model on W worker processes against
the wall time of 1 trial, in the same run.

Every model call of the seeded test model sleeps `--latency` seconds, as a remote API would keep a
trial waiting; the engine's own work is small beside it. With enough workers, 8 trials should take
little longer than 1.

    python bench/parallel_trials.py [--latency 0.1] [--frames 80] [--workers 8]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from doomagent.eval import plan_jobs, run_jobs
from doomagent.recipes import load_recipe


def wall(trials: int, workers: int, latency: float, frames: int) -> float:
    """Return the seconds `trials` trials of the naive recipe take on `workers` processes."""
    recipe, folder = load_recipe(
        "naive",
        model="test",
        vision_model="test",
        max_frames=frames,
        overrides=[f"agent.extra.latency={latency}", f"vision.extra.latency={latency}"],
    )
    with tempfile.TemporaryDirectory() as tmp:
        jobs, _ = plan_jobs([(recipe, folder)], trials=trials, out=Path(tmp), seed=0)
        start = time.perf_counter()
        run_jobs(jobs, workers=workers)
        return time.perf_counter() - start


def main() -> None:
    """Print both wall times and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per model call")
    parser.add_argument("--frames", type=int, default=80)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    one = wall(1, 1, args.latency, args.frames)
    eight = wall(8, args.workers, args.latency, args.frames)
    calls = args.frames // 2 * 2
    print(f"naive recipe, {args.frames} frames per trial ({calls} model calls of {args.latency * 1000:.0f} ms each)")
    print(f"1 trial,  1 worker      : {one:6.1f} s")
    print(f"8 trials, {args.workers} workers     : {eight:6.1f} s")
    print(f"ratio 8 trials / 1 trial: {eight / one:6.2f}  (target <= 1.5)")


if __name__ == "__main__":
    main()
