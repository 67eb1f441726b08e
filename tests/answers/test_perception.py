"""Engine-grounded perception and the Vision audit, on the real engine."""

import dataclasses
import json
import math

import pytest

from doomagent.answers.perception import audit, engine_report, live_enemies
from doomagent.answers.schemas import VisionReport
from doomagent.env import DoomEnv
from doomagent.graph import run_trial
from doomagent.providers import ScriptedModel
from doomagent.recipes import load_recipe


@pytest.fixture(scope="module")
def views():
    """Return (room map, an observation with no enemy in view, one with a zombieman in view)."""
    env = DoomEnv()
    try:
        quiet, _ = env.reset(seed=0)
        obs = quiet
        while not live_enemies(obs):
            obs, *_ = env.step("UP")
            assert obs.frame < 400
        return env.rooms, quiet, obs
    finally:
        env.close()


def test_engine_report_lists_what_the_engine_sees(views):
    rooms, quiet, busy = views
    report = engine_report(busy, rooms)
    (zombie,) = live_enemies(busy)
    assert report.enemies == [f"Zombieman slightly left {zombie.distance:.0f}"]  # a few degrees off the crosshair
    assert 0 < zombie.bearing < 15 and zombie.box[0] + zombie.box[2] < busy.screen.shape[1] / 2
    centred = dataclasses.replace(zombie, box=(300, 200, 40, 60))  # the crosshair column crosses it
    assert engine_report(dataclasses.replace(busy, objects=(centred,)), rooms).enemies[0].startswith("Zombieman ahead")
    assert report.room.startswith("room A")
    assert "health 100%" in report.hud
    assert engine_report(quiet, rooms).enemies == []
    assert any(item.startswith("HealthBonus") for item in engine_report(quiet, rooms).items)


def test_audit_flags_a_made_up_enemy_and_a_wrong_health(views):
    rooms, quiet, busy = views
    wrong = VisionReport(room="a hall", enemies=["an imp on the left"], hud=["health 55%", "ammo 50"])
    scored = audit(wrong, quiet, rooms)
    assert scored["enemies"] == "false_claim" and scored["health"] == "wrong" and scored["hallucinated"]
    right = VisionReport(room="a hall", enemies=[], hud=["Health: 100%", "ammo 50"])
    scored = audit(right, quiet, rooms)
    assert scored == {**scored, "enemies": "ok", "health": "ok", "ammo": "ok", "hallucinated": False}
    missed = audit(right, busy, rooms)  # not seeing a real enemy is a miss, not a hallucination
    assert missed["enemies"] == "missed" and not missed["hallucinated"]


@pytest.mark.engine
def test_engine_perception_feeds_the_agent_without_a_vision_model(tmp_path):
    recipe, _ = load_recipe("naive", max_frames=140, overrides=["perception=engine"])
    agent = ScriptedModel(["ACTION: UP\nREASON: onward"])
    result = run_trial(recipe, models={"agent": agent}, out=tmp_path)
    assert result.decisions == 70
    prompts = [c.text() for c in agent.calls]
    assert any("ENEMIES: Zombieman ahead" in p for p in prompts)
    assert all("ROOM: room A, facing " in p for p in prompts)
    assert (tmp_path / "calls.jsonl").read_text().count('"role": "vision"') == 0


@pytest.mark.engine
def test_model_vision_is_audited_per_call(tmp_path):
    claims_imp = '{"room": "a hall", "enemies": ["imp"], "items": [], "hazards": [], "hud": ["health 100%"]}'
    recipe, _ = load_recipe("naive", max_frames=20, overrides=["perception=hybrid"])
    agent = ScriptedModel(["ACTION: WAIT\nREASON: look"])
    result = run_trial(recipe, models={"vision": ScriptedModel([claims_imp]), "agent": agent}, out=tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (result.audit.calls, result.audit.hallucinated) == (10, 10)
    assert summary["vision_audit"]["hallucination_rate"] == 1.0
    lines = [json.loads(x) for x in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert len(lines) == 10 and all(x["enemies"] == "false_claim" for x in lines)
    assert "ENGINE FACTS:" in agent.calls[0].text()  # hybrid: the model's words plus the engine's


def test_perception_needs_a_vision_role_unless_engine():
    from doomagent.errors import ConfigError

    with pytest.raises(ConfigError, match=r"needs roles\.vision"):
        load_recipe("naive", overrides=["roles.vision=null"])
    recipe, _ = load_recipe("naive", overrides=["roles.vision=null", "perception=engine"])
    assert recipe.roles.vision is None


def test_a_recipe_may_say_vision_engine_for_perception(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("name: mine\nstrategy: naive\nvision: engine\nroles: {agent: {model: test}}\n")
    recipe, _ = load_recipe(path)
    assert recipe.perception == "engine" and recipe.roles.vision is None


@pytest.mark.engine
def test_report_shows_the_hallucination_rate(tmp_path):
    from typer.testing import CliRunner

    from doomagent.cli import app

    runner = CliRunner()
    claims_imp = '{"room": "a hall", "enemies": ["imp"], "items": [], "hazards": [], "hud": ["health 100%"]}'
    recipe, _ = load_recipe("naive", max_frames=8)
    run_trial(
        recipe,
        models={"vision": ScriptedModel([claims_imp]), "agent": ScriptedModel(["UP"])},
        out=tmp_path / "run" / "trial-000",
    )
    (tmp_path / "run" / "recipe.json").write_text(json.dumps(recipe.public_dict()))
    result = runner.invoke(app, ["report", str(tmp_path / "run"), "--reference-trials", "0"])
    assert result.exit_code == 0, result.output
    md = (tmp_path / "run" / "report" / "report.md").read_text()
    assert "| naive (gpt-4o) | 4 | 4 | 100.0% |" in md


def test_engine_report_names_the_exit_switch_in_view_from_the_map(views):
    rooms, quiet, _ = views
    g = rooms.geometry
    line = g.exit_lines[0]
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]].tolist()
    mx, my = g.line_midpoint(line)
    length = math.hypot(bx - ax, by - ay)
    nx, ny = (by - ay) / length, -(bx - ax) / length  # towards the line's front side, where the player stands
    facing = math.degrees(math.atan2(-ny, -nx))
    here = dataclasses.replace(quiet, position=(mx + 120 * nx, my + 120 * ny, 0.0), angle=facing, objects=())
    assert engine_report(here, rooms).items == ["exit switch ahead 120"]
    away = dataclasses.replace(here, angle=facing + 180)
    assert engine_report(away, rooms).items == []
