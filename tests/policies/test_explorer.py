"""The explorer on the real engine: it takes the exit when the way is open, does first what opens the way to it, rides
a lift down and walks on, and says what it needs when the environment does not report the live map."""

from __future__ import annotations

import numpy as np
import pytest

from doomagent.env import DoomEnv, EnvConfig
from doomagent.env.observation import Hud, LiveMap, Observation
from doomagent.errors import ConfigError
from doomagent.policies import ReferenceNavigator
from doomagent.policies.explorer import MIN_GAIN, Explorer


def _play(wad: str, name: str, *, frames: int, seed: int = 7) -> tuple[ReferenceNavigator, dict]:
    env = DoomEnv(EnvConfig(wad=wad, map=name, god=True, live_map=True, max_frames=frames))
    try:
        nav = ReferenceNavigator.for_map(env.rooms, god=True)
        obs, _ = env.reset(seed=seed)
        info: dict = {}
        while True:
            obs, _, terminated, truncated, info = env.step(nav.act(obs))
            if terminated or truncated:
                return nav, info
    finally:
        env.close()


@pytest.mark.engine
def test_the_trigger_that_opens_the_way_goes_before_the_exit():
    # freedoom1 E3M1: the exit lies past a floor a trigger line lowers; nothing else is needed.
    nav, info = _play("freedoom1.wad", "E3M1", frames=8000)
    assert info["outcome"] == "exit"
    choices = [line for line in nav.explorer.log if ": go for " in line]
    assert "trigger line" in choices[0] and "the exit" in choices[-1]


@pytest.mark.engine
def test_a_lift_is_ridden_and_the_map_finished():
    # freedoom2 MAP04: a 128-unit round lift, lowered by a trigger line crossed on it, is the only way down.
    nav, info = _play("freedoom2.wad", "MAP04", frames=20000)
    assert info["outcome"] == "exit", nav.explorer.log[-10:]
    assert any("set its sectors moving" in line and "lift" in line for line in nav.explorer.log)


@pytest.mark.slow
def test_without_the_live_map_it_says_which_setting_it_needs(e1m1_rooms):
    explorer = Explorer.for_map(e1m1_rooms)
    hud = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))
    obs = Observation(np.zeros((4, 4, 3), np.uint8), hud, (-416.0, 256.0, 0.0), 0.0, 0, "A", 140, (), False)
    with pytest.raises(ConfigError, match="live map") as caught:
        explorer.act(obs)
    assert "live_map=True" in (caught.value.hint or "")


@pytest.mark.engine
def test_a_straight_walk_cuts_no_corner_the_player_would_catch_on():
    # freedoom1 E1M6: at (-2176, 1264) the player stands on the line between sectors 53 and 272, 16 units east of
    # the wall; a 45-degree wall (line 746) begins 16 units north of it. The cells north are clear of it, the player
    # (half a cell off their centres) is not: the engine stops it dead, and the walk stood there 6,000 frames.
    from doomagent.env.actions import Action
    from doomagent.policies._explore_walk import Walker
    from doomagent.policies._livegrid import LiveGrid

    e = DoomEnv(EnvConfig(wad="freedoom1.wad", map="E1M6", live_map=True, cheats=True, god=True))
    try:
        obs, _ = e.reset(seed=1)
        e.send_command("warp -2176 1264")
        obs, *_ = e.step(Action.WAIT)
        for _ in range(80):
            off = (90.0 - obs.angle + 180) % 360 - 180
            if abs(off) < 5:
                break
            obs, *_ = e.step(Action.LEFT if off > 0 else Action.RIGHT)
        start = obs.position
        for _ in range(10):
            obs, *_ = e.step(Action.UP)
        assert abs(obs.position[1] - start[1]) < 4  # north: caught on the corner
        walker = Walker(e.rooms, LiveGrid(e.rooms), lambda _text: None)
        assert obs.live is not None
        walker.walk = walker.live_grid.build(obs.live.floors, obs.live.ceilings, obs.live.keys)
        here = (start[0], start[1])
        assert not walker.clear(here, (start[0] + 8, start[1] + 136))
        assert not walker.clear(here, (start[0] + 56, start[1] + 40))
        assert walker.clear(here, (start[0] + 76, start[1]))  # east, along the open floor
    finally:
        e.close()


