"""Count how many seeds the reference navigator finishes freedoom1 E1M1 on skill 3, and how.

python bench/reference_navigator.py [--seeds 10] [--first 0] [--workers 2]
"""

from __future__ import annotations

import argparse
import collections
import tempfile
import time
from pathlib import Path

from doomagent.eval import plan_jobs, run_jobs
from doomagent.recipes import load_recipe


def main() -> None:
    """Play the seeds in worker processes and print outcomes, frames and rooms."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    recipe, folder = load_recipe("reference")
    with tempfile.TemporaryDirectory() as tmp:
        jobs, _ = plan_jobs([(recipe, folder)], trials=args.seeds, out=Path(tmp), seed=args.first)
        start = time.perf_counter()
        results = sorted(run_jobs(jobs, workers=args.workers), key=lambda r: r["seed"])
        took = time.perf_counter() - start
    for r in results:
        rooms = "".join(e["room"] for e in r["rooms_entered"])
        print(f"seed {r['seed']:3d}: {r['outcome']:<10} {r['frames']:5d} frames  rooms {rooms}")
    outcomes = collections.Counter(r["outcome"] for r in results)
    exits = [r["frames"] for r in results if r["outcome"] == "exit"]
    mean = f", mean {sum(exits) / len(exits):.0f} frames to the exit" if exits else ""
    print(
        f"finished {outcomes['exit']}/{len(results)} ({dict(outcomes)}){mean}; {took:.0f} s on {args.workers} workers"
    )
    print("target: at least 9 of 10")


if __name__ == "__main__":
    main()
