"""Ways through lifts on freedoom1 E1M9's real geometry: a use that would meet its switch edge-on is set right
first; a lift called from below is walked across to what lies past it rather than ridden; and a way two lifts long
(across the tag-5 lift, up the tag-23 one, to the exit) is found by the lift network. (WAD reading only: the live
heights are the map's own.)"""

from __future__ import annotations

import numpy as np
import pytest

from doomagent.env import MapGeometry
from doomagent.env.actions import Action
from doomagent.env.observation import Hud, LiveMap, Observation
from doomagent.env.rooms import auto_rooms
from doomagent.policies._explore_walk import Goal, Walker
from doomagent.policies._interactions import interactions
from doomagent.policies._livegrid import LiveGrid
from doomagent.policies._through import lift_across, past_lift
from doomagent.policies._use_spot import edge_on, nearest_on_line, use_strikes

pytestmark = pytest.mark.slow  # a map's walkable grid takes seconds to build

# Switch line 168 (tag 22) runs along x = -832 from y 712 to 792, facing east; an alcove opens in the same wall north
# of it, and the wall goes on south of it.
SWITCH = 168
# Lift sector 109 (tag 5, top at 40) stands between sector 108 (floor -116, ceiling 12) and sector 227 (floor -120):
# lowered, it joins them; up, it is a wall from 108 and a ride to the ground round its top (sector 117 and on). Past
# 227 a way round leads to sector 12 (floor -72), where switch line 1214 calls lift 254 (tag 23) up to sector 59 and
# the yellow door.
LIFT, BELOW, PAST, TOP = 109, (1570.0, 1540.0), 227, 117
SECOND_LIFT, SECOND_SWITCH, IN_12 = 254, 1214, (1312.0, 960.0)
EXIT_LINE = 1662


@pytest.fixture(scope="module")
def e1m9():
    g = MapGeometry.load("E1M9")
    rooms = auto_rooms(g)
    return g, rooms, LiveGrid(rooms), interactions(rooms)


def _live(g, keys: frozenset[str] = frozenset()) -> LiveMap:
    return LiveMap(g.sector_floor.astype(float), g.sector_ceiling.astype(float), keys)


def _obs(here: tuple[float, float], angle: float, live: LiveMap) -> Observation:
    hud = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))
    return Observation(np.zeros((4, 4, 3), np.uint8), hud, (*here, -8.0), angle, 0, "A", 21, (), False, live=live)


def test_a_use_that_would_meet_the_switch_edge_on_or_past_its_end_is_set_right_first(e1m9):
    g, rooms, live_grid, items = e1m9
    # Against the wall south of it, turned 6 degrees off the wall: the use runs into the wall short of the switch.
    assert not use_strikes(rooms, SWITCH, -830.0, 688.0, 96.0)
    assert edge_on(rooms, SWITCH, -830.0, 688.0, nearest_on_line(rooms, SWITCH, -830.0, 688.0, inset=0.3))
    # Square in front of it, the use strikes its middle; facing away, or from past its range, it does not.
    assert use_strikes(rooms, SWITCH, -800.0, 752.0, 180.0)
    assert not use_strikes(rooms, SWITCH, -800.0, 752.0, 0.0)
    assert not use_strikes(rooms, SWITCH, -700.0, 752.0, 180.0)
    assert not edge_on(rooms, SWITCH, -800.0, 752.0, (-832.0, 752.0))
    # The walk, come to the switch in the alcove's mouth beside it and facing along the wall, steps out in front of
    # it before any press (it pressed three times from there, in vain, on seed 8011); from in front it presses.
    (switch,) = [i for i in items if SWITCH in i.lines]
    walker = Walker(rooms, live_grid, note=lambda _text: None)
    live = _live(g)
    goal = Goal(switch, switch.cells, switch.text)
    action = walker._press(_obs((-832.0, 816.0), 268.0, live), (-832.0, 816.0), goal, switch)
    assert action in (Action.UP, Action.STRAFE_LEFT, Action.STRAFE_RIGHT) and goal.aims == 1 and goal.presses == 0
    action = walker._press(_obs((-800.0, 752.0), 180.0, live), (-800.0, 752.0), goal, switch)
    assert action == Action.USE and goal.presses == 1


def test_a_lift_called_from_below_is_walked_across_to_what_lies_past_it(e1m9):
    g, _rooms, live_grid, items = e1m9
    assert g.sector_at(*BELOW) == 108 and live_grid.lifts[LIFT]
    start = int(live_grid.grid.cell_of(*BELOW))
    (second,) = [i for i in items if SECOND_SWITCH in i.lines]
    past = past_lift(live_grid, _live(g), {LIFT: 40.0}, start, [second.cells])
    assert past is not None
    sectors = set(live_grid.sector[past].tolist())
    assert PAST in sectors and 12 in sectors and TOP not in sectors and LIFT not in sectors
    # What lies at the top of the ride is ridden to; what neither way reaches leaves the lift to its ride.
    top_cells = np.flatnonzero(live_grid.sector == TOP)
    assert past_lift(live_grid, _live(g), {LIFT: 40.0}, start, [top_cells, second.cells]) is None
    assert past_lift(live_grid, _live(g), {LIFT: 40.0}, start, []) is None


def test_the_lift_network_finds_a_way_two_lifts_long(e1m9):
    g, _rooms, live_grid, items = e1m9
    live = _live(g, frozenset({"yellow"}))
    walk = live_grid.build(live.floors, live.ceilings, live.keys)
    (exit_switch,) = [i for i in items if EXIT_LINE in i.lines]
    lifts = [(tuple(s for s in i.moves if live_grid.lifts[s]), i.cells) for i in items if i.effect == "lift"]
    first = g.sector_floor.astype(float)
    # From below the tag-5 lift: across it first (the way past it runs into sector 227, not up onto the lift).
    found = lift_across(live_grid, live, walk, int(live_grid.grid.cell_of(*BELOW)), lifts, first, exit_switch.cells)
    assert found is not None and found[0] == LIFT
    assert len(found[1]) and PAST in set(live_grid.sector[found[1]].tolist())
    # From the room of the tag-23 switch: that lift next, ridden up.
    assert g.sector_at(*IN_12) == 12
    found = lift_across(live_grid, live, walk, int(live_grid.grid.cell_of(*IN_12)), lifts, first, exit_switch.cells)
    assert found is not None and found[0] == SECOND_LIFT
    # Without the yellow keycard the exit lies behind a locked door: no way, whatever the lifts do.
    locked = _live(g)
    walk = live_grid.build(locked.floors, locked.ceilings, locked.keys)
    assert (
        lift_across(live_grid, locked, walk, int(live_grid.grid.cell_of(*IN_12)), lifts, first, exit_switch.cells)
        is None
    )
