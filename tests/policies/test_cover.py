"""Backing off to cover, on freedoom1 E1M1's real geometry without the engine: who is backed off from, the steps back
along the player's own trail, and cover found where the monsters that see the player now cannot."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from doomagent.env.actions import Action
from doomagent.env.observation import Hud, LiveMap, Observation
from doomagent.policies import ReferenceNavigator
from doomagent.policies._cover import BITER_NEAR, CRUMB, HOLD, LOOK_AGAIN, REST, RETREAT_BELOW, STALLED, Cover
from doomagent.policies._sight import EYE, Sight

pytestmark = pytest.mark.slow  # a map's walkable grid takes seconds to build

HUD = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))


def _cover(rooms, live: LiveMap) -> Cover:
    nav = ReferenceNavigator.for_map(rooms)
    nav.explorer._update(live)
    return Cover(nav.explorer, Sight(rooms.geometry))


def _open(g) -> LiveMap:
    return LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float) + 128.0, frozenset())


def _at(x: float, y: float, angle: float, live: LiveMap | None = None) -> Observation:
    return Observation(np.zeros((4, 4, 3), np.uint8), HUD, (x, y, 0.0), angle, 0, "A", 140, (), True, live)


def _through_the_door(rooms, door_and_sides):
    """Return a cover whose trail runs from one side of E1M1's door to the other (the player at its end), a
    watcher as far beyond the player, and the map with the door shut behind the player."""
    door, a, b = door_and_sides
    live = _open(rooms.geometry)
    cover = _cover(rooms, live)
    n = int(math.dist(a, b) // CRUMB) + 1
    cover.crumbs = [(a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n) for i in range(n + 1)]
    watcher = ("Zombieman", 2 * b[0] - a[0], 2 * b[1] - a[1], math.dist(a, b))
    shut = LiveMap(live.floors.copy(), live.ceilings.copy(), frozenset())
    shut.ceilings[door] = shut.floors[door]  # the door shut behind it: the watcher cannot see the far side
    return cover, watcher, shut


def test_badly_hurt_any_watcher_and_at_any_health_a_crowd_close_by_is_backed_off_from(e1m1_rooms):
    cover = _cover(e1m1_rooms, _open(e1m1_rooms.geometry))
    one_far = [("DoomImp", 0.0, 0.0, 900.0)]
    assert not cover.wanted(100, [])
    assert not cover.wanted(RETREAT_BELOW, one_far)
    assert cover.wanted(RETREAT_BELOW - 1, one_far)
    three = [("Zombieman", 0.0, 0.0, 300.0)] * 3
    assert cover.wanted(100, three)
    assert not cover.wanted(100, three[:2])
    assert not cover.wanted(100, [("Zombieman", 0.0, 0.0, 800.0)] * 3)  # a crowd far off is fought as it comes


def test_biters_are_not_hidden_from_and_one_close_by_rules_out_a_retreat_but_from_a_crowd(e1m1_rooms):
    cover = _cover(e1m1_rooms, _open(e1m1_rooms.geometry))
    demon_far, demon_near = ("Demon", 0.0, 0.0, BITER_NEAR + 100), ("Demon", 0.0, 0.0, BITER_NEAR - 1)
    imp = ("DoomImp", 0.0, 0.0, 900.0)
    assert not cover.wanted(RETREAT_BELOW - 1, [demon_far])  # it follows wherever the player goes
    assert cover.wanted(RETREAT_BELOW - 1, [demon_far, imp])
    assert not cover.wanted(RETREAT_BELOW - 1, [demon_near, imp])  # backing off would only turn its back on it
    assert not cover.wanted(100, [demon_far, demon_far, imp])  # two biters and an imp are no crowd to hide from
    # A crowd is backed off from with a biter close by all the same: the biter follows, and is fought alone round
    # the corner (freedoom1 E1M6's ambush of imps, a demon and a spectre).
    near_imps = [("DoomImp", 0.0, 0.0, 300.0)] * 3
    assert cover.wanted(100, [demon_near, *near_imps])


def test_the_steps_back_keep_the_view_and_in_cover_it_faces_the_way_they_come(e1m1_rooms):
    cover = _cover(e1m1_rooms, _open(e1m1_rooms.geometry))
    cover.path, cover.facing = [(-416.0, 356.0), (-516.0, 256.0)], (-200.0, 256.0)
    assert cover.act(_at(-416.0, 256.0, 0.0)) == Action.DOWN  # the next crumb is behind: backs off facing ahead
    assert cover.act(_at(-510.0, 256.0, 0.0)) == Action.STRAFE_LEFT  # reached; the next is to the left
    assert cover.act(_at(-420.0, 350.0, 0.0)) == Action.RIGHT  # in cover: turns to where the watcher stood
    assert cover.hold == HOLD - 1
    assert cover.act(_at(-420.0, 350.0, -20.0)) == Action.WAIT  # facing it: waits for what comes round
    assert cover.active


def test_cover_is_the_first_crumb_back_that_no_watcher_sees_and_a_gap_in_the_trail_ends_the_search(
    e1m1_rooms, e1m1_door
):
    g = e1m1_rooms.geometry
    cover, watcher, shut = _through_the_door(e1m1_rooms, e1m1_door)
    _door, a, b = e1m1_door
    assert cover.start(_at(*b, 0.0, shut), [watcher], decision=0)
    assert cover.rest_until == REST
    sight = Sight(g)

    def sees(x: float, y: float) -> bool:
        return sight.sees(shut, (x, y, float(shut.floors[g.sector_at(x, y)]) + EYE), watcher[1:3])

    # Cover is the nearest crumb back that is more than two crumbs away (a step aside is no cover worth the name)
    # and out of the watcher's sight; the walk back goes by every crumb between, the player's side in sight.
    expected = next(c for c in reversed(cover.crumbs) if math.dist(c, b) >= 2 * CRUMB and not sees(*c))
    assert cover.path[0] == expected and sees(*cover.path[-1])
    assert cover.path == cover.crumbs[cover.crumbs.index(expected) :]
    cover.path, cover.rest_until = [], 0
    cover.crumbs = [a]  # one jump from a to b: a teleporter, no way back on foot
    assert not cover.start(_at(*b, 0.0, shut), [watcher], decision=1)
    assert cover.rest_until == 1 + LOOK_AGAIN  # looked for again soon (a retreat rests REST decisions)


def test_a_way_back_that_passes_a_monster_is_no_way_and_a_retreat_held_in_place_is_given_up(e1m1_rooms, e1m1_door):
    cover, watcher, shut = _through_the_door(e1m1_rooms, e1m1_door)
    _door, _a, b = e1m1_door
    assert cover.start(_at(*b, 0.0, shut), [watcher], decision=0)  # as in the test above: cover behind the door
    on_the_way = cover.path[0]
    cover.path, cover.rest_until = [], 0
    blocked = dataclasses.replace(shut, monsters=(("Demon", *on_the_way), ("Zombieman", *watcher[1:3])))
    assert not cover.start(_at(*b, 0.0, blocked), [watcher], decision=1)  # the demon stands on the way back
    assert cover.path == []
    cover.rest_until = 0
    assert not cover.start(_at(*b, 0.0, shut), [("Demon", *watcher[1:])], decision=1)  # biters are not hidden from
    cover.rest_until = 0
    assert cover.start(_at(*b, 0.0, shut), [watcher], decision=2)
    steps = [cover.act(_at(*b, 0.0, shut)) for _ in range(STALLED + 2)]  # held where it stands (a monster, a door)
    assert steps[0] is not None and steps[-1] is None and not cover.active
