"""The live grid on real freedoom maps, with heights set as the engine would report them: a door pushed from one
face only, a lift up and down, a locked door with and without its key, a drop off a pillar, a key on a ledge and a
switch in an alcove. (WAD reading only.)"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from doomagent.env import MapGeometry
from doomagent.env.rooms import auto_rooms
from doomagent.policies._interactions import interactions
from doomagent.policies._livegrid import LiveGrid, Walk


@pytest.fixture(scope="module")
def e1m2():
    rooms = auto_rooms(MapGeometry.load("E1M2", "freedoom1.wad"))
    return rooms, LiveGrid(rooms)


def _walk(grid: LiveGrid, *, keys: frozenset[str] = frozenset(), **heights: tuple[int, float, float]) -> Walk:
    """Return the grid with the WAD's heights, some sectors set to (floor, ceiling)."""
    g = grid.geometry
    floors, ceilings = g.sector_floor.astype(float), g.sector_ceiling.astype(float)
    for sector, floor, ceiling in heights.values():
        floors[sector], ceilings[sector] = floor, ceiling
    return grid.build(floors, ceilings, keys)


def _distance(grid: LiveGrid, walk: Walk, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Return the walk from a to b along the grid (inf: no way)."""
    dist, _ = walk.field_to(np.array([grid.grid.cell_of(*b)]))
    return float(dist[grid.grid.cell_of(*a)])


@pytest.mark.slow
def test_a_door_pushed_from_one_face_is_no_way_from_the_other(e1m2):
    # E1M2's sector 208: two pillars that rise when pushed from the east (lines 762, 1262, 1312, 1208 face east);
    # the strips of sector 122 round them are too narrow to pass while they are down.
    _rooms, grid = e1m2
    west, east = (1200.0, -2200.0), (1300.0, -2200.0)
    shut = _walk(grid)
    assert _distance(grid, shut, east, west) < 200  # pushed from the east: through it
    assert _distance(grid, shut, west, east) > 1000  # from the west: the long way round, if any
    opened = _walk(grid, door=(208, 64.0, 200.0))
    assert _distance(grid, opened, west, east) < 200


@pytest.mark.slow
def test_a_lift_that_is_up_is_a_step_too_high_until_it_comes_down(e1m2):
    _rooms, grid = e1m2
    below, above = (1300.0, -1400.0), (1520.0, -1400.0)  # sector 56 (floor 136); past lift 44 (240) at 240
    assert math.isinf(_distance(grid, _walk(grid), below, above))
    down = _walk(grid, lift=(44, 136.0, 368.0))
    assert math.isfinite(_distance(grid, down, below, (1400.0, -1400.0)))  # onto the lift, down at 136


@pytest.mark.slow
def test_a_locked_door_opens_with_its_key(e1m2):
    _rooms, grid = e1m2
    east, west = (1000.0, -1400.0), (900.0, -1400.0)  # either side of the blue door (sector 54)
    assert _distance(grid, _walk(grid, keys=frozenset({"blue"})), east, west) < 200
    assert _distance(grid, _walk(grid), east, west) > 1000


@pytest.mark.slow
def test_a_player_standing_at_a_ledge_stands_on_it_and_drops_off():
    # freedoom2 MAP20 starts on a 64-unit pillar: cells at its foot touch it, so they stand at its height; the drop
    # from there is free (the pillar's own cells alone are 16).
    rooms = auto_rooms(MapGeometry.load("MAP20", "freedoom2.wad"))
    grid = LiveGrid(rooms)
    walk = _walk(grid)
    x, y, _ = rooms.geometry.start
    assert walk.reach(grid.grid.cell_of(x, y)).sum() > 1000


@pytest.mark.slow
def test_interactions_reach_over_a_sill_and_take_a_key_from_below(e1m2):
    rooms, grid = e1m2
    items = interactions(rooms)
    switch = next(i for i in items if 1854 in i.lines)  # in an alcove 22 units up, 32 tall
    assert switch.kind == "switch" and len(switch.cells) and switch.moves == (208,)
    red = next(i for i in items if i.kind == "key" and i.key == "red")  # on a ledge 32 units over sector 141
    below = [c for c in red.cells if rooms.geometry.sector_floor[grid.sector[c]] == 64]
    assert below, "the red key is taken from the floor below its ledge"


@pytest.mark.slow
def test_a_trigger_line_in_pieces_is_one_interaction_crossed_from_either_side():
    rooms = auto_rooms(MapGeometry.load("MAP03", "freedoom2.wad"))
    lift = [i for i in interactions(rooms) if i.kind == "walk" and 335 in i.lines]
    assert len(lift) == 1 and set(lift[0].lines) == {335, 355, 356} and lift[0].repeat
    front, back = lift[0].sides
    assert len(front) and len(back)


@pytest.mark.slow
def test_a_switch_behind_a_door_that_opens_a_crack_is_pressed_through_it():
    # freedoom1 E2M1: the switches that raise the pit's steps (lines 317, 322) are the back walls of the yellow-key
    # doors (sectors 45, 186), which open only 28 units: pressed through the crack, and only while it is open.
    rooms = auto_rooms(MapGeometry.load("E2M1", "freedoom1.wad"))
    steps = {i.lines[0]: i for i in interactions(rooms) if i.kind == "switch" and i.lines[0] in (317, 322)}
    assert set(steps) == {317, 322}
    assert steps[317].behind == (45,) and steps[322].behind == (186,) and len(steps[317].cells)


@pytest.mark.slow
def test_an_exit_line_on_a_platform_edge_is_crossed_once_the_platform_is_down():
    # freedoom2 MAP03's exit lines run along the edge of a platform (sector 306, 128 units up) that a switch
    # lowers: the cells beside them are walls on the map as it begins, floor once it is down.
    rooms = auto_rooms(MapGeometry.load("MAP03", "freedoom2.wad"))
    exits = [i for i in interactions(rooms) if i.kind == "exit" and i.lines[0] in (1669, 1670)]
    assert len(exits) == 2
    grid = LiveGrid(rooms)
    down = _walk(grid, platform=(306, -384.0, 129.0))
    for item in exits:
        front, back = item.sides
        assert len(front) and len(back)
        assert down.graph[front][:, back].nnz or down.graph[back][:, front].nnz  # a step over it


@pytest.mark.slow
def test_a_repeatable_teleport_line_is_stepped_over_only_to_its_destination():
    # freedoom1 E3M5's tag-6 lift (sector 264) holds a teleport pad (lines 2289-2292, WR, facing out): with the lift
    # down, a walk onto it ends at the pad's destination (736, 2752), not on the lift.
    rooms = auto_rooms(MapGeometry.load("E3M5", "freedoom1.wad"))
    grid = LiveGrid(rooms)
    down = _walk(grid, lift=(264, -112.0, 144.0))
    beside, pad = (736.0, 2960.0), (736.0, 3040.0)  # sector 263 south of the pad; the pad's middle
    assert math.isinf(_distance(grid, down, beside, pad))
    assert _distance(grid, down, beside, (736.0, 2752.0)) < 200  # over the pad's edge: there at once


@pytest.mark.slow
def test_a_teleport_pad_is_taken_only_once_a_player_can_step_onto_it():
    # freedoom1 E4M9's tag-19 pad (sector 214, lines 1216-1218 facing out) stands 120 units over the floor round it,
    # its floor at its ceiling, until the tag-17 switch lowers it: till then its lines are never crossed.
    rooms = auto_rooms(MapGeometry.load("E4M9", "freedoom1.wad"))
    grid = LiveGrid(rooms)
    beside, there = (224.0, 1320.0), (-2840.0, 808.0)  # sector 213 south of the pad (floor -8); its destination
    assert not _distance(grid, _walk(grid), beside, there) < 1000
    assert _distance(grid, _walk(grid, pad=(214, -8.0, 112.0)), beside, there) < 100


@pytest.mark.slow
def test_a_run_that_would_carry_the_player_onto_a_teleport_pad_is_pushed_back_unless_the_way_takes_it():
    # freedoom2 MAP19: the way north to the tag-14 lift squeezes between the tag-12 pad (its east line 1445 at
    # x = -768, facing east) and a raised block; a run north-west cuts the pad's corner and is sent across the map.
    rooms = auto_rooms(MapGeometry.load("MAP19", "freedoom2.wad"))
    grid = LiveGrid(rooms)
    here = (-742.0, 23.0)
    away = grid.teleport_ahead(here, (-9.0, 10.0), [])
    assert away is not None and away[0] > here[0]  # pushed back east, off the line
    assert grid.teleport_ahead(here, (0.0, 10.0), []) is None  # straight north: it stays clear
    _line, cells, dest = next(t for t in grid.teleports if t[0] == 1445)
    way = [grid.grid.cell_of(*here), int(cells[0]), dest]  # a way that takes this pad on purpose
    assert grid.teleport_ahead(here, (-9.0, 10.0), way) is None


@pytest.mark.slow
def test_stairs_narrower_than_a_cell_are_climbed_step_by_step():
    # freedoom1 E4M1's start room has a pit (sector 30, floor -64) holding a shotgun; its stairs up (sectors 31, 33,
    # 32: -48, -32, -16, each 8 units deep) rise 32 units from one cell's centre to the next, 16 at a time.
    grid = LiveGrid(auto_rooms(MapGeometry.load("E4M1", "freedoom1.wad")))
    pit, room = (-748.0, -36.0), (-776.0, -150.0)
    walk = _walk(grid)
    assert math.isfinite(_distance(grid, walk, pit, room))
    assert math.isfinite(_distance(grid, walk, room, pit))  # (down is a drop)
    # The same rise without the middle step is a wall: sector 33 raised to the top of the stairs.
    assert math.isinf(_distance(grid, _walk(grid, step=(33, -16.0, 192.0)), pit, room))


@pytest.mark.slow
def test_winding_stairs_are_climbed_on_a_bent_way():
    # freedoom2 MAP25: a pit (sector 324, floor -256) at (-960, 1100) has a spiral stair out to sector 328 (-48):
    # sectors 345 to 352, -232 to -64, each a few units across. Between some cell centres the straight line runs
    # within a player's radius of 328 and meets its floor at once (64 units up); a bent way round the steps does not.
    from doomagent.env.geometry import MAX_STEP
    from doomagent.policies._stairs import FINE

    grid = LiveGrid(auto_rooms(MapGeometry.load("MAP25", "freedoom2.wad")))
    pit, top = (-950.0, 1150.0), (-900.0, 1000.0)
    walk = _walk(grid)
    assert math.isfinite(_distance(grid, walk, pit, top))
    # The walk up, cell by cell: each step too high for the straight line has a bent way, from the one centre to
    # the other, 4 units (or a diagonal of them) at a time.
    _dist, pred = walk.field_to(np.array([grid.grid.cell_of(*top)]))
    cell, bent = grid.grid.cell_of(*pit), 0
    floors = grid.geometry.sector_floor.astype(float)
    while pred[cell] >= 0:
        nxt = int(pred[cell])
        if walk.floor[nxt] - walk.floor[cell] > MAX_STEP:
            assert (cell, nxt) in walk.winding  # the walk steers these by the bent way
            way = grid.stairs.way(cell, nxt, walk.floor, floors)
            assert way is not None
            assert way[0] == grid.grid.centre(cell) and way[-1] == grid.grid.centre(nxt)
            assert all(math.dist(p, q) <= FINE * math.sqrt(2) + 1e-6 for p, q in itertools.pairwise(way))
            bent += 1
        cell = nxt
    assert bent >= 1
    # Without step 351 (-88: set to -112, the step below it) the stair is broken: 48 units at once.
    assert math.isinf(_distance(grid, _walk(grid, step=(351, -112.0, 160.0)), pit, top))
    # Built again at the first heights (each step's answer is kept per heights it read): the same winding steps.
    assert _walk(grid).winding == walk.winding


@pytest.mark.slow
def test_a_player_over_a_pit_held_up_by_a_stair_stands_on_the_stair():
    # freedoom2 MAP25's spiral stair: a player at (-964, 1077) stands at -184 (step 347 is within its radius), its
    # centre over a cell of the pit (-256). A way walked from the pit's cell led back down and round.
    from doomagent.policies._footing import standing_cell

    grid = LiveGrid(auto_rooms(MapGeometry.load("MAP25", "freedoom2.wad")))
    walk, nav = _walk(grid), grid.grid
    here = (-964.0, 1077.0)
    assert walk.floor[nav.cell_of(*here)] == -256
    on = standing_cell(nav, walk, here, -184.0)
    assert walk.floor[on] == -184 and math.dist(nav.centre(on), here) < 24
    assert standing_cell(nav, walk, here, -256.0) == nav.cell_of(*here)  # at the pit's floor: the pit's cell


@pytest.mark.slow
def test_ground_given_up_counts_as_seen_round_it_and_no_farther(e1m2):
    # A walk to look at unseen ground that runs out of time gives up the ground within SEEN_WALK of it along the
    # grid (freedoom1 E2M4 walked to one corner from frame 8,644 to the cap): the next look goes elsewhere.
    from scipy.sparse.csgraph import dijkstra

    from doomagent.policies._seen import SEEN_WALK, UNSEEN_BEYOND, Seen

    _rooms, grid = e1m2
    walk = _walk(grid)
    start = grid.grid.cell_of(*grid.geometry.start[:2])
    reach = walk.reach(start)
    dist = dijkstra(walk.graph, indices=[start], min_only=True)
    seen = Seen.of(grid.n)
    target = seen.nearest_unseen(reach, dist)
    assert target is not None and dist[target[0]] > UNSEEN_BEYOND
    where = seen.give_up(walk, target, grid)
    assert math.dist(where, grid.grid.centre(int(target[0]))) < 1
    near = np.isfinite(dijkstra(walk.lengths, indices=target, limit=SEEN_WALK, min_only=True))
    assert seen.cells[near].all() and near.sum() > 1
    assert seen.cells.sum() == near.sum()  # nothing beyond it
    after = seen.nearest_unseen(reach, dist)
    assert after is not None and not near[after[0]]


@pytest.mark.slow
def test_a_trigger_crossed_on_the_way_counts_as_set_off_unless_another_moves_its_sectors():
    # freedoom1 E4M2's sector 222 (tag 5): trigger line 1467 (W1) raises it, switches 1182 and 1466 (S1) lower it to
    # the lowest floor beside it. With both on the map there is no telling which moved it: neither is marked.
    from doomagent.env.observation import LiveMap
    from doomagent.policies._interactions import set_off_already

    rooms = auto_rooms(MapGeometry.load("E4M2", "freedoom1.wad"))
    g = rooms.geometry
    items = [i for i in interactions(rooms) if i.moves == (222,)]
    trigger = next(i for i in items if 1467 in i.lines)
    floors, ceilings = g.sector_floor.astype(float), g.sector_ceiling.astype(float)
    risen = floors.copy()
    risen[222] = -32.0
    assert len(items) == 2
    assert set_off_already(items, LiveMap(floors, ceilings, frozenset()), floors, ceilings) == []
    assert set_off_already(items, LiveMap(risen, ceilings, frozenset()), floors, ceilings) == []
    alone = set_off_already([trigger], LiveMap(risen, ceilings, frozenset()), floors, ceilings)
    assert alone == [trigger] and trigger.done


@pytest.mark.slow
def test_a_run_round_a_narrow_bridges_corner_brakes_and_steps_back_onto_it():
    # freedoom1 E3M3: a 32-unit bridge at height 0 over a pit (-128 rails, -152 below), bent 45 degrees at its
    # south-west corner. A run west along its south arm, turned north at the corner, slid on off its outer edge.
    from doomagent.env.geometry import MAX_STEP
    from doomagent.policies._footing import held_back, slide_brake

    grid = LiveGrid(auto_rooms(MapGeometry.load("E3M3", "freedoom1.wad")))
    walk, nav = _walk(grid), grid.grid
    dist, pred = walk.field_to(np.array([nav.cell_of(352.0, -6100.0)]))  # up the bridge's west arm
    start = nav.cell_of(431.0, -6724.0)
    path = [start]
    while len(path) <= 20 and pred[path[-1]] >= 0:
        path.append(int(pred[path[-1]]))
    assert all(walk.floor[c] == 0 for c in path)
    # Running west (15 units a tic) 55 units short of the corner: its slide runs off the edge, so it brakes.
    brake = slide_brake(walk, nav, 0.0, (431.0, -6724.0), (-30.0, 3.0), path)
    assert brake is not None and brake[0] > 431.0
    # Along the south arm, far from the corner, or walking slowly: no brake.
    arm = [nav.cell_of(x, -6744.0) for x in (600.0, 580.0, 560.0)]
    assert slide_brake(walk, nav, 0.0, (640.0, -6744.0), (-30.0, 0.0), arm) is None
    assert slide_brake(walk, nav, 0.0, (431.0, -6724.0), (-4.0, 0.0), path) is None
    # Its centre over the rail at (360, -6724), held up at 0 by the bridge: back onto the bridge's nearest cell.
    assert walk.floor[nav.cell_of(360.0, -6724.0)] < -MAX_STEP
    back = held_back(nav, walk, (360.0, -6724.0), 0.0, dist)
    assert back is not None and math.dist(back, (360.0, -6724.0)) < 24 and walk.floor[nav.cell_of(*back)] == 0
    assert held_back(nav, walk, (360.0, -6724.0), -152.0, dist) is None  # down in the pit: nothing holds it up
    assert held_back(nav, walk, (640.0, -6744.0), 0.0, dist) is None  # on the bridge
