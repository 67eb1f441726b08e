"""Long trials survive: a trial cut off mid-way (killed, interrupted, its engine dead) goes on from its last
checkpoint, repeats at most N decisions' calls, and ends exactly as an unbroken trial does."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from doomagent import load_recipe, run_trial, stream_trial
from doomagent.env.config import EnvConfig
from doomagent.env.doom_env import DoomEnv
from doomagent.graph.checkpoint import load_checkpoint
from doomagent.rundir.plan import has_checkpoint

pytestmark = pytest.mark.engine
EVERY = 10
ARGS = ["--model", "test", "--vision-model", "test", "--max-frames", "600", "--set", f"checkpoint_every={EVERY}"]
SLOW = ["--set", "agent.extra={latency: 0.01}"]  # a little model time, so that a kill lands mid-trial


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _calls(folder: Path) -> list[dict]:
    return [{k: v for k, v in c.items() if k != "latency_s"} for c in _lines(folder / "calls.jsonl")]


def _same_trial(a: Path, b: Path) -> None:
    """Assert that two trial folders hold the same trial: summary, every decision, every call."""
    sa, sb = (json.loads((f / "summary.json").read_text()) for f in (a, b))
    for key in ("outcome", "frames", "decisions", "waits", "rooms_entered", "room_frames", "final_position"):
        assert sa[key] == sb[key], key
    assert sa["usage"]["agent"]["calls"] == sb["usage"]["agent"]["calls"]
    assert _lines(a / "steps.jsonl") == _lines(b / "steps.jsonl")
    assert _calls(a) == _calls(b)
    assert not (b / "checkpoint").exists()  # a finished trial drops its checkpoint


def _replay_matches_steps(trial: Path) -> int:
    """Replay the trial's demo and return how many logged decisions it puts somewhere else than logged."""
    env = DoomEnv(EnvConfig(map="E1M1"))
    try:
        at = {o.frame: (round(o.position[0], 2), round(o.position[1], 2)) for o in env.replay(trial / "episode.lmp")}
    finally:
        env.close()
    return sum(at.get(s["frame"]) != (s["x"], s["y"]) for s in _lines(trial / "steps.jsonl"))


def _kill_when(folder: Path, proc: subprocess.Popen, steps: int) -> int:
    """SIGKILL the process once `folder`'s steps.jsonl holds `steps` decisions; return the calls logged."""
    log = folder / "steps.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline:
        if log.exists() and log.read_text().count("\n") >= steps:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(30)
            return len((folder / "calls.jsonl").read_text().splitlines())
        assert proc.poll() is None, "the run ended before it could be killed"
        time.sleep(0.02)
    raise AssertionError("the run never got that far")