@pytest.mark.engine
def test_a_lift_ridden_before_is_taken_back_to_what_is_left_to_try():
    # freedoom1 E1M3: the blue key lies past the tag-10 lift; with it held, everything within reach is done and
    # the way on is that lift back down, used twice already, so it opens no new ground of its own: what is left to
    # try on its other side makes it worth the walk (the walk had circled the key's area to the frame cap). Since
    # 0.7.23 the lift network's way to the plan's next step takes it back at once (it exits at about 7,600 frames
    # where it took about 14,000).
    nav, info = _play("freedoom1.wad", "E1M3", frames=20000, seed=6000)  # the suite's cap
    assert info["outcome"] == "exit", nav.explorer.log[-10:]
    log = nav.explorer.log
    key = next(i for i, line in enumerate(log) if "picked up the blue keycard" in line)
    back = ("the way to what is", "the lift network's way")
    assert any("trigger line (tag 10)" in line and any(b in line for b in back) for line in log[key:]), log[key:]


@pytest.mark.engine
@pytest.mark.timeout(600)  # 20,000 frames of play with a live grid rebuilt as floors move: about 250 s on 2 cores
def test_what_a_lift_brought_the_walk_to_is_done_before_the_lift_is_ridden_back():
    # freedoom1 E1M7: the tag-4 lift's trigger brings the walk down to the tag-7 switch. The lift's own switch, nearer,
    # claimed what was left up top and the trigger claimed the tag-7 switch again: the lift was ridden to and fro
    # five times and the switch pressed only at about 14,000 frames. It is pressed on the trip down that was taken
    # for it. Since 0.7.13 the plan's next step (the tag-13 lift across the map), once the tag-9 door opens, breaks
    # off the walk chosen while it was out of reach. The walk exited at about 18,400 frames on 0.7.13 to 0.7.22; on
    # 0.7.23 (switches pressed only once the use would strike them) its timing changes from frame 2,600 on and it
    # runs to the cap with the blue and yellow keycards taken (the exit is not asserted any more).
    nav, _info = _play("freedoom1.wad", "E1M7", frames=20000, seed=8000)
    log = nav.explorer.log
    assert any("picked up the blue keycard" in line for line in log), log[-10:]
    pressed = next(i for i, line in enumerate(log) if "switch (tag 7) that moves a floor set its sectors" in line)
    rides = [i for i, line in enumerate(log[:pressed]) if "trigger line (tag 4) that lowers a lift set its" in line]
    assert 1 <= len(rides) <= 3, log[:pressed]
    chosen = max(i for i, line in enumerate(log[:pressed]) if "go for switch (tag 7)" in line)
    assert "what the way here was taken for" in log[chosen] and "rode the lift down" in log[chosen - 1], log[:pressed]
    assert not any("rode the lift" in line for line in log[chosen:pressed])  # pressed before any ride back
    assert any("switch (tag 13) that lowers a lift came within reach" in line for line in log[:pressed]), log[:pressed]


@pytest.mark.engine
@pytest.mark.timeout(600)  # about 14,000 frames of play: about 90 s on 2 cores
def test_a_way_two_lifts_long_takes_the_walk_to_the_exit():
    # freedoom1 E1M9: the exit lies past the tag-5 lift, walked across while it is down (riding it up leads
    # elsewhere), and the tag-23 lift, ridden up; the what-ifs look one ride ahead and never saw it, and the walk ran
    # to the cap on every seed tried. Also the tag-22 switch: pressed from the alcove's mouth beside it, facing along
    # the wall, the use missed it three times; the walk now steps out in front of it first.
    nav, info = _play("freedoom1.wad", "E1M9", frames=16000, seed=8011)
    log = nav.explorer.log
    assert info["outcome"] == "exit", log[-10:]
    assert not any("switch (tag 22)" in line and "nothing moved" in line for line in log), log[:10]
    assert any("walk across the lift of switch (tag 5)" in line for line in log), log
    assert any("the lift network's way to the exit switch" in line for line in log), log


