"""Who can see the player (lines of sight on the map as it stands now), and which supply a player short of a gun or of
health walks to: on freedoom1 E1M1's real geometry, without the engine."""

from __future__ import annotations

import math

import numpy as np
import pytest

from doomagent.env.observation import Hud, LiveMap, Observation
from doomagent.policies._provisions import SUPPLY_REACH, supply_goal
from doomagent.policies._sight import EYE, Sight
from doomagent.policies._supplies import Supplies, Supply


def _heights(g) -> LiveMap:
    return LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset())


@pytest.mark.slow
def test_a_shut_door_blocks_sight_and_an_open_one_does_not(e1m1, e1m1_door):
    sight = Sight(e1m1)
    door, a, b = e1m1_door
    live = _heights(e1m1)
    live.ceilings[door] = live.floors[door]  # shut
    eye = (a[0], a[1], float(live.floors[e1m1.sector_at(*a)]) + EYE)
    assert not sight.sees(live, eye, b)
    live.ceilings[door] = live.floors[door] + 128  # open
    assert sight.sees(live, eye, b)


@pytest.mark.slow
def test_a_solid_wall_blocks_sight(e1m1):
    sight = Sight(e1m1)
    live = _heights(e1m1)
    line = int(np.flatnonzero(e1m1.line_back < 0)[0])
    (ax, ay), (bx, by) = e1m1.vertices[e1m1.line_v[line]]
    mx, my = (ax + bx) / 2, (ay + by) / 2
    nx, ny = (by - ay) / math.hypot(bx - ax, by - ay), -(bx - ax) / math.hypot(bx - ax, by - ay)
    inside = next(
        (mx + s * 16 * nx, my + s * 16 * ny) for s in (1, -1) if e1m1.sector_at(mx + s * 16 * nx, my + s * 16 * ny) >= 0
    )
    beyond = (2 * mx - inside[0], 2 * my - inside[1])
    eye = (inside[0], inside[1], float(live.floors[e1m1.sector_at(*inside)]) + EYE)
    assert not sight.sees(live, eye, beyond)


@pytest.mark.slow
def test_a_gun_goes_before_armor_and_badly_hurt_any_health_is_worth_the_walk(e1m1_rooms):
    supplies = Supplies(e1m1_rooms)
    supplies.items = [
        Supply((0.0, 0.0), "armor", 1),
        Supply((0.0, 0.0), "weapon 3", 2),
        Supply((0.0, 0.0), "health", 3),
    ]
    dist = np.array([0.0, 100.0, 900.0, SUPPLY_REACH * 3])
    pistol = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))
    goal = supply_goal(supplies, pistol, dist, god=False)
    assert goal is not None and "weapon 3" in goal.label  # the armor is nearer
    dying = Hud(health=10, armor=0, ammo={"bullets": 50}, weapon=3, weapon_ammo=20, weapons=(1, 2, 3))
    goal = supply_goal(supplies, dying, dist, god=False)
    assert goal is not None and "health" in goal.label  # three times the usual reach away


@pytest.mark.slow
def test_a_missile_coming_at_the_player_is_sidestepped_a_few_times_at_most(e1m1_rooms):
    from doomagent.env.actions import Action
    from doomagent.env.observation import VisibleObject
    from doomagent.policies import ReferenceNavigator
    from doomagent.policies.reference import DODGE_STEPS

    g = e1m1_rooms.geometry
    nav = ReferenceNavigator.for_map(e1m1_rooms)
    nav.explorer._update(_heights(g))
    hud = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))

    def seen(distance: float, bearing: float, ident: int = 7) -> Observation:
        ball = VisibleObject(ident, "DoomImpBall", "Projectile", (300, 180, 20, 20), distance, bearing)
        return Observation(np.zeros((4, 4, 3), np.uint8), hud, (-416.0, 256.0, 0.0), 0.0, 0, "A", 140, (ball,), False)

    # A missile first seen this near is taken to be coming (monsters aim at the player); then while it closes in.
    steps = [nav._dodge_missile(seen(150.0 - 20 * k, 3.0)) for k in range(DODGE_STEPS + 2)]
    assert steps[0] == Action.STRAFE_RIGHT  # it is a little left of the view's line: step right
    assert sum(s is not None for s in steps) == DODGE_STEPS
    assert nav._dodge_missile(seen(400.0, 0.0, 8)) is None  # far off
    assert nav._dodge_missile(seen(380.0, 0.0, 8)) is None  # closing in, but not near yet
    assert nav._dodge_missile(seen(60.0, 40.0, 9)) is None  # near, but its line passes 38 units off
    assert nav._dodge_missile(seen(100.0, 0.0, 10)) is not None
    assert nav._dodge_missile(seen(120.0, 0.0, 10)) is None  # going away