@pytest.mark.engine
def test_a_killed_run_resumes_from_its_checkpoint_as_if_never_stopped(tmp_path):
    cli = [sys.executable, "-m", "doomagent", "run", "plan", *ARGS]
    whole = tmp_path / "whole"
    subprocess.run([*cli, "--out", str(whole)], check=True, capture_output=True, timeout=300)
    unbroken = whole / "trial-000"
    decisions = json.loads((unbroken / "summary.json").read_text())["decisions"]

    cut = tmp_path / "cut"
    proc = subprocess.Popen([*cli, *SLOW, "--out", str(cut)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sent_before = _kill_when(cut / "trial-000", proc, int(decisions * 0.6))
    saved = load_checkpoint(cut / "trial-000")
    assert saved is not None and saved.decision % EVERY == 0
    at_checkpoint = _count_lines(cut / "trial-000", saved)
    repeated = sent_before - at_checkpoint
    per_decision = len(_calls(unbroken)) / decisions
    assert 0 <= repeated <= EVERY * per_decision + 1  # at most N decisions' calls (plus the Planner's)

    done = subprocess.run([*cli, *SLOW, "--out", str(cut), "--resume"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    _same_trial(unbroken, cut / "trial-000")
    assert json.loads((cut / "trial-000" / "summary.json").read_text())["resumes"] == 1
    assert _replay_matches_steps(cut / "trial-000") == 0  # the demo was re-recorded from tic 0: exact


def _count_lines(trial: Path, saved) -> int:
    """Return how many calls the checkpoint counts (calls.jsonl's length at the checkpoint, in lines)."""
    data = (trial / "calls.jsonl").read_bytes()[: saved.offsets["calls.jsonl"]]
    return data.count(b"\n")


@pytest.mark.engine
def test_an_interrupted_library_trial_resumes_with_its_models_state(tmp_path):
    # (plan, not k-levels: three Experts draw from one seeded test model in whatever order their threads run)
    recipe, _ = load_recipe("plan", model="test", vision_model="test", max_frames=400)
    recipe = recipe.model_copy(update={"checkpoint_every": 7})
    whole = run_trial(recipe, seed=3, out=tmp_path / "whole")

    stream = stream_trial(recipe, seed=3, out=tmp_path / "cut")
    for decision in stream:
        if decision.decision == 100:
            break
    stream.close()
    assert stream.result is not None and stream.result.outcome == "interrupted"
    saved = load_checkpoint(tmp_path / "cut")
    assert saved is not None and saved.decision == 98
    assert saved.models["agent"]["served"] > 0  # the seeded test model's generator travels too
    again = run_trial(recipe, seed=3, out=tmp_path / "cut", resume=True)
    assert again.frames == whole.frames and again.room_frames == whole.room_frames
    assert again.usage.totals.calls == whole.usage.totals.calls
    _same_trial(tmp_path / "whole", tmp_path / "cut")


@pytest.mark.engine
def test_without_resume_a_folder_with_a_checkpoint_starts_over(tmp_path):
    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=200)
    recipe = recipe.model_copy(update={"checkpoint_every": 5})
    stream = stream_trial(recipe, out=tmp_path)
    for decision in stream:
        if decision.decision == 20:
            break
    stream.close()
    assert has_checkpoint(tmp_path)
    fresh = run_trial(recipe, out=tmp_path)
    assert fresh.resumes == 0 and fresh.decisions == 100
    assert len(_lines(tmp_path / "steps.jsonl")) == 100


@pytest.mark.engine
def test_a_checkpoint_that_does_not_match_the_engine_is_refused(tmp_path):
    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=200)
    recipe = recipe.model_copy(update={"checkpoint_every": 5})
    stream = stream_trial(recipe, seed=1, out=tmp_path)
    for decision in stream:
        if decision.decision == 12:
            break
    stream.close()
    # The environment changed since: the logged inputs no longer lead to the checkpoint's position.
    changed = recipe.model_copy(update={"env": recipe.env.model_copy(update={"motion_hold_frames": 6})})
    result = run_trial(changed, seed=1, out=tmp_path, resume=True)
    assert result.outcome == "error" and result.error_kind == "engine"
    assert "not the checkpoint's" in (result.error or "")


@pytest.mark.engine
def test_a_killed_eval_resumes_its_trials_mid_way(tmp_path):
    cli = [sys.executable, "-m", "doomagent", "eval", "naive", *ARGS, "--trials", "2", "--workers", "2"]
    whole = tmp_path / "whole"
    subprocess.run([*cli, "--out", str(whole)], check=True, capture_output=True, timeout=300)
    cut = tmp_path / "cut"
    proc = subprocess.Popen([*cli, *SLOW, "--out", str(cut)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _kill_when(cut / "naive__test" / "trial-000", proc, 180)
    time.sleep(0.5)  # the workers notice the eval is gone
    assert any(has_checkpoint(t) for t in (cut / "naive__test").glob("trial-*"))
    done = subprocess.run([*cli, *SLOW, "--out", str(cut)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    resumed = 0
    for i in range(2):
        _same_trial(whole / "naive__test" / f"trial-{i:03d}", cut / "naive__test" / f"trial-{i:03d}")
        resumed += json.loads((cut / "naive__test" / f"trial-{i:03d}" / "summary.json").read_text())["resumes"]
    assert resumed >= 1
