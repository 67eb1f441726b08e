"""The explorer on freedoom2 MAP21's real geometry (seed 8000, reference-nav, traced in 0.7.4): a door thinner than a
grid cell still counts as next to the ground the walk reaches; a switch that lowers blocks whose tops meet their
ceilings (lift sectors that carry nobody: gates) walks into the ground they open; and ground on a hurting floor is
seen as far as any. (WAD reading only: the live heights are set by hand.)"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

from doomagent.env import MapGeometry
from doomagent.env.observation import Hud, LiveMap, Observation
from doomagent.env.rooms import auto_rooms
from doomagent.policies._explore_walk import OPENED, Goal
from doomagent.policies._seen import SEEN_WALK
from doomagent.policies.explorer import Explorer

pytestmark = pytest.mark.slow  # a map's walkable grid takes seconds to build

DOOR, BEFORE_DOOR = 49, (-1000.0, 1300.0)  # tag 16: an 8-unit door between sectors 48 and 50, opened by its switch
# Tag 1 (special 62, lower lift): two blocks, floor = ceiling = 520, one by the switch, one 548 units off before the
# yellow skull key; lowered, they let a player by for 3 seconds. A ride waited on the near one: a player on it stops
# it rising (no headroom), it went back down, and the ride ran out.
BLOCKS = (33, 39)


@pytest.fixture(scope="module")
def explorer() -> Explorer:
    g = MapGeometry.load("MAP21", "freedoom2.wad")
    explorer = Explorer.for_map(auto_rooms(g), plan=None, god=True)
    explorer._update(_live(g.sector_floor.astype(float)))
    return explorer


def _live(floors: np.ndarray) -> LiveMap:
    g = MapGeometry.load("MAP21", "freedoom2.wad")
    return LiveMap(floors, g.sector_ceiling.astype(float), frozenset())


def _item(explorer: Explorer, text: str):
    return next(i for i in explorer.items if i.text == text)


def test_a_door_thinner_than_a_cell_lies_next_to_the_ground_before_it(explorer):
    lg, walk = explorer.live_grid, explorer._walk
    assert walk is not None
    assert not np.isin(lg.sector, [DOOR]).any()  # no cell's centre lies in the door
    reach = walk.reach(lg.grid.cell_of(*BEFORE_DOOR))
    switch = _item(explorer, "switch (tag 16) that opens a door")
    assert switch.moves == (DOOR,)
    # The what-if is asked of it: it was never, and the yellow-key switch past the door stayed out of reach.
    assert explorer.live_grid.next_to(list(switch.moves), reach)


def test_a_block_that_meets_its_ceiling_is_no_lift_to_ride(explorer):
    g = explorer.room_map.geometry
    assert all(g.sector_floor[b] == g.sector_ceiling[b] == 520 for b in BLOCKS)
    switch = _item(explorer, "switch (tag 1) that lowers a lift")
    assert switch.moves == BLOCKS and all(explorer.live_grid.lifts[b] for b in BLOCKS)
    switch.opens = np.array([explorer.live_grid.grid.cell_of(1232.0, 2240.0)])  # past the far block
    walker = explorer.walker
    here = (1305.0, 1632.0)
    floors = g.sector_floor.astype(float)
    before = _live(floors)
    hud = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))
    obs = Observation(np.zeros((4, 4, 3), np.uint8), hud, (*here, 392.0), 0.0, 0, "A", 29, (), False, live=before)
    walker.act(obs, before, here, 1)
    walker.start(Goal(switch, np.array([explorer.live_grid.grid.cell_of(*here)]), switch.text, presses=1))
    walker.goal.heights = (before.floors, before.ceilings)
    lowered = floors.copy()
    lowered[list(BLOCKS)] = 480.0
    walker.act(obs, _live(lowered), here, 2)
    assert walker.goal is not None and walker.goal.label == OPENED and walker.goal.source is switch


def test_ground_on_a_hurting_floor_counts_as_seen_as_far_as_any(explorer):
    walk, grid = explorer._walk, explorer.live_grid.grid
    assert walk is not None
    pit = np.flatnonzero(grid.hazard & walk.standable)
    start = int(pit[len(pit) // 2])
    by_cost = dijkstra(walk.graph, indices=[start], min_only=True)
    by_length = dijkstra(walk.lengths, indices=[start], min_only=True)
    assert (by_length <= by_cost + 1e-9).all()  # a step onto a hurting floor weighs 8 steps, and is 1 step long
    # The walk counts the ground within SEEN_WALK as seen: in the nukage pit (sector 51) by cost, a few cells round
    # the player, and the walk looked at "ground not seen yet" 262 times, a few steps each, to the frame cap.
    assert (by_length[pit] <= SEEN_WALK).sum() > 4 * (by_cost[pit] <= SEEN_WALK).sum()
