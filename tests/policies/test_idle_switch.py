"""A switch or trigger that takes floors down to the lowest floor beside them is not worth a walk while they already
lie that low: set off then, it moves nothing (freedoom1 E4M2's tag-10 switches lower sectors 305 and 307, which lie
level with the room round them until trigger line 2263 raises them; the walk pressed them three times in vain)."""

from __future__ import annotations

import pytest

from doomagent.env import MapGeometry
from doomagent.env.rooms import auto_rooms
from doomagent.policies._interactions import interactions

pytestmark = pytest.mark.slow  # a map's walkable grid takes seconds to build


@pytest.fixture(scope="module")
def e4m2():
    g = MapGeometry.load("E4M2")
    rooms = auto_rooms(g)
    return g, rooms, interactions(rooms)


def _heights(g):
    return g.sector_floor.astype(float), g.sector_ceiling.astype(float)


def test_a_floor_already_as_low_as_those_beside_it_waits_until_it_is_raised(e4m2):
    g, rooms, items = e4m2
    lowers = [i for i in items if i.kind == "switch" and set(i.moves) == {305, 307}]
    specials = {int(g.line_special[line]) for i in lowers for line in i.lines}
    assert lowers and all(i.down_to_lowest for i in lowers) and specials == {23, 60}  # S1, SR: floor to lowest
    floors, ceilings = _heights(g)
    assert all(floors[s] == floors[g.neighbours(s)].min() for s in (305, 307))
    assert not any(i.usable(rooms, floors, ceilings) for i in lowers)
    floors[[305, 307]] = ceilings[[305, 307]]  # what line 2263 (special 5: floor up to the lowest ceiling) does
    assert all(i.usable(rooms, floors, ceilings) for i in lowers)


def test_a_lift_at_the_bottom_is_not_called_but_one_above_a_lower_floor_is(e4m2):
    g, rooms, items = e4m2
    (lift,) = [i for i in items if i.kind == "switch" and i.text == "switch (tag 6) that lowers a lift"]
    floors, ceilings = _heights(g)
    assert not lift.usable(rooms, floors, ceilings)  # sectors 180, 192, 202: level with every floor beside them
    floors[192] += 64.0  # one of its sectors raised (the tag-6 floor switch does so): it has somewhere to go down
    assert lift.usable(rooms, floors, ceilings)


def test_what_moves_floors_otherwise_is_never_held_back_by_the_rule(e4m2):
    g, rooms, items = e4m2
    others = [i for i in items if not i.down_to_lowest and i.kind in ("switch", "walk")]
    floors, ceilings = _heights(g)
    assert others and all(i.usable(rooms, floors, ceilings) for i in others if not i.behind and not i.shut)


def test_a_lift_down_for_a_while_is_judged_at_the_top_it_comes_back_to(e4m2):
    g, rooms, items = e4m2
    (lift,) = [i for i in items if i.kind == "switch" and i.text == "switch (tag 8) that lowers a lift"]
    floors, ceilings = _heights(g)
    first = floors.copy()
    assert lift.usable(rooms, floors, ceilings, first)
    for s in lift.moves:  # down at the bottom of its ride, waiting to come back up
        floors[s] = floors[g.neighbours(s)].min()
    assert not lift.usable(rooms, floors, ceilings)  # judged where it is now, it has nowhere lower to go
    assert lift.usable(rooms, floors, ceilings, first)  # judged at its top, as the explorer does
