import itertools
import math

from doomagent.env.navgrid import CELL


def test_distance_field_reaches_the_start_and_matches_the_route(e1m1, e1m1_rooms):
    grid = e1m1_rooms.navgrid
    start = e1m1.start[:2]
    d = grid.distance_to_exit(*start)
    assert math.isfinite(d)
    assert abs(d - e1m1_rooms.route.length) < 0.15 * e1m1_rooms.route.length
    path = grid.path_to_exit(*start, limit=10_000)
    assert math.dist(grid.centre(path[0]), start) < 2 * CELL
    end = grid.centre(path[-1])
    assert math.dist(end, e1m1.line_midpoint(e1m1.exit_lines[0])) < 64
    # Every step is between neighbouring walkable cells.
    assert all(grid.walkable[c] for c in path)
    assert all(math.dist(grid.centre(a), grid.centre(b)) <= CELL * 1.5 for a, b in itertools.pairwise(path))


def test_walls_and_hazards(e1m1, e1m1_rooms):
    grid = e1m1_rooms.navgrid
    assert not grid.walkable[grid.cell_of(-2000, -2000)]  # outside the map
    hazard_sectors = {int(s) for s in grid.sector[grid.hazard]}
    assert hazard_sectors and all(e1m1.sector_special[s] in (4, 5, 7, 11, 16) for s in hazard_sectors)
    assert {e1m1_rooms.room_of_sector(s) for s in hazard_sectors} == {"B"}
