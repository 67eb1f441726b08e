"""A fight's steps and aim, on freedoom1 E1M1's real geometry, without the engine: a step that went nowhere twice is
not taken that way again for a while, a step into a monster's body is no step, a fight on nukage steps off it first,
a monster clawing from outside the view is faced before one further off, a box cut by the screen's edge is no aim,
between shots at a fireball thrower the gun's reload is spent sidestepping, a fight in a corner steps out to where it
can step aside (freedoom1 E1M8), the player holds still till a rocket leaves, and a shut door is no step (E1M7)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from doomagent.env.actions import Action
from doomagent.env.observation import Hud, LiveMap, Observation, VisibleObject
from doomagent.policies import ReferenceNavigator
from doomagent.policies._footwork import BLOCKED_FOR, Footwork, into_monster

SHOTGUN = Hud(health=100, armor=0, ammo={"shells": 20}, weapon=3, weapon_ammo=20, weapons=(1, 2, 3))
START = (-416.0, 256.0)  # freedoom1 E1M1's start room, open floor all round
NUKAGE = (2056.0, 980.0)  # in sector 38, E1M1's nukage pool by the exit room


def _obs(at=START, angle=0.0, seen=(), monsters=(), hud=SHOTGUN, live=None, running=False) -> Observation:
    return Observation(np.zeros((4, 4, 3), np.uint8), hud, (*at, 0.0), angle, 0, "A", 140, seen, running, live)


def _live(rooms, monsters=()) -> LiveMap:
    g = rooms.geometry
    return LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset(), tuple(monsters))


def _navigator(rooms, live: LiveMap) -> ReferenceNavigator:
    nav = ReferenceNavigator.for_map(rooms)
    nav.explorer._update(live)
    nav._shots = 10  # past the sidesteps a fight starts with
    return nav


def test_a_step_that_went_nowhere_twice_is_not_taken_that_way_again_for_a_while():
    steps = Footwork()
    # One step back that went nowhere may have spent itself turning the player's momentum round: not blocked yet.
    steps.took(_obs(), Action.DOWN)
    steps.settle(_obs(), 1)
    assert not steps.blocked(180.0)
    steps.took(_obs(), Action.DOWN)
    steps.settle(_obs(at=(START[0] + 0.5, START[1])), 2)  # half a unit: nowhere
    assert steps.blocked(180.0) and steps.blocked(150.0) and not steps.blocked(90.0)
    # The way opens again after BLOCKED_FOR decisions; a step that moved clears the count.
    steps.settle(_obs(), 2 + BLOCKED_FOR)
    assert not steps.blocked(180.0)
    steps.took(_obs(), Action.STRAFE_LEFT)
    steps.settle(_obs(at=(START[0], START[1] + 4.0)), 20)
    steps.took(_obs(), Action.STRAFE_LEFT)
    steps.settle(_obs(), 21)
    assert not steps.blocked(90.0)  # one step that went nowhere after one that moved


@pytest.mark.slow
def test_a_step_into_a_monsters_body_is_no_step(e1m1_rooms):
    behind = ("Demon", START[0] - 60.0, START[1])
    live = _live(e1m1_rooms, [behind])
    probe = _obs(monsters=(behind,), live=live)
    assert into_monster(probe, (START[0] - 48.0, START[1])) and not into_monster(probe, (START[0], START[1] + 48.0))
    nav = _navigator(e1m1_rooms, live)
    assert not nav._safe(probe, 180.0) and nav._safe(probe, 90.0)
    # Taking no damage, the walk of 0.7.23 stands: a monster's body is not looked at.
    god = ReferenceNavigator.for_map(e1m1_rooms, god=True)
    god.explorer._update(live)
    assert god._safe(probe, 180.0)


@pytest.mark.slow
def test_a_fight_on_a_hurting_floor_steps_off_it_first(e1m1_rooms):
    live = _live(e1m1_rooms)
    nav = _navigator(e1m1_rooms, live)
    assert e1m1_rooms.navgrid.is_hazard(*NUKAGE)
    imp = VisibleObject(7, "DoomImp", "Monster", (300, 150, 40, 80), 300.0, 0.0)
    step = nav.act(_obs(at=NUKAGE, seen=(imp,), live=live))
    assert step in (Action.UP, Action.DOWN, Action.STRAFE_LEFT, Action.STRAFE_RIGHT)
    refuge = nav._footwork._refuge
    assert refuge is not None and not e1m1_rooms.navgrid.is_hazard(*refuge)
    # Off the nukage, the same imp is shot at.
    nav = _navigator(e1m1_rooms, live)
    assert nav.act(_obs(seen=(imp,), live=live)) == Action.FIRE


@pytest.mark.slow
def test_a_monster_clawing_from_outside_the_view_is_faced_before_one_further_off(e1m1_rooms):
    # freedoom1 E1M6 (seed 9322): an imp at the player's back clawed it from 96 health to none while the shotgun
    # fired at another 260 units ahead.
    claws = ("DoomImp", START[0], START[1] - 50.0)  # 50 units to the right of a player facing east
    ahead = ("DoomImp", START[0] + 260.0, START[1])
    live = _live(e1m1_rooms, [claws, ahead])
    far = VisibleObject(8, "DoomImp", "Monster", (300, 150, 40, 80), 260.0, 0.0)
    nav = _navigator(e1m1_rooms, live)
    assert nav.act(_obs(seen=(far,), live=live)) == Action.RIGHT
    # With nothing that close, the imp ahead is shot at.
    live = _live(e1m1_rooms, [ahead])
    nav = _navigator(e1m1_rooms, live)
    assert nav.act(_obs(seen=(far,), live=live)) == Action.FIRE


@pytest.mark.slow
def test_a_box_cut_by_the_screen_edge_is_no_aim(e1m1_rooms):
    nav = _navigator(e1m1_rooms, _live(e1m1_rooms))
    # An imp 53 units off at 43 degrees right: its box runs from the view's centre off the screen's right edge.
    cut = VisibleObject(9, "DoomImp", "Monster", (315, 0, 325, 336), 53.0, -43.0)
    assert nav._aim(cut) == Action.RIGHT
    # Ten degrees off that near, the shot still lands (most of its 20-unit radius lies across the view's line).
    assert nav._aim(VisibleObject(9, "DoomImp", "Monster", (120, 0, 400, 336), 53.0, -10.0)) is None
    # A whole box over the centre is aim, as before.
    assert nav._aim(VisibleObject(9, "DoomImp", "Monster", (290, 150, 60, 90), 300.0, -4.0)) is None


@pytest.mark.slow
def test_between_shots_at_a_fireball_thrower_the_reload_is_spent_sidestepping(e1m1_rooms):
    live = _live(e1m1_rooms)
    baron = VisibleObject(10, "BaronOfHell", "Monster", (300, 150, 40, 80), 300.0, 0.0)
    nav = _navigator(e1m1_rooms, live)
    nav._decisions = 100
    assert nav.act(_obs(seen=(baron,), live=live)) == Action.FIRE  # the gun is ready
    nav._ammo = (3, 21)  # the shotgun fired a moment ago
    assert nav.act(_obs(seen=(baron,), live=live)) in (Action.STRAFE_LEFT, Action.STRAFE_RIGHT)
    # A zombieman in the fight: bullets are not dodged, the aim is kept.
    zombie = VisibleObject(11, "Zombieman", "Monster", (200, 150, 40, 80), 400.0, 15.0)
    nav = _navigator(e1m1_rooms, live)
    nav._decisions, nav._ammo = 100, (3, 21)
    assert nav.act(_obs(seen=(baron, zombie), live=live)) not in (Action.STRAFE_LEFT, Action.STRAFE_RIGHT)


@pytest.mark.slow
def test_a_fight_in_a_corner_steps_out_to_where_it_can_step_aside():
    # freedoom1 E1M8 (seed 9320): from the corner at (48, -696), walls behind and to the right and left, the player
    # stood and fired at a baron for 150 frames while it walked up through its own fireballs and clawed it to death.
    from doomagent.env.geometry import MapGeometry
    from doomagent.env.rooms import auto_rooms

    rooms = auto_rooms(MapGeometry.load("E1M8", "freedoom1.wad"))
    corner, angle = (48.0, -696.0), 315.0
    foe = (corner[0] + 240.0 * np.cos(np.radians(angle)), corner[1] + 240.0 * np.sin(np.radians(angle)))
    live = _live(rooms, [("BaronOfHell", *foe)])
    baron = VisibleObject(12, "BaronOfHell", "Monster", (300, 150, 40, 80), 240.0, 0.0)
    nav = _navigator(rooms, live)
    nav._decisions, nav._ammo = 100, (3, 21)  # the shotgun fired a moment ago
    probe = _obs(at=corner, angle=angle, seen=(baron,), live=live)
    assert not any(nav._safe(probe, turn) for turn in (90.0, -90.0, 180.0))
    step = nav.act(probe)
    room = nav._footwork._room
    assert room is not None and step in (Action.UP, Action.STRAFE_LEFT, Action.STRAFE_RIGHT)
    facing = float(np.degrees(np.arctan2(foe[1] - room[1], foe[0] - room[0])))
    assert all(nav._safe(_obs(at=room, angle=facing, live=live), turn) for turn in (90.0, -90.0, 180.0))
    assert 240.0 - 64.0 <= np.hypot(room[0] - foe[0], room[1] - foe[1]) < 240.0  # out into the room, not its arms


@pytest.mark.slow
def test_the_player_holds_still_after_firing_a_rocket_till_it_leaves(e1m1_rooms):
    # The launcher fires 8 tics after the press: a sidestep in between moves the line of fire that was found clear
    # (freedoom1 E1M8, seeds 9322-9323: the rocket met a wall's corner and the blast took 66 and 84 health).
    rockets = Hud(health=100, armor=0, ammo={"shells": 20, "rockets": 10}, weapon=5, weapon_ammo=10, weapons=(1, 3, 5))
    live = _live(e1m1_rooms)
    baron = VisibleObject(10, "BaronOfHell", "Monster", (300, 150, 40, 80), 300.0, 0.0)
    nav = _navigator(e1m1_rooms, live)
    nav._decisions = 100
    assert nav.act(_obs(seen=(baron,), live=live, hud=rockets)) == Action.FIRE
    assert nav.act(_obs(seen=(baron,), live=live, hud=rockets)) == Action.WAIT  # not left yet
    assert nav.act(_obs(seen=(baron,), live=live, hud=rockets)) == Action.WAIT
    left = dataclasses.replace(rockets, weapon_ammo=9, ammo={"shells": 20, "rockets": 9})
    assert nav.act(_obs(seen=(baron,), live=live, hud=left)) != Action.WAIT  # gone: the fight goes on
    # Taking no damage, nothing is held for.
    god = ReferenceNavigator.for_map(e1m1_rooms, god=True)
    god.explorer._update(live)
    god._shots, god._decisions = 10, 100
    near = VisibleObject(10, "BaronOfHell", "Monster", (300, 150, 40, 80), 80.0, 0.0)
    assert god.act(_obs(seen=(near,), live=live, hud=rockets)) == Action.FIRE
    assert god.act(_obs(seen=(near,), live=live, hud=rockets)) != Action.WAIT


@pytest.mark.slow
def test_a_step_into_a_shut_door_is_no_step():
    # freedoom1 E1M7 (seed 9338): its back to a shut door (sector 21, between y = 768 and 776), the player sidestepped
    # into it again and again while a demon bit it: the walk counts a door as a way, a step opens none.
    from doomagent.env.geometry import MapGeometry
    from doomagent.env.rooms import auto_rooms
    from doomagent.policies._threats import Threats

    rooms = auto_rooms(MapGeometry.load("E1M7", "freedoom1.wad"))
    shut = _live(rooms)
    assert shut.ceilings[21] == shut.floors[21]  # the door, shut as the map begins
    nav = _navigator(rooms, shut)
    nav._threats = Threats(nav.explorer, nav.fight_range)
    at, angle = (-414.0, 792.0), 148.0  # a step left heads at 238 degrees, through the door
    assert not nav._safe(_obs(at=at, angle=angle, live=shut), 90.0)
    assert nav.explorer.walkable(
        at, (at[0] + 48.0 * np.cos(np.radians(238.0)), at[1] + 48.0 * np.sin(np.radians(238.0)))
    )
    ceilings = shut.ceilings.copy()
    ceilings[21] = 128.0
    opened = LiveMap(shut.floors, ceilings, shut.keys, shut.monsters)
    assert nav._safe(_obs(at=at, angle=angle, live=opened), 90.0)  # open, the step goes through
