"""DoomEnv on the real engine: shapes, frame semantics, doors, outcomes, demos, room tracking."""

import math

import numpy as np
import pytest

from doomagent.env import Action, DoomEnv, EnvConfig
from doomagent.errors import ActionParseError, ConfigError, MapNotFoundError, WadNotFoundError
from doomagent.policies import ReferenceNavigator, RouteFollower


@pytest.fixture
def env():
    e = DoomEnv(cheats=True)
    yield e
    e.close()


@pytest.mark.engine
def test_reset_and_step_shapes(env):
    obs, info = env.reset(seed=0)
    assert obs.screen.shape == (400, 640, 3) and obs.screen.dtype == np.uint8
    assert obs.frame == 0 and obs.room == "A" and obs.sector == 140
    assert obs.hud.health == 100 and obs.hud.ammo["bullets"] == 50 and obs.hud.weapon == 2
    assert obs.position[:2] == (-416.0, 256.0)
    assert any(o.category == "Health" for o in obs.objects)
    assert info["outcome"] is None
    obs, reward, terminated, truncated, info = env.step("WAIT")
    assert obs.frame == 2 and info["frame"] == 2
    assert isinstance(reward, float) and not terminated and not truncated
    assert obs.encode_image("jpeg")[:2] == b"\xff\xd8"
    assert obs.data_url("png").startswith("data:image/png;base64,")


@pytest.mark.engine
def test_left_turns_and_up_walks(env):
    obs, _ = env.reset(seed=0)
    turned, *_ = env.step(Action.LEFT)
    assert turned.angle > obs.angle  # counter-clockwise
    assert turned.position == obs.position
    walked, *_ = env.step(Action.UP)
    walked, *_ = env.step(Action.WAIT)
    assert math.dist(walked.position[:2], obs.position[:2]) > 5


@pytest.mark.engine
def test_motion_is_held_three_frames_into_the_next_decision():
    held = DoomEnv(stuck_frames=10**6)
    short = DoomEnv(stuck_frames=10**6, motion_hold_frames=2)
    try:
        angles = []
        for e in (held, short):
            e.reset(seed=0)
            e.step(Action.LEFT)
            obs, *_ = e.step(Action.WAIT)
            angles.append(obs.angle)
        assert angles[0] == pytest.approx(angles[1] * 1.5, rel=0.01)
    finally:
        held.close()
        short.close()


@pytest.mark.engine
def test_unknown_action_is_a_typed_error(env):
    env.reset(seed=0)
    with pytest.raises(ActionParseError):
        env.step("JUMP")


@pytest.mark.engine
def test_god_mode_takes_no_damage_where_normal_play_does():
    """Two shotgun guys summoned in front of the player: they hurt it, unless env.god (reference-nav) is on."""
    lowest = {}
    for god in (False, True):
        play = DoomEnv(EnvConfig(map="E1M1", skill=3, cheats=True, god=god, max_frames=2000))
        try:
            play.reset(seed=1)
            play.step(Action.WAIT)
            play.send_command("summon ShotgunGuy")
            play.send_command("summon ShotgunGuy")
            healths = [play.step(Action.WAIT)[0].hud.health for _ in range(150)]
            lowest[god] = min(healths)
        finally:
            play.close()
    assert lowest[False] < 100 and lowest[True] == 100


@pytest.mark.engine
def test_kill_ends_with_death(env):
    env.reset(seed=0)
    env.send_command("kill")
    obs, _, terminated, truncated, info = env.step(Action.WAIT)
    assert info["outcome"] == "death" and terminated and not truncated
    assert obs.hud.health <= 0


@pytest.mark.engine
def test_standing_still_ends_stuck_after_1000_frames(env):
    env.reset(seed=0)
    info = {}
    for _ in range(600):
        *_, terminated, truncated, info = env.step(Action.WAIT)
        if terminated or truncated:
            break
    assert info["outcome"] == "stuck" and truncated and info["frame"] == 1000


@pytest.mark.engine
def test_frame_cap_truncates():
    e = DoomEnv(max_frames=10)
    try:
        e.reset(seed=0)
        outcomes = [e.step(Action.UP)[4]["outcome"] for _ in range(5)]
        assert outcomes == [None] * 4 + ["max_frames"]
    finally:
        e.close()