@pytest.mark.slow
def test_a_spot_kept_too_long_is_moved_off(e1m1_rooms):
    # Sidesteps in a long fight that always come back, or a wait that never ends: after RELOCATE_AFTER decisions
    # within the engine's 32-unit stuck radius, the navigator steps one safe way for a few steps.
    from doomagent.env.actions import Action
    from doomagent.policies.reference import RELOCATE_AFTER, RELOCATE_STEPS

    nav = ReferenceNavigator.for_map(e1m1_rooms)
    g = e1m1_rooms.geometry
    nav.explorer._update(LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset()))
    hud = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))
    obs = Observation(np.zeros((4, 4, 3), np.uint8), hud, (-416.0, 256.0, 0.0), 0.0, 0, "A", 140, (), False)
    moves = []
    for _ in range(RELOCATE_AFTER + RELOCATE_STEPS + 2):
        nav._decisions += 1
        moves.append(nav._move_off(obs))
    assert all(m is None for m in moves[:RELOCATE_AFTER])
    steps = [m for m in moves if m is not None]
    assert len(steps) == RELOCATE_STEPS and len(set(steps)) == 1
    assert steps[0] in (Action.STRAFE_LEFT, Action.STRAFE_RIGHT, Action.DOWN, Action.UP)
    x, y, _ = obs.position
    heading = {Action.STRAFE_LEFT: 90.0, Action.STRAFE_RIGHT: -90.0, Action.DOWN: 180.0, Action.UP: 0.0}[steps[0]]
    assert nav._safe(obs, heading)
    moved = (x + 40.0, y, 0.0)  # once it has moved off, the watch starts afresh
    nav._decisions += 1
    assert nav._move_off(Observation(obs.screen, hud, moved, 0.0, 0, "A", 140, (), False)) is None


@pytest.mark.slow
def test_a_boss_on_a_ledge_is_walked_to_where_the_eye_sees_it():
    # freedoom2 MAP07 (seed 8000, reference-nav): the map waits for its mancubi; one stood on a ledge 112 units over
    # the yard, out of the walk's reach. The walk went to a spot under the ledge (no wall between, on the floor plan)
    # from which the eye sees the ledge's face only, and the map ran to the frame cap.
    from doomagent.env import MapGeometry
    from doomagent.env.rooms import auto_rooms

    g = MapGeometry.load("MAP07", "freedoom2.wad")
    rooms = auto_rooms(g)
    explorer = Explorer.for_map(rooms, plan=None, god=True)
    ledge = (2336.0, 775.0)
    live = LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset(), (("Fatso", *ledge),))
    explorer._update(live)
    grid = explorer.live_grid.grid
    under, yard = grid.cell_of(2244.0, 727.0), grid.cell_of(1900.0, 700.0)
    assert g.sector_floor[g.sector_at(*ledge)] - g.sector_floor[g.sector_at(2244.0, 727.0)] == 112
    assert explorer.boss_walks.sees(under, [ledge], live, above=False)  # the floor plan's test: no wall between
    assert not explorer.boss_walks.sees(under, [ledge], live, above=True)  # the eye, 41 units over the yard, does not
    assert explorer.boss_walks.sees(yard, [ledge], live, above=True)
    walk = explorer._walk
    assert walk is not None
    reach = walk.reach(yard)
    assert not reach[grid.cell_of(*ledge)]
    assert explorer.boss_walks.goal(live, reach) is None  # within reach only: none
    goal = explorer.boss_walks.goal(live, reach, anywhere=True)
    assert goal is not None and under not in goal.cells.tolist()
    assert all(explorer.boss_walks.sees(int(c), [ledge], live, above=True) for c in goal.cells)


