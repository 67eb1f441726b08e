"""The real-time protocol: the game runs while the model thinks (fixed-latency test models: deterministic)."""

import itertools
import json

import pytest

from doomagent import load_recipe, run_trial
from doomagent.eval.report import write_report

pytestmark = pytest.mark.engine


def _recipe(latency: float, *more: str):
    sets = [f"{role}.extra={{latency: {latency}, sleep: false}}" for role in ("vision", "agent")]
    recipe, _ = load_recipe("naive", model="test", vision_model="test", max_frames=700, overrides=[*sets, *more])
    return recipe


@pytest.mark.engine
@pytest.mark.parametrize(("latency", "per_decision"), [(0.0, 2), (0.5, 35), (2.0, 140)])
def test_a_decision_lasts_the_frames_its_model_time_is_worth(tmp_path, latency, per_decision):
    result = run_trial(_recipe(latency, "env.realtime=true"), seed=1, out=tmp_path)
    steps = [json.loads(line) for line in (tmp_path / "steps.jsonl").read_text().splitlines()]
    # Two calls per decision (Vision and Agent) at `latency` s each, at 35 tics/s; never fewer than 2 tics.
    assert {s["lag"] for s in steps[:-1]} == {per_decision - 2}
    assert [b["frame"] - a["frame"] for a, b in itertools.pairwise(steps)] == [per_decision] * (len(steps) - 1)
    assert result.wait_frames == sum(s["lag"] for s in steps)
    assert json.loads((tmp_path / "summary.json").read_text())["wait_frames"] == result.wait_frames


@pytest.mark.engine
def test_with_no_model_time_real_time_plays_as_the_paused_protocol(tmp_path):
    paused = run_trial(_recipe(0.0), seed=2, out=tmp_path / "paused")
    live = run_trial(_recipe(0.0, "env.realtime=true"), seed=2, out=tmp_path / "live")
    assert (live.frames, live.room_frames) == (paused.frames, paused.room_frames)
    assert live.final_position == paused.final_position
    assert live.wait_frames == 0


@pytest.mark.engine
def test_holding_the_last_motion_key_while_waiting_moves_the_player_further(tmp_path):
    held = run_trial(_recipe(0.5, "env.realtime=true"), seed=3)
    idle = run_trial(_recipe(0.5, "env.realtime=true", "env.realtime_hold=false"), seed=3)
    assert held.path_length > idle.path_length * 1.5


@pytest.mark.engine
def test_the_report_says_how_many_frames_went_by_waiting(tmp_path):
    run_trial(_recipe(0.5, "env.realtime=true"), seed=1, out=tmp_path / "runs" / "trial-000")
    (tmp_path / "runs" / "recipe.json").write_text(json.dumps(_recipe(0.5, "env.realtime=true").public_dict()))
    write_report([tmp_path / "runs"], tmp_path / "report")
    text = (tmp_path / "report" / "report.md").read_text()
    assert "Real-time protocol" in text and "waiting for its model" in text
