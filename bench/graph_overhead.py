"""Measure decisions/s of the full agent graph with zero-latency scripted models against the bare
environment at the same settings, in the same run.

Both rates are steady-state (engine start and room building left out). The graph runs the k-levels
recipe (Vision every decision, Planner every 30 frames, 3 Experts every 60, Agent, WAIT fallback,
Act), so the figure includes prompt rendering, history clipping, parsing, call logging and
LangGraph's own per-step cost. Screenshots travel to models unencoded and the LiteLLM adapter
encodes them (about 1.3 ms per 640x400 JPEG here), so scripted models do not pay for JPEG. The
baseline steps DoomEnv with the same actions.

With `--watch` the graph also runs as `doomagent run` does — writing its folder (logs, prompts,
checkpoints, live screen) — while `doomagent watch` serves that folder to a poller that asks for the
trial and its screen each time the server would announce a change (twice a second), as an open
trial page does.

    python bench/graph_overhead.py [--frames 2000] [--rounds 3] [--recipe k-levels] [--watch]
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from doomagent.env import DoomEnv
from doomagent.graph import run_trial
from doomagent.graph.runner import write_recipe
from doomagent.providers import ScriptedModel
from doomagent.recipes import load_recipe
from doomagent.watch import app as watch_app

VISION = '{"room": "a long hall", "enemies": [], "items": [], "hazards": [], "hud": ["health 100%", "ammo 50"]}'
MOVES = [
    "ACTION: UP\nREASON: onward",
    "ACTION: LEFT\nREASON: turn",
    "ACTION: UP\nREASON: onward",
    "ACTION: RIGHT\nREASON: turn",
    "ACTION: USE\nREASON: door",
]


def models() -> dict[str, ScriptedModel]:
    """Return zero-latency scripted models for every role; like real models they keep no requests (a kept
    request holds its screenshot: 768 KB a decision, and fresh memory for every screen the engine copies)."""
    agent_moves = iter(range(10**9))
    return {
        "vision": ScriptedModel([VISION], keep_calls=0),
        "planner": ScriptedModel(["1. Walk east.\n2. Open the door."], keep_calls=0),
        "experts": ScriptedModel(["ACTION: UP\nREASON: onward"], keep_calls=0),
        "agent": ScriptedModel(lambda request: MOVES[next(agent_moves) % len(MOVES)], keep_calls=0),
    }


def graph_rate(recipe_name: str, frames: int, *, folder: bool = False, watch: bool = False) -> tuple[float, int]:
    """Return steady decisions/s of the whole graph over one trial (setup excluded), and its decisions:
    in memory, or writing its folder as `doomagent run` does (and watched by `doomagent watch`)."""
    recipe, _ = load_recipe(recipe_name, max_frames=frames, overrides=["env.stuck_frames=1000000000"])
    stamps: list[float] = []
    if not folder:
        result = run_trial(recipe, models=models(), on_progress=lambda p: stamps.append(time.perf_counter()))
        return (len(stamps) - 1) / (stamps[-1] - stamps[0]), result.decisions
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_recipe(recipe, root)
        (root / "trial-000").mkdir()
        stop = threading.Event()
        watcher = threading.Thread(target=_watch, args=(root, stop), daemon=True)
        if watch:
            watcher.start()
        try:
            out = root / "trial-000"
            result = run_trial(
                recipe, models=models(), out=out, on_progress=lambda p: stamps.append(time.perf_counter())
            )
        finally:
            stop.set()
            if watch:
                watcher.join()
    return (len(stamps) - 1) / (stamps[-1] - stamps[0]), result.decisions


def _watch(folder: Path, stop: threading.Event) -> None:
    """Serve `folder` with `doomagent watch` (its own process) and poll it like an open tab until `stop`."""
    server = subprocess.Popen(
        [sys.executable, "-m", "doomagent", "watch", str(folder), "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split(" at ", 1)[1].split()[0]
        while not stop.is_set():  # what an open trial page asks for on each change the server announces
            for path in ("api/trial/trial-000", "api/screen/trial-000"):
                with contextlib.suppress(OSError):  # the screen is not written yet
                    urllib.request.urlopen(url + path, timeout=5).read()
            time.sleep(watch_app.POLL_S)
    finally:
        server.terminate()
        server.wait()


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
    """Print the rates and their ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--recipe", default="k-levels")
    parser.add_argument("--watch", action="store_true", help="also write the trial's folder, and watch it (see above)")
    args = parser.parse_args()
    graph_rate(args.recipe, 20)  # warm imports and caches
    modes = {"in memory": {}, "writing its folder": {"folder": True}}
    if args.watch:
        modes["writing its folder, watched"] = {"folder": True, "watch": True}
    envs: list[float] = []
    graphs: dict[str, list[float]] = {mode: [] for mode in modes}
    for _ in range(args.rounds):
        for mode, how in modes.items():
            rate, decisions = graph_rate(args.recipe, args.frames, **how)
            graphs[mode].append(rate)
        envs.append(env_rate(args.recipe, args.frames, decisions))
    env = max(envs)
    print(f"recipe {args.recipe}, up to {args.frames} frames per trial ({decisions} decisions), best of {args.rounds}")
    print(f"DoomEnv.step alone            : {env:8.1f} decisions/s  ({', '.join(f'{r:.1f}' for r in envs)})")
    for mode, rates in graphs.items():
        best = max(rates)
        each = ", ".join(f"{r:.1f}" for r in rates)
        print(f"graph {mode:<24}: {best:8.1f} decisions/s  ({each})  ratio {best / env:.3f}")
    print("target: in memory >= 0.65, writing its folder >= 0.6")


if __name__ == "__main__":
    main()
