"""Measure 8 latency-bound trials on a 2-node local Ray cluster against the same 8 on local worker
processes, in one run: the ratio of wall times (target <= 1.2) and what starting Ray costs.

Every call of the seeded test model sleeps `--latency` seconds (100 ms), as a remote API keeps a trial
waiting. The cluster is a real one (`ray.cluster_utils.Cluster`: a head and a second node, each its own
raylet), with as many CPUs in all as the local run has workers; trials travel to the nodes and their
folders come back to the driver, as on machines that share no file system.

Ray's cost is mostly fixed: starting 8 fresh worker processes that import doomagent, LangGraph and ViZDoom
at once (7-8 s on a 2-core machine where both nodes share the cores). Measured here: 1.25 with 200-frame
trials (20 s of model time each), 1.14 with 400, 1.08 with 800; real trials last hours.

    python bench/ray_trials.py [--latency 0.1] [--frames 400] [--workers 8]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from doomagent.eval import plan_jobs
from doomagent.eval.runner import run_eval
from doomagent.recipes import load_recipe


def jobs(out: Path, latency: float, frames: int) -> list:
    """Return 8 trials of the naive recipe with a test model that takes `latency` s per call."""
    recipe, folder = load_recipe(
        "naive",
        model="test",
        vision_model="test",
        max_frames=frames,
        overrides=[f"agent.extra.latency={latency}", f"vision.extra.latency={latency}"],
    )
    return plan_jobs([(recipe, folder)], trials=8, out=out, seed=0)[0]


def main() -> None:
    """Print both wall times, their ratio, and the cluster's startup cost."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per model call")
    parser.add_argument("--frames", type=int, default=400)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    from ray.cluster_utils import Cluster

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        run_eval(jobs(root / "local", args.latency, args.frames), workers=args.workers)
        local = time.perf_counter() - start

        start = time.perf_counter()
        half = args.workers // 2
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": half, "include_dashboard": False})
        cluster.add_node(num_cpus=args.workers - half)
        cluster.wait_for_nodes()
        started = time.perf_counter() - start
        try:
            start = time.perf_counter()
            result = run_eval(
                jobs(root / "ray", args.latency, args.frames),
                workers=args.workers,
                backend="ray",
                address=cluster.address,
            )
            on_ray = time.perf_counter() - start
        finally:
            cluster.shutdown()
        assert len(result.summaries) == 8 and all(s["outcome"] == "max_frames" for s in result.summaries)
    calls = args.frames // 2 * 2
    print(f"naive recipe, 8 trials of {args.frames} frames ({calls} calls of {args.latency * 1000:.0f} ms each)")
    print(f"local workers ({args.workers})           : {local:6.1f} s")
    print(f"Ray, 2 nodes ({args.workers} CPUs), eval    : {on_ray:6.1f} s  (connects, ships, plays, brings back)")
    print(f"ratio Ray / local                : {on_ray / local:6.2f}  (target <= 1.2)")
    print(f"starting the 2-node cluster      : {started:6.1f} s  (not in the eval's time)")


if __name__ == "__main__":
    main()