@pytest.mark.slow
def test_what_a_lift_was_ridden_for_goes_before_the_lift_back():
    # freedoom1 E1M2 (seed 8100, normal play): the tag-2 lift's switch below claimed the untried switches up top, its
    # trigger up top those below; each claim outbid what was untried where the walk stood, and the lift was ridden to
    # and fro six times (about 7,000 frames) past them. What a walk across was chosen for now goes first there.
    from doomagent.env import MapGeometry
    from doomagent.env.rooms import auto_rooms

    g = MapGeometry.load("E1M2", "freedoom1.wad")
    explorer = Explorer.for_map(auto_rooms(g), plan=None, god=True)
    live = LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset(), ())
    explorer._start = (live.floors.copy(), live.ceilings.copy())
    explorer._update(live)
    walk = explorer._walk
    assert walk is not None
    lift = (i for i in explorer.items if "(tag 2) that lowers a lift" in i.text)
    switch, trigger = sorted(lift, key=lambda i: i.kind)  # the switch below, the trigger line up top
    below, top = (1296.0, -1345.0), (1452.0, -1436.0)  # beside the switch; on the ledge the lift rises to
    start = explorer.walker.cell(below)
    reach = walk.reach(start)
    gain, _finishes, _opens = explorer._what_if(switch, live, reach, start)
    assert gain >= MIN_GAIN and not switch.claims  # not used yet: chosen for the new ground, no promise
    switch.uses = trigger.uses = 1  # ridden before, both ways: only what lies on the other side is gain
    gain, _finishes, _opens = explorer._what_if(switch, live, reach, start)
    assert gain >= MIN_GAIN and switch.claims
    assert not any(reach[c.cells].any() for c in switch.claims)  # up top, out of reach below
    explorer._choose(switch, "test")
    hud = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=tuple(range(1, 8)))
    explorer._think(live, top, hud)
    goal = explorer.walker.goal
    assert goal is not None and any(goal.what is c for c in switch.claims), explorer.log[-1]
    assert "what the way here was taken for" in explorer.log[-1]
    up = explorer.walker.cell(top)
    back, _finishes, _opens = explorer._what_if(trigger, live, walk.reach(up), up)
    assert back >= MIN_GAIN and trigger.claims  # the lift back claims what lies below: it would have outbid them


@pytest.mark.slow
def test_a_ride_is_not_broken_off_to_fetch_what_the_player_is_short_of(e1m1_rooms):
    # Every RECHECK_EVERY decisions a walk is broken off for a supply the player has run short of; a ride (on a lift,
    # or waiting for it) was broken off too, and the walk came back for the lift later (freedoom1 E1M2, normal play).
    from doomagent.policies._explore_walk import OPENED, RIDE, Goal
    from doomagent.policies.explorer import RECHECK_EVERY

    g = e1m1_rooms.geometry
    live = LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset(), ())
    short = Hud(health=100, armor=0, ammo={"bullets": 5}, weapon=2, weapon_ammo=5, weapons=(1, 2))
    obs = Observation(np.zeros((4, 4, 3), np.uint8), short, (-416.0, 256.0, 0.0), 0.0, 0, "A", 140, (), False, live)
    for label, kept in ((RIDE, True), (OPENED, False)):
        explorer = Explorer.for_map(e1m1_rooms, plan=None)
        explorer.act(obs)
        goal = Goal(None, np.array([explorer.walker.cell((-100.0, 256.0))]), label)
        explorer.walker.start(goal)
        explorer._decisions, notes = RECHECK_EVERY - 1, len(explorer.log)
        explorer.act(obs)
        assert (explorer.walker.goal is goal) == kept, explorer.log[-2:]
        assert (len(explorer.log) == notes) == kept  # else a supply (or a detour for one) was chosen afresh


