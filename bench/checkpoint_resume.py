"""Measure what a cut-off trial costs with checkpoints: a `doomagent run` killed (SIGKILL) at about 60% of
its decisions and resumed with `--resume`, against the same trial unbroken. Prints the provider requests
repeated (target: at most N decisions' worth, N = checkpoint_every) and in total, and checks that frames,
room frames, every logged decision and the demo's replayed positions equal the unbroken trial's.

    python bench/checkpoint_resume.py [--recipe plan] [--frames 1200] [--every 25] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from doomagent.env.config import EnvConfig
from doomagent.env.doom_env import DoomEnv
from doomagent.graph.checkpoint import load_checkpoint


def lines(path: Path) -> list[dict]:
    """Return a JSONL file's records."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def main() -> None:
    """Play unbroken, play killed and resumed, and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipe", default="plan")
    parser.add_argument("--frames", type=int, default=1200)
    parser.add_argument("--every", type=int, default=25, help="checkpoint_every")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "doomagent", "run", args.recipe, "--model", "test", "--vision-model", "test"]
    cli += ["--max-frames", str(args.frames), "--seed", str(args.seed), "--set", f"checkpoint_every={args.every}"]
    cli += ["--set", "agent.extra={latency: 0.005}"]
    with tempfile.TemporaryDirectory() as tmp:
        whole, cut = Path(tmp) / "whole", Path(tmp) / "cut"
        subprocess.run([*cli, "--out", str(whole)], check=True, capture_output=True)
        unbroken = whole / "trial-000"
        decisions = json.loads((unbroken / "summary.json").read_text())["decisions"]
        proc = subprocess.Popen([*cli, "--out", str(cut)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        trial = cut / "trial-000"
        while not (trial / "steps.jsonl").exists() or len(lines(trial / "steps.jsonl")) < decisions * 0.6:
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed_at = len(lines(trial / "steps.jsonl"))
        sent_before = len((trial / "calls.jsonl").read_text().splitlines())
        saved = load_checkpoint(trial)
        assert saved is not None
        kept = (trial / "calls.jsonl").read_bytes()[: saved.offsets["calls.jsonl"]].count(b"\n")
        subprocess.run([*cli, "--out", str(cut), "--resume"], check=True, capture_output=True)
        a, b = (json.loads((t / "summary.json").read_text()) for t in (unbroken, trial))
        same_steps = lines(unbroken / "steps.jsonl") == lines(trial / "steps.jsonl")
        env = DoomEnv(EnvConfig(map="E1M1"))
        at = {o.frame: (round(o.position[0], 2), round(o.position[1], 2)) for o in env.replay(trial / "episode.lmp")}
        env.close()
        off = sum(at.get(s["frame"]) != (s["x"], s["y"]) for s in lines(trial / "steps.jsonl"))
        unbroken_calls = len(lines(unbroken / "calls.jsonl"))
        total = sent_before + len(lines(trial / "calls.jsonl")) - kept
    per_decision = unbroken_calls / decisions
    print(f"{args.recipe}, seed {args.seed}, {decisions} decisions, checkpoint every {args.every} decisions")
    print(f"killed after decision {killed_at} ({killed_at / decisions:.0%}); last checkpoint at {saved.decision}")
    print(
        f"requests repeated: {sent_before - kept} (the cut-off {killed_at - saved.decision} decisions; "
        f"N decisions' worth = {args.every * per_decision:.0f})"
    )
    print(f"requests in all: {total} against {unbroken_calls} unbroken ({total / unbroken_calls:.3f}x)")
    print(
        f"frames {b['frames']} vs {a['frames']}; room frames equal: {a['room_frames'] == b['room_frames']}; "
        f"steps.jsonl equal: {same_steps}; replayed positions off: {off} of {decisions}"
    )


if __name__ == "__main__":
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    main()
