"""Aiming: `AIM k` turns the player so that column k of the grid drawn on the model's image is straight ahead,
exactly (the engine's field of view), and the grid is on the model's image only."""

import math

import numpy as np
import pytest
from helpers import VISION

from doomagent import DoomEnv, FakeEnv, ScriptedModel, load_recipe, run_trial
from doomagent.answers.decisions import parse_decision
from doomagent.answers.tools import read_tool_calls
from doomagent.env.actions import Action, Aim
from doomagent.env.config import EnvConfig
from doomagent.errors import ActionParseError
from doomagent.providers.base import ToolCall

WIDTH, COLUMNS = 640, 8


def _zombie(obs, config):
    """Return the monster's bearing (degrees, positive left) and where it stands on screen (its position
    projected with the engine's field of view), or None when out of view. (Its label box is not used for the
    position: a sprite's box is offset from where it stands, more so towards the screen's edges.)"""
    found = [o for o in obs.objects if o.name == "Zombieman"]
    if not found:
        return None
    half = math.tan(math.radians(config.hfov / 2))
    return found[0].bearing, WIDTH / 2 - WIDTH / 2 * math.tan(math.radians(found[0].bearing)) / half


@pytest.mark.engine
def test_aim_puts_the_monster_of_a_column_on_the_screen_centre():
    env = DoomEnv(map="E1M1", grid=COLUMNS, cheats=True, objects=True)
    env.reset(seed=1)
    env.send_command("summon Zombieman")
    env.step("WAIT")
    env.send_command("freeze")  # the monster stands still; the player still moves
    for action in ["DOWN"] * 4 + ["WAIT"] * 12:  # back off, then let the player (nearly) stop sliding
        obs, *_ = env.step(action)
    width = WIDTH / COLUMNS
    seen = 0
    # look away (aims to outer columns put it near the edges, turns put it off its column's centre), aim back
    for away in ("AIM 1", "LEFT", "AIM 8", "RIGHT", "AIM 2", "RIGHT", "AIM 7", "LEFT"):
        env.step(away)
        obs, *_ = env.step("WAIT")
        before = _zombie(obs, env.config)
        if before is None or not 0 <= before[1] < WIDTH:
            continue
        k = int(before[1] // width) + 1
        after = _zombie(env.step(f"AIM {k}")[0], env.config)
        assert after is not None
        # the turn is exact (the player's last slide moves it by hundredths of a degree)
        assert after[0] == pytest.approx(before[0] + env.config.aim_angle(k), abs=0.2), (away, before, k, after)
        assert abs(after[1] - WIDTH / 2) <= width / 2  # within half a column of the screen's centre
        seen += 1
    env.close()
    assert seen >= 6


def test_aim_angles_follow_the_field_of_view():
    config = EnvConfig(grid=8)
    assert config.hfov == pytest.approx(100.389, abs=0.01)  # 90 degrees at 4:3, wider at 16:10
    assert EnvConfig(resolution="640X480").hfov == pytest.approx(90.0)
    angles = [config.aim_angle(k) for k in range(1, 9)]
    assert angles == sorted(angles) and angles[3] == pytest.approx(-angles[4])
    assert angles[7] < config.hfov / 2


def test_aim_turns_the_fake_player_and_off_the_grid_it_is_refused():
    env = FakeEnv(map="E1M1", grid=8)
    obs, _ = env.reset()
    after, *_ = env.step("AIM 2")  # left of centre: a left turn (angles grow counter-clockwise)
    assert (after.angle - obs.angle) % 360 == pytest.approx(-EnvConfig(grid=8).aim_angle(2), abs=1e-6)
    with pytest.raises(ActionParseError, match="columns"):
        env.step("AIM 9")
    no_grid = FakeEnv(map="E1M1")
    no_grid.reset()
    with pytest.raises(ActionParseError, match=r"env\.grid"):
        no_grid.step("AIM 1")


def test_aim_answers_in_text_json_and_tools():
    assert parse_decision("ACTION: AIM 3\nREASON: the imp", aim=8) == (Aim(3), "the imp")
    assert parse_decision('{"action": "AIM 5", "reason": "x"}', aim=8)[0] == Aim(5)
    assert parse_decision("aim #2", aim=8)[0] == Aim(2)
    assert parse_decision("ACTION: FIRE", aim=8)[0] is Action.FIRE
    for text, aim in (("ACTION: AIM 3", 0), ("ACTION: AIM 9", 8)):
        with pytest.raises(ActionParseError):
            parse_decision(text, aim=aim)
    call = ToolCall("aim", {"column": 4, "reason": "imp"})
    assert read_tool_calls([call], aim=8).action == Aim(4)
    with pytest.raises(ActionParseError, match="different"):
        read_tool_calls([call, ToolCall("press", {"key": "FIRE", "reason": "x"})], aim=8)


def test_the_grid_is_drawn_on_the_models_image_only(tmp_path):
    recipe, folder = load_recipe("walkthrough", max_frames=6, overrides=["env.grid=8"])
    vision = ScriptedModel([VISION])
    agent = ScriptedModel(["ACTION: AIM 2\nREASON: the imp", "ACTION: FIRE"])
    result = run_trial(recipe, models={"vision": vision, "agent": agent}, recipe_dir=folder, make_env=FakeEnv)
    assert result.waits == 0
    shot = vision.calls[0].messages[0]["content"][1]["image"].pixels
    plain = FakeEnv(map="E1M1").reset()[0].screen
    yellow = np.all(shot == (255, 255, 0), axis=-1)
    assert yellow[:, 80].mean() > 0.9 and not np.all(plain == (255, 255, 0), axis=-1).any()
    assert "AIM 1 to AIM 8" in agent.calls[0].text() and "8 numbered columns" in vision.calls[0].text()
