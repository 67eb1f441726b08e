"""Where a switch is used from: the cells in reach of it as the map begins, or, for a switch that none reach then,
the cells in reach of it once the floors round it have moved (freedoom1 E4M1's tag-16 switch, which the map's
progression plan needs for the yellow keycard)."""

from __future__ import annotations

import numpy as np
import pytest

from doomagent.env import MapGeometry
from doomagent.env.progression import plan_for
from doomagent.env.rooms import auto_rooms
from doomagent.policies._interactions import interactions, plan_steps
from doomagent.policies._use_spot import reaches, use_cells

pytestmark = pytest.mark.slow  # a map's walkable grid takes seconds to build

SWITCH = 193  # E4M1: special 71 (tag 16) in an alcove 40 units tall whose only other side is the tag-8 floor


@pytest.fixture(scope="module")
def e4m1():
    g = MapGeometry.load("E4M1")
    rooms = auto_rooms(g)
    return g, rooms, interactions(rooms)


def test_a_switch_no_cell_reaches_as_the_map_begins_is_used_from_where_floors_move(e4m1):
    g, rooms, items = e4m1
    assert not len(use_cells(rooms, SWITCH))  # nowhere, on the heights as the map begins
    (switch,) = [i for i in items if SWITCH in i.lines]
    assert len(switch.cells) and set(switch.moves) == {34}  # the yellow keycard's pedestal
    # Every cell is in use range of the switch with the tagged sectors out of the way (the live grid tells which
    # can be stood on as the map changes).
    grid = rooms.navgrid
    assert all(reaches(rooms, SWITCH, *grid.centre(int(c)), moved=True) for c in switch.cells)
    assert not any(reaches(rooms, SWITCH, *grid.centre(int(c))) for c in switch.cells if grid.walkable[c])
    # The plan's step before the yellow keycard is an interaction now (it was dropped, and the walk never went there).
    steps = plan_steps(plan_for(g), items)
    texts = [s.text for s in steps]
    assert switch in steps and texts.index(switch.text) < texts.index("the yellow keycard")


def test_a_switch_some_cell_reaches_as_the_map_begins_keeps_those_cells(e4m1):
    _g, rooms, items = e4m1
    for item in items:
        if item.kind == "switch" and SWITCH not in item.lines:
            static = np.unique(np.concatenate([use_cells(rooms, line) for line in item.lines]))
            assert item.cells.tolist() == static.tolist(), item.text


def test_a_switch_behind_a_shut_strip_waits_for_the_strip_to_open(e4m1):
    # The alcove's switch line sits behind a strip (sector 318, floor and ceiling 376) that the tag-8 switch lowers to
    # 344: until then a use stops at the strip. A walk that came to it before the tag-8 switch (seed 8000 in god mode,
    # on a route a trial walk change took) pressed three times, stalled and circled the alcove for 1,300 frames.
    g, rooms, items = e4m1
    (switch,) = [i for i in items if SWITCH in i.lines]
    assert switch.shut and all(set(way) <= {732, 1638} for way in switch.shut)  # the strip's two lines
    floors, ceilings = g.sector_floor.astype(float), g.sector_ceiling.astype(float)
    assert not switch.usable(rooms, floors, ceilings)
    floors[318] = 344.0  # the tag-8 floor down
    assert switch.usable(rooms, floors, ceilings)
    # Switches some cell reaches as the map begins wait for nothing.
    others = [i for i in items if i.kind == "switch" and i is not switch]
    start = g.sector_floor.astype(float), g.sector_ceiling.astype(float)
    assert others and all(not i.shut and i.usable(rooms, *start) for i in others if not i.behind)
