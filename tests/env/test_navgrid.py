import itertools
import math

import pytest

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


@pytest.mark.slow  # plans E1M4 and builds its grid: seconds
def test_walker_fetches_the_keys_its_route_needs_first():
    from doomagent.env import MapGeometry
    from doomagent.env.rooms import build_rooms
    from doomagent.env.specials import KEY_THINGS
    from doomagent.policies.grid import GridWalker

    g = MapGeometry.load("E1M4")
    rooms = build_rooms(g)
    assert rooms.route.keys == ("yellow", "blue")  # the progression plan's order
    walker = GridWalker.for_map(rooms)
    where = {
        colour: [(float(t["x"]), float(t["y"])) for t in g.things if KEY_THINGS.get(int(t["type"])) == colour]
        for colour in ("yellow", "blue")
    }
    assert walker.goals[0].position in where["yellow"] and walker.goals[1].position in where["blue"]


def test_walker_plans_item_detours_on_e1m1(e1m1_rooms):
    from doomagent.policies.grid import GridWalker

    walker = GridWalker.for_map(e1m1_rooms)
    assert 1 <= len(walker.goals) <= 8
    # Farthest from the exit first.
    dist, _ = e1m1_rooms.navgrid.exit_field
    order = [dist[e1m1_rooms.navgrid.nearest_walkable(*goal.position, reach=2)] for goal in walker.goals]
    assert order == sorted(order, reverse=True)
