"""Perpetual crushers on freedoom2 MAP04's real geometry (WAD reading only): the grid plans under one as though it
stood at its top, and the walk waits short of it while it comes down or hangs low, and goes under it as it rises."""

from __future__ import annotations

import numpy as np
import pytest

from doomagent.env import MapGeometry
from doomagent.env.actions import Action
from doomagent.env.observation import Hud, LiveMap, Observation
from doomagent.env.rooms import auto_rooms
from doomagent.env.specials import is_crush_and_raise
from doomagent.policies._crusher import CrusherWatch
from doomagent.policies._livegrid import LiveGrid

CORRIDOR = 82  # MAP04's tag-7 crusher: x 672-736, y 1728-1856, floor 0, ceiling 88 at its top


@pytest.fixture(scope="module")
def map04():
    return LiveGrid(auto_rooms(MapGeometry.load("MAP04", "freedoom2.wad")))


def _live(grid: LiveGrid, ceiling: float) -> LiveMap:
    g = grid.geometry
    ceilings = g.sector_ceiling.astype(float)
    ceilings[CORRIDOR] = ceiling
    return LiveMap(g.sector_floor.astype(float), ceilings, frozenset())


def _obs(x: float, y: float, angle: float) -> Observation:
    hud = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))
    return Observation(np.zeros((4, 4, 3), np.uint8), hud, (x, y, 0.0), angle, 0, None, 2, (), False)


def _way(grid: LiveGrid, ceiling: float, start: tuple[float, float]) -> list[int]:
    walk = grid.build(_live(grid, ceiling).floors, _live(grid, ceiling).ceilings, frozenset())
    _dist, pred = walk.field_to(np.array([grid.grid.cell_of(704.0, 1950.0)]))  # north of the corridor
    way = [grid.grid.cell_of(*start)]
    while len(way) <= 20 and pred[way[-1]] >= 0:
        way.append(int(pred[way[-1]]))
    return way


def test_the_crush_and_raise_specials_and_the_sectors_they_set_moving(map04):
    assert all(is_crush_and_raise(s) for s in (6, 25, 73, 77, 141, 184, 0x2F80)) and not is_crush_and_raise(44)
    assert map04.geometry.crushers == frozenset({22, 62, 82})  # tags 6 and 7 (special 25), tag 9 (141)


def test_a_crusher_down_low_is_planned_under_at_its_top(map04):
    way = _way(map04, 20.0, (600.0, 1736.0))  # the ceiling 20 above the floor: nothing passes under it now
    assert any(map04.sector[c] == CORRIDOR for c in way)


def test_the_walk_waits_short_of_a_crusher_coming_down_and_goes_under_it_rising(map04):
    way = _way(map04, 88.0, (600.0, 1736.0))
    obs = _obs(600.0, 1736.0, 45.0)  # facing north-east, along the way
    watch = CrusherWatch()
    assert watch.hold(map04, obs, _live(map04, 88.0), (0.0, 0.0), way) is None  # at rest at its top
    assert watch.hold(map04, obs, _live(map04, 80.0), (0.0, 0.0), way) is Action.WAIT  # coming down
    # Coming down and the player running at it: a step against the run (back, facing the way it runs).
    assert watch.hold(map04, obs, _live(map04, 72.0), (8.0, 8.0), way) is Action.DOWN
    assert watch.hold(map04, obs, _live(map04, 8.0), (0.0, 0.0), way) is Action.WAIT  # at its bottom
    assert watch.hold(map04, obs, _live(map04, 30.0), (0.0, 0.0), way) is Action.WAIT  # rising, still low
    assert watch.hold(map04, obs, _live(map04, 44.0), (0.0, 0.0), way) is None  # rising: high enough on arrival
    # Under it already: the walk goes on out, whatever it does.
    under = _way(map04, 88.0, (704.0, 1790.0))
    assert watch.hold(map04, _obs(704.0, 1790.0, 90.0), _live(map04, 36.0), (0.0, 0.0), under) is None


def test_a_way_that_keeps_clear_of_a_crusher_is_not_held(map04):
    watch = CrusherWatch()
    far = [map04.grid.cell_of(600.0, y) for y in (1300.0, 1316.0, 1332.0)]  # south, in the open
    for ceiling in (88.0, 60.0):
        assert watch.hold(map04, _obs(600.0, 1300.0, 90.0), _live(map04, ceiling), (0.0, 0.0), far) is None
