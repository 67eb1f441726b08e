"""The grid walker (the navigator on maps whose plan is the exit alone) on freedoom2 MAP29, where each rule was found
wanting: the shortest way to its exit runs through a yellow door no key of the route opens and the exit is a line
walked over (pressing it does nothing). (WAD reading only.)"""

from __future__ import annotations

import numpy as np
import pytest

from doomagent.env import MapGeometry
from doomagent.env.actions import Action
from doomagent.env.observation import Hud, Observation
from doomagent.env.rooms import auto_rooms
from doomagent.policies.grid import GridWalker

pytestmark = pytest.mark.slow  # a map's walkable grid takes seconds to build

YELLOW_DOOR = 11  # MAP29's door sector between the start and the exit, opened by a yellow key (line 129)
STRIP = (2504.0, -328.0)  # on the 24-unit strip of floor in front of MAP29's exit line 105 (y = -320)


@pytest.fixture(scope="module")
def map29():
    return auto_rooms(MapGeometry.load("MAP29", "freedoom2.wad"))


def _obs(x: float, y: float, angle: float) -> Observation:
    hud = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))
    return Observation(np.zeros((4, 4, 3), np.uint8), hud, (x, y, 0.0), angle, 0, "A", 2, (), False)


def _sectors_on_the_way(room_map, grid_field) -> set[int]:
    grid = room_map.navgrid
    x, y, _ = room_map.geometry.start
    path = grid.follow(grid_field, x, y, limit=2000)
    assert np.isfinite(grid_field[0][path[0]]) and grid_field[0][path[-1]] == 0  # a way, followed to its end
    return {int(grid.sector[c]) for c in path}


def test_the_way_to_the_exit_keeps_off_a_locked_door_whose_key_the_route_does_not_fetch(map29):
    assert map29.geometry.doors[YELLOW_DOOR].key == "yellow"
    assert YELLOW_DOOR in _sectors_on_the_way(map29, map29.navgrid.exit_field)  # the grid's own: through it
    walker = GridWalker.for_map(map29)
    assert YELLOW_DOOR not in _sectors_on_the_way(map29, walker.exit_field)  # round the pillars instead
    assert all(YELLOW_DOOR not in _sectors_on_the_way(map29, goal.field) for goal in walker.goals)


def test_an_exit_line_walked_over_is_walked_across_and_a_switch_exit_pressed(map29, e1m1_rooms):
    walker = GridWalker.for_map(map29, detours=False)
    assert walker.act(_obs(*STRIP, angle=90.0)) is Action.UP  # facing the line (north): on over it
    assert walker.act(_obs(*STRIP, angle=270.0)) in (Action.LEFT, Action.RIGHT)  # back to it: turn round first
    e1m1 = GridWalker.for_map(e1m1_rooms, detours=False)  # E1M1's exit is a switch (special 11) at (-400, 1296)
    assert e1m1.act(_obs(-400.0, 1260.0, angle=90.0)) is Action.USE


def test_the_plan_walker_walks_over_an_exit_line_taken_by_walking(map29):
    from doomagent.env.progression import plan_for
    from doomagent.policies.plan_walker import PlanWalker

    plan = plan_for(map29.geometry)
    assert plan.objectives[-1].kind == "exit" and plan.objectives[-1].line == 105
    walker = PlanWalker(map29, plan)
    walker.index = len(plan.legs[-1].points) - 1  # at the leg's end, before the line
    near = (2480.0, -328.0)
    assert walker.act(_obs(*near, angle=90.0)) in (Action.UP, Action.USE)  # on over it (a USE for a door, now and then)
    assert {walker.act(_obs(*near, angle=90.0)) for _ in range(5)} == {Action.UP}


def test_a_locked_door_with_no_way_round_has_its_key_fetched_first():
    # freedoom1 E3M6: yellow bars (door sector 147, 16-unit posts with 16-unit gaps) across the way to the exit,
    # which the route, walking sector to sector, passes between; the grid walker goes for the yellow key first.
    e3m6 = auto_rooms(MapGeometry.load("E3M6"))
    assert e3m6.route is not None and "yellow" not in e3m6.route.keys
    walker = GridWalker.for_map(e3m6)
    assert walker._keys_needed() == ("yellow",)
    yellow = [(float(t["x"]), float(t["y"])) for t in e3m6.geometry.things if int(t["type"]) in (6, 39)]
    assert walker.goals[0].position in yellow
