"""A fight's steps and aim, on freedoom1 E1M1's real geometry, without the engine: a step that went nowhere twice is
not taken that way again for a while, a step into a monster's body is no step, a fight on nukage steps off it first,
a monster clawing from outside the view is faced before one further off, a box cut by the screen's edge is no aim,
and between shots at a fireball thrower the gun's reload is spent sidestepping."""

from __future__ import annotations

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