@pytest.mark.engine
def test_use_on_the_exit_switch_ends_with_exit(env):
    g = env.geometry
    line = g.exit_lines[0]
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    length = math.hypot(bx - ax, by - ay)
    nx, ny = (by - ay) / length, -(bx - ax) / length  # into the front sector
    mx, my = g.line_midpoint(line)
    env.reset(seed=0)
    env.send_command(f"warp {mx + 30 * nx} {my + 30 * ny}")
    obs, *_ = env.step(Action.WAIT)
    assert obs.room == "D"
    facing = math.degrees(math.atan2(-ny, -nx))
    for _ in range(80):
        off = (facing - obs.angle + 180) % 360 - 180
        if abs(off) < 5:
            break
        obs, *_ = env.step(Action.LEFT if off > 0 else Action.RIGHT)
    info = {}
    for _ in range(5):
        *_, terminated, _truncated, info = env.step(Action.USE)
        if terminated:
            break
    assert info["outcome"] == "exit" and terminated


def _face(env, obs, heading):
    for _ in range(80):
        off = (heading - obs.angle + 180) % 360 - 180
        if abs(off) < 4:
            return obs
        obs, *_ = env.step(Action.LEFT if off > 0 else Action.RIGHT)
    raise AssertionError("could not turn to the heading")


@pytest.mark.engine
def test_use_opens_the_first_door_from_the_start():
    e = DoomEnv(stuck_frames=10**6)
    try:
        g = e.geometry
        follower = RouteFollower.for_map(e.rooms)
        door_index = min(follower.door_points)
        door_point = follower.route.points[door_index]
        assert g.doors[next(s for s in follower.route.sectors if s in g.doors)].key is None
        obs, _ = e.reset(seed=0)
        # Walk the route to the first door without ever pressing USE.
        while math.dist(obs.position[:2], door_point) > 56:
            action = follower.act(obs)
            obs, *_ = e.step(Action.WAIT if action is Action.USE else action)
            assert obs.frame < 3000, "never reached the first door"
        heading = math.degrees(math.atan2(door_point[1] - obs.position[1], door_point[0] - obs.position[0]))
        obs = _face(e, obs, heading)
        for _ in range(20):
            obs, *_ = e.step(Action.UP)
        assert obs.room == "A" and obs.sector not in g.doors  # pressed against the shut door
        obs, *_ = e.step(Action.USE)
        for _ in range(25):
            obs, *_ = e.step(Action.WAIT)
        for _ in range(40):
            obs, *_ = e.step(Action.UP)
            if obs.room == "B":
                break
        assert obs.room == "B"
    finally:
        e.close()


@pytest.mark.engine
def test_recording_replays_to_identical_positions(tmp_path):
    demo = tmp_path / "ep.lmp"
    e = DoomEnv()
    follower = RouteFollower.for_map(e.rooms)
    obs, _ = e.reset(seed=7, options={"record": demo})
    played = {obs.frame: obs.position}
    for _ in range(200):
        obs, *_ = e.step(follower.act(obs))
        played[obs.frame] = obs.position
    e.close()
    replayer = DoomEnv()
    try:
        replayed = {o.frame: o.position for o in replayer.replay(demo)}
    finally:
        replayer.close()
    assert max(played) == 400
    assert all(replayed[f] == p for f, p in played.items())
    assert len({p for p in played.values()}) > 50  # the walk really moved


def _distance_to_lines_between(g, x, y, a, b):
    """Return the distance from (x, y) to the nearest line with sectors a and b on its two sides."""
    lines = [i for i in range(len(g.line_v)) if {int(g.line_front[i]), int(g.line_back[i])} == {a, b}]
    best = math.inf
    for i in lines:
        (ax, ay), (bx, by) = g.vertices[g.line_v[i]]
        dx, dy = bx - ax, by - ay
        t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / max(dx * dx + dy * dy, 1e-9)))
        best = min(best, math.hypot(ax + t * dx - x, ay + t * dy - y))
    return best


