"""What the explorer can do on freedoom2 MAP20, on its real geometry without the engine: shoot a target that is a
wall, press both switches of one tag when they do different things, take a key from a pillar once the pillar is
down, go through a lift that lets a player by only while it is down, and break a walk off for the plan's next step
once it comes within reach."""

from __future__ import annotations

import math

import numpy as np
import pytest

from doomagent.env import MapGeometry
from doomagent.env.observation import LiveMap
from doomagent.env.progression import plan_for
from doomagent.env.rooms import auto_rooms
from doomagent.policies._explore_walk import Goal
from doomagent.policies._interactions import Interaction, interactions
from doomagent.policies.explorer import Explorer

pytestmark = pytest.mark.slow  # a map's walkable grid takes seconds to build

BLUE_KEY_PILLAR = 18  # 24 by 32 units, floor 1,496 until the tag-7 switch lowers it to -88
GATE = 165  # an 8-unit strip, floor and ceiling at 64, that the tag-12 switches lower for 3 s


@pytest.fixture(scope="module")
def map20() -> tuple[MapGeometry, Explorer]:
    g = MapGeometry.load("MAP20", "freedoom2.wad")
    return g, Explorer.for_map(auto_rooms(g), plan=plan_for(g), god=True)


def _ready(explorer: Explorer, live: LiveMap) -> Explorer:
    """Return a fresh explorer on the same map and grid (nothing tried yet), its walk built on `live`."""
    items = interactions(explorer.room_map)
    fresh = Explorer(explorer.room_map, explorer.live_grid, items, explorer.bosses, god=True)
    fresh.steps = [next(i for i in items if i.text == s.text and i.where == s.where) for s in explorer.steps]
    fresh._start = (live.floors.copy(), live.ceilings.copy())
    fresh._update(live)
    return fresh


def _heights(g: MapGeometry, *, pillar_down: bool = False) -> LiveMap:
    """Return the map's heights as it begins, or with the tag-7 switch done (special 102: each tagged floor lowered
    to the highest floor beside it; the key's pillar to -88)."""
    live = LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), frozenset(), ())
    if pillar_down:
        for sector in np.flatnonzero(g.sector_tag == 7).tolist():
            lines = (g.line_front == sector) | (g.line_back == sector)
            beside = set(np.concatenate([g.line_front[lines], g.line_back[lines]]).tolist()) - {sector, -1}
            live.floors[sector] = max(float(g.sector_floor[s]) for s in beside)
    return live


def _item(explorer: Explorer, text: str) -> Interaction:
    return next(i for i in explorer.items if i.text == text)


def test_a_target_that_is_a_wall_is_shot_from_in_front_of_it(map20):
    # The tag-8 target (line 642) is a one-sided wall at the back of an alcove: a sight line ending on it counted as
    # blocked, so the target had no cell to be shot from and the plan's second step was never done.
    _g, explorer = map20
    target = next(i for i in explorer.items if 642 in i.lines)
    assert target.kind == "shoot" and len(target.cells) >= 8
    xs = np.array([explorer.live_grid.grid.centre(int(c))[0] for c in target.cells])
    assert (xs < 328).all()  # all in front of it (its front side faces west)


def test_two_specials_on_one_tag_are_two_things_to_do(map20):
    # Tag 2: one switch lowers sector 40's floor (special 23), another raises its ceiling (103). Taken as one, the
    # floor was lowered, the ceiling left 40 units over it, and the way counted out of reach for the whole run.
    _g, explorer = map20
    floor = _item(explorer, "switch (tag 2) that moves a floor")
    door = _item(explorer, "switch (tag 2) that opens a door")
    assert floor.lines == (400,) and door.lines == (404,)


def test_a_key_on_a_pillar_is_taken_once_the_pillar_is_down(map20):
    g, explorer = map20
    here = (120.0, 1480.0)  # by the pillar, on the floor at -128
    for down in (False, True):
        live = _heights(g, pillar_down=down)
        assert live.floors[BLUE_KEY_PILLAR] == (-88.0 if down else 1496.0)
        ex = _ready(explorer, live)
        key = _item(ex, "the blue keycard")
        cells = ex._done_from(key, live)
        reach = ex._walk.reach(ex.walker.cell(here))
        assert bool(len(cells) and reach[cells].any()) is down


def test_a_lift_that_lets_a_player_by_only_while_down_is_gone_through_at_once(map20):
    # The tag-12 switches lower the 8-unit strip between two rooms for 3 s; each press was followed by a choice
    # made while the strip was still on its way down, and the walk never went through.
    g, explorer = map20
    live = _heights(g)
    ex = _ready(explorer, live)
    gate = _item(ex, "switch (tag 12) that lowers a lift")
    here = (-1728.0, -140.0)  # north of the strip, by the switch
    start = ex.walker.cell(here)
    reach = ex._walk.reach(start)
    for uses in (0, 3):  # each press, not only the first
        gate.uses = uses
        ex._whatif.clear()
        ex._gain(gate, live, reach, start)
        assert gate.opens is not None and len(gate.opens)
        x, y = ex.live_grid.grid.centre(
            int(min(gate.opens, key=lambda c: math.dist(here, ex.live_grid.grid.centre(int(c)))))
        )
        assert y < -176 and abs(x + 1728) < 40, (x, y)  # the walk goes first to just past the strip
    other = _item(ex, "switch (tag 4) that lowers a lift")  # a lift ridden up: room over it
    assert ex._gate(gate) and not ex._gate(other)


def test_the_plans_next_step_coming_within_reach_breaks_a_look_off_once(map20):
    g, explorer = map20
    here = (120.0, 1480.0)
    for down in (False, True):
        live = _heights(g, pillar_down=down)
        ex = _ready(explorer, live)
        for step in ex.steps[:3]:  # the trigger, the target and the switch that lowers the pillar: done
            step.uses = 1
        assert ex._next_step(live) is _item(ex, "the blue keycard")
        look = Goal(None, np.array([ex.walker.cell((-1000.0, 1376.0))]), "ground not seen yet")
        came = ex._came_within_reach(live, here, look)
        assert came is down
        if came:
            assert not ex._came_within_reach(live, here, look)  # once