@pytest.mark.slow
def test_an_exit_that_comes_within_reach_during_a_look_is_walked_to_before_the_door_shuts():
    # freedoom1 E2M2 (seed 8000, reference-nav): the tag-8 switch opens a door that shuts again after 4 s; the way to
    # the exit runs through it. The walk went to look at unseen ground while the door stood open, the door shut, and
    # the one-shot walk round the map ran to the frame cap. A look now ends the moment the exit comes within reach.
    from doomagent.env import MapGeometry
    from doomagent.env.rooms import auto_rooms
    from doomagent.policies._explore_walk import Goal
    from doomagent.policies.explorer import REBUILD_EVERY

    g = MapGeometry.load("E2M2", "freedoom1.wad")
    explorer = Explorer.for_map(auto_rooms(g), plan=None, god=True)
    floors, ceilings = g.sector_floor.astype(float), g.sector_ceiling.astype(float)
    floors[15], floors[48], ceilings[[52, 53, 57]] = 96.0, 0.0, (100.0, 100.0, 220.0)  # as the walk left them there
    keys = frozenset({"blue", "red"})
    everything = Hud(health=100, armor=0, ammo={"bullets": 200}, weapon=2, weapon_ammo=200, weapons=tuple(range(1, 8)))
    here = (-317.0, -179.0)  # by the switch, on the door's far side from the exit

    def seen(live: LiveMap) -> Observation:
        return Observation(np.zeros((4, 4, 3), np.uint8), everything, (*here, 0.0), 0.0, 0, "D", 17, (), False, live)

    shut = LiveMap(floors, ceilings, keys, ())
    explorer.act(seen(shut))
    look = Goal(None, np.array([explorer.walker.cell((-262.0, -539.0))]), "ground not seen yet")
    explorer.walker.start(look)
    explorer.act(seen(shut))
    assert explorer.walker.goal is look  # the door shut: the look goes on
    opened = ceilings.copy()
    opened[55] = 84.0  # the door on its way up
    explorer._built_at -= REBUILD_EVERY  # (the walk is rebuilt at most this often while the map moves)
    explorer.act(seen(LiveMap(floors, opened, keys, ())))
    goal = explorer.walker.goal
    assert goal is not None and goal.what is not None and goal.what.kind == "exit", explorer.log[-2:]


@pytest.mark.engine
def test_a_winding_stair_is_walked_up_out_of_a_pit():
    # freedoom2 MAP25: the walk to the tag-46 switch drops into a pit (floor -256) whose one way out is a spiral stair
    # of steps a few units across (sectors 345 to 352) up to sector 328 (-48). The grid took the stair for a wall,
    # and the walk went round the pit from frame 6,282 to the frame cap (seed 8000). Put in the pit, it walks out.
    from doomagent.env.actions import Action

    e = DoomEnv(EnvConfig(wad="freedoom2.wad", map="MAP25", live_map=True, cheats=True, god=True, max_frames=2000))
    try:
        nav = ReferenceNavigator.for_map(e.rooms, god=True)
        obs, _ = e.reset(seed=8000)
        e.send_command("warp -950 1150")
        obs, *_ = e.step(Action.WAIT)
        assert obs.position[2] == -256 and obs.sector == 324
        highest = obs.position[2]
        terminated = truncated = False
        while not (terminated or truncated) and highest < -48:
            obs, _, terminated, truncated, _info = e.step(nav.act(obs))
            highest = max(highest, obs.position[2])
        assert highest >= -48, nav.explorer.log[-10:]
    finally:
        e.close()


@pytest.mark.engine
@pytest.mark.timeout(300)  # about 7,300 frames of play: about 30 s here
def test_a_boss_map_arms_the_player_before_the_boss_taking_no_damage_too():
    # freedoom1 E2M8 (seed 8008): the map ends when its two Cyberdemons die. The guns lie in closets that open when
    # the tag-3 target lines are shot. Taking no damage, the walk went to the bosses with the pistol and punched them
    # to the frame cap; the shot at the target, aimed at another closet's line, moved nothing. The target is now
    # shot first, at the line in view, and the guns found there end the map.
    nav, info = _play("freedoom1.wad", "E2M8", frames=12000, seed=8008)
    log = nav.explorer.log
    assert info["outcome"] == "exit", log[-10:]
    shot = next(i for i, line in enumerate(log) if "target (tag 3) that moves a floor set its sectors moving" in line)
    assert "it brings a gun within reach" in log[shot - 1], log[: shot + 1]
    assert not any("walk to the boss" in line for line in log[:shot])