@pytest.mark.engine
def test_the_live_map_reports_heights_monsters_and_keys_picked_up():
    e = DoomEnv(EnvConfig(live_map=True, cheats=True))
    try:
        obs, _ = e.reset(seed=1)
        live = obs.live
        assert live is not None and live.keys == frozenset()
        assert np.array_equal(live.floors, e.geometry.sector_floor) and len(live.ceilings) == e.geometry.n_sectors
        assert any(name == "ShotgunGuy" for name, _x, _y in live.monsters)
        e.send_command("warp 2160 576")  # beside E1M1's blue keycard (2192, 576): the next step touches it
        for action in ("WAIT", "WAIT", "UP", "UP"):
            obs, *_ = e.step(action)
        assert obs.live is not None and obs.live.keys == frozenset({"blue"})
    finally:
        e.close()
    plain = DoomEnv()
    try:
        assert plain.reset(seed=1)[0].live is None  # not asked for: not paid for
    finally:
        plain.close()


@pytest.mark.engine
def test_room_tracker_agrees_with_the_engine_sector():
    e = DoomEnv(engine_objects=True, live_map=True)
    nav = ReferenceNavigator.for_map(e.rooms)
    try:
        obs, _ = e.reset(seed=3)
        seen_rooms = set()
        checked = 0
        for _ in range(900):
            engine = e.engine_player_sector()
            checked += 1
            if engine != obs.sector:
                # Only a player standing on the very line between the two sectors may differ: the
                # position reaches us rounded from the engine's fixed-point coordinates.
                x, y, _ = obs.position
                assert _distance_to_lines_between(e.geometry, x, y, engine, obs.sector) < 0.5, (obs.frame, x, y)
            else:
                assert e.rooms.room_of_sector(engine) in (obs.room, None)
            seen_rooms.add(obs.room)
            obs, _, terminated, truncated, _ = e.step(nav.act(obs))
            if terminated or truncated:
                break
    finally:
        e.close()
    assert checked > 500
    assert {"A", "B", "C"} <= seen_rooms


@pytest.mark.engine
def test_bad_inputs_give_typed_errors(tmp_path):
    with pytest.raises(WadNotFoundError):
        DoomEnv(wad=tmp_path / "doom.wad")
    with pytest.raises(MapNotFoundError):
        DoomEnv(map="E5M1")
    with pytest.raises(ConfigError, match="skill"):
        DoomEnv(skill=9)
    with pytest.raises(ConfigError, match="resolution"):
        DoomEnv(EnvConfig(), resolution="123x45")
    e = DoomEnv()
    try:
        with pytest.raises(ConfigError, match="unknown reset options"):
            e.reset(options={"recrod": "x.lmp"})
    finally:
        e.close()


@pytest.mark.engine
def test_reference_navigator_finishes_e1m1_on_skill_3():
    # One seed on the real engine; the 10-seed figure is in bench/reference_navigator.py.
    e = DoomEnv(skill=3, max_frames=6000, live_map=True)
    try:
        nav = ReferenceNavigator.for_map(e.rooms)
        obs, _ = e.reset(seed=1)
        while True:
            obs, _, terminated, truncated, info = e.step(nav.act(obs))
            if terminated or truncated:
                break
    finally:
        e.close()
    assert info["outcome"] == "exit"
    # Through A, B, C and D in that order; side trips between them are the walk's own (seed 1 steps into G, the
    # secret room off B, for its armor, since the walker no longer shuts the secret door by pressing it twice).
    rooms = iter(room for _, room in info["room_entries"])
    assert all(room in rooms for room in "ABCD")
    assert all(info["room_frames"][r] > 0 for r in "ABCD")


@pytest.mark.engine
def test_a_demo_in_a_deep_folder_is_recorded(tmp_path):
    """ViZDoom's new_episode(path) hangs for ever from 114 characters; a deep run folder must still record."""
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "trial-000" / "episode.lmp"
    assert len(str(deep)) > 150
    env = DoomEnv(EnvConfig(max_frames=20))
    try:
        env.reset(seed=0, options={"record": deep})
        for _ in range(5):
            env.step(Action.UP)
    finally:
        env.close()
    assert deep.is_file() and deep.stat().st_size > 0
