"""The explorer's walk onto a lift it set moving, on freedoom1 E1M3's real geometry: a lift strip narrower than a
player is ridden from beside it, and a new goal never walks the field made for the goal before it. (WAD reading
only: the live heights are set by hand.)"""

from __future__ import annotations

import gc

import numpy as np
import pytest

from doomagent.env import MapGeometry
from doomagent.env.actions import Action
from doomagent.env.observation import Hud, LiveMap, Observation
from doomagent.env.rooms import auto_rooms
from doomagent.policies._explore_walk import LIFT_PAUSE, RIDE, RIDE_WAIT, STEP_IN, Goal, Walker
from doomagent.policies._interactions import Interaction
from doomagent.policies._livegrid import LiveGrid

pytestmark = pytest.mark.slow  # a map's walkable grid takes seconds to build

# Sector 2 is a nukage pit (floor -104) in room sector 5 (floor 0). Sector 4 (tag 6, floor -24) is a lift in strips
# 16 units wide along the pit's west wall; switch line 2102 (special 62) on one of them lowers it to the pit's
# floor, and 3 seconds later it comes back up, carrying a player whose box overlaps it out of the pit.
PIT, STRIP, SWITCH = 2, 4, 2102
IN_PIT = (-260.0, 250.0)


@pytest.fixture(scope="module")
def e1m3():
    return auto_rooms(MapGeometry.load("E1M3"))


@pytest.fixture(scope="module")
def live_grid(e1m3):
    return LiveGrid(e1m3)


def _heights(e1m3, strip_floor: float) -> tuple[np.ndarray, np.ndarray]:
    g = e1m3.geometry
    floors, ceilings = g.sector_floor.astype(float), g.sector_ceiling.astype(float)
    floors[STRIP] = strip_floor
    return floors, ceilings


def test_a_lift_narrower_than_the_player_is_reached_from_beside_it(e1m3, live_grid):
    g, grid = e1m3.geometry, live_grid.grid
    assert g.sector_at(*IN_PIT) == PIT and STRIP in g.lifts
    down = live_grid.build(*_heights(e1m3, -104.0), frozenset())
    start = grid.cell_of(*IN_PIT)
    assert down.standable[start]
    # A player centred on the strip touches the room's floor 104 units above: it never stands there.
    on_it = np.flatnonzero(live_grid.sector == STRIP)
    assert len(on_it) and not np.isfinite(down.field_to(on_it)[0][start])
    # Beside it, in the pit, its box overlaps the strip: those cells are walked to while it is down.
    beside = live_grid.touching([STRIP])
    assert set(on_it.tolist()) <= set(beside.tolist())
    in_pit = beside[(live_grid.sector[beside] == PIT) & down.standable[beside] & (down.floor == -104.0)[beside]]
    assert len(in_pit) >= 4  # (those also within a radius of the room stand on its floor: no way up from the pit)
    assert np.isfinite(down.field_to(beside)[0][start])
    # Once it is back up, the same cells stand on it: 80 units over the pit floor, out of reach from it.
    up = live_grid.build(*_heights(e1m3, -24.0), frozenset())
    assert (up.floor[in_pit] == -24.0).all()
    assert not np.isfinite(up.field_to(in_pit)[0][start])


def _walker(e1m3, live_grid) -> Walker:
    walker = Walker(e1m3, live_grid, note=lambda _text: None)
    walker.walk = live_grid.build(*_heights(e1m3, -24.0), frozenset())
    return walker


def _obs(here: tuple[float, float], z: float, live: LiveMap) -> Observation:
    hud = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))
    return Observation(np.zeros((4, 4, 3), np.uint8), hud, (*here, z), 0.0, 0, "A", PIT, (), False, live=live)


def test_the_switch_of_a_lift_strip_starts_a_ride_from_beside_it(e1m3, live_grid):
    walker = _walker(e1m3, live_grid)
    switch = Interaction("switch", "lift", (SWITCH,), (-304.0, 248.0), np.zeros(0, np.int64), moves=(STRIP,))
    switch.text = "switch (tag 6) that lowers a lift"
    here = (-290.0, 250.0)
    before = LiveMap(*_heights(e1m3, -24.0), frozenset())
    walker.act(_obs(here, -104.0, before), before, here, 1)  # the heights at the start: the strip up
    walker.start(Goal(switch, np.array([grid_cell(live_grid, here)]), switch.text, presses=1))
    walker.goal.heights = (before.floors, before.ceilings)
    lowered = LiveMap(*_heights(e1m3, -104.0), frozenset())
    walker.act(_obs(here, -104.0, lowered), lowered, here, 2)
    ride = walker.goal
    assert ride is not None and ride.label == RIDE and ride.below and ride.lifts == (STRIP,)
    assert set(ride.cells.tolist()) == set(live_grid.touching([STRIP]).tolist())
    # On its way down (halfway), the strip is walked to as though it were down already.
    halfway = LiveMap(*_heights(e1m3, -64.0), frozenset())
    walker.act(_obs(IN_PIT, -104.0, halfway), halfway, IN_PIT, 3)
    assert ride.ride_field is not None and np.isfinite(ride.ride_field[0][grid_cell(live_grid, IN_PIT)])


def test_a_ride_waits_on_the_lifts_that_moved_not_on_one_already_at_its_bottom(e1m3, live_grid):
    # Switch line 928 (tag 15) lowers sectors 180 and 256; 180 is no lower than any floor round it and stays put.
    walker = _walker(e1m3, live_grid)
    g = e1m3.geometry
    here = (-1856.0, 2456.0)
    floors, ceilings = g.sector_floor.astype(float), g.sector_ceiling.astype(float)
    before = LiveMap(floors, ceilings, frozenset())
    walker.act(_obs(here, 136.0, before), before, here, 1)
    switch = Interaction("switch", "lift", (928,), (-1856.0, 2472.0), np.zeros(0, np.int64), moves=(180, 256))
    walker.start(Goal(switch, np.array([grid_cell(live_grid, here)]), "switch (tag 15)", presses=1))
    walker.goal.heights = (floors, ceilings)
    lowered = floors.copy()
    lowered[256] = 136.0
    walker.act(_obs(here, 136.0, before), LiveMap(lowered, ceilings, frozenset()), here, 2)
    assert walker.goal is not None and walker.goal.label == RIDE and walker.goal.lifts == (256,)


def grid_cell(live_grid: LiveGrid, here: tuple[float, float]) -> int:
    return int(live_grid.grid.cell_of(*here))


def test_a_new_goal_walks_its_own_field_even_at_a_freed_goals_address(e1m3, live_grid):
    # The walk keeps the field it made for its goal while the goal stays the same; goals are told apart by serial
    # number: a goal made after another was freed may take its address (id), and did, at random, in long runs.
    walker = _walker(e1m3, live_grid)
    here = (-290.0, 250.0)
    live = LiveMap(*_heights(e1m3, -24.0), frozenset())
    first_cells = np.array([grid_cell(live_grid, (-200.0, 200.0))])
    walker.start(Goal(None, first_cells, "ground not seen yet"))
    walker._go(_obs(here, -104.0, live), live, here, walker.goal)
    first_serial = walker.goal.serial
    walker.goal = None
    gc.collect()
    second_cells = np.array([grid_cell(live_grid, (-200.0, 120.0))])
    second = Goal(None, second_cells, "ground not seen yet")
    assert second.serial != first_serial
    walker.start(second)
    walker._go(_obs(here, -104.0, live), live, here, second)
    dist, _pred = walker._field
    assert dist[second_cells[0]] == 0.0 and dist[first_cells[0]] > 0.0


def test_a_ride_whose_lift_went_back_down_with_the_player_waits_for_its_next_rise(e1m3, live_grid):
    # freedoom1 E4M4 (seed 8000, reference-nav): a monster in the way sent the lift back down with the player on it;
    # the ride ran out of time while the lift waited below to rise again, and the switch was walked back to.
    g = e1m3.geometry
    switch = Interaction("switch", "lift", (SWITCH,), (-304.0, 248.0), np.zeros(0, np.int64), moves=(STRIP,))
    here = (-290.0, 250.0)
    down = LiveMap(*_heights(e1m3, -104.0), frozenset())

    def ride_after(on_lift: bool, moved_ago: int) -> Walker:
        walker = _walker(e1m3, live_grid)
        walker.top = {STRIP: -24.0}
        walker._moved_at = np.full(g.n_sectors, -1_000_000)
        walker._decisions = 400
        walker._moved_at[STRIP] = walker._decisions - moved_ago
        walker._sector, walker.z = (STRIP if on_lift else PIT), -104.0
        ride = Goal(None, live_grid.touching([STRIP]), RIDE, lifts=(STRIP,), source=switch)
        ride.waited, ride.stepped = RIDE_WAIT + 1, STEP_IN
        walker.start(ride)
        assert walker._do(_obs(here, -104.0, down), down, here, ride) == Action.WAIT
        return walker

    assert ride_after(on_lift=True, moved_ago=10).goal is not None  # it came back down a moment ago: it rises again
    switch.rest_until = 99
    assert ride_after(on_lift=True, moved_ago=LIFT_PAUSE + 1).goal is None  # still for longer: it stays down
    assert switch.rest_until == 0  # missed: the switch may be pressed again at once
    assert ride_after(on_lift=False, moved_ago=10).goal is None  # the player is not on it: it left without it


def test_a_walk_turns_finely_where_the_view_runs_off_a_ledge(e1m3, live_grid):
    # freedoom2 MAP14 (seed 8000, reference-nav): a walk along a ledge drifted 16 degrees off its way (within the
    # tolerance for a far point), fell 64 units, and the red keycard was out of reach from below. A walk whose view
    # runs over ground a step below turns finely; along a wall or open floor it keeps the usual tolerance.
    from doomagent.policies._footing import drop_ahead

    walker = _walker(e1m3, live_grid)
    walker.z = 0.0
    here = (-300.0, 40.0)  # on the room's floor, between its south wall and the nukage pit (104 units down)
    hud = Hud(health=100, armor=0, ammo={}, weapon=1, weapon_ammo=0, weapons=(1,))

    def facing(angle: float) -> Observation:
        return Observation(np.zeros((4, 4, 3), np.uint8), hud, (*here, 0.0), angle, 0, "A", 5, (), False)

    assert drop_ahead(
        walker.walk, walker.live_grid.grid, walker.z, facing(90.0), here, (-300.0, 200.0)
    )  # north, over the pit
    assert drop_ahead(
        walker.walk, walker.live_grid.grid, walker.z, facing(30.0), here, (-130.0, 40.0)
    )  # east, drifting 30 degrees toward it
    assert not drop_ahead(
        walker.walk, walker.live_grid.grid, walker.z, facing(0.0), here, (-130.0, 40.0)
    )  # east along the room's strip
    assert not drop_ahead(
        walker.walk, walker.live_grid.grid, walker.z, facing(-20.0), here, (-130.0, 40.0)
    )  # drifting toward the wall: it slides on


def test_a_lift_a_floor_raised_comes_back_to_where_it_stood_when_called():
    # freedoom2 MAP13's sector 69 begins as low as the nukage pit round it (-288): switch line 1200 (special 20,
    # tag 3) raises its floor to -112, and only then does its lift switch (line 370) lower it and bring it back up
    # to -112. A player in the pit rides it up; the raise itself carries nobody (its floor stays where it went).
    rooms = auto_rooms(MapGeometry.load("MAP13", "freedoom2.wad"))
    live_grid = LiveGrid(rooms)
    g = rooms.geometry
    floors, ceilings = g.sector_floor.astype(float), g.sector_ceiling.astype(float)
    walker = Walker(rooms, live_grid, note=lambda _text: None)
    walker.walk = live_grid.build(floors, ceilings, frozenset())
    here = (800.0, 2600.0)  # in the pit, beside the lift
    start = LiveMap(floors, ceilings, frozenset())
    walker.act(_obs(here, -288.0, start), start, here, 1)  # the heights as the map began: the lift at -288
    raised = floors.copy()
    raised[69] = -112.0
    raise_it = Interaction("switch", "open", (1200,), (808.0, 2824.0), np.zeros(0, np.int64), moves=(69,))
    walker.start(Goal(raise_it, np.array([grid_cell(live_grid, here)]), "switch (tag 3) that moves a floor", presses=1))
    walker.goal.heights = (floors, ceilings)
    walker.act(_obs(here, -288.0, start), LiveMap(raised, ceilings, frozenset()), here, 2)
    assert walker.goal is None or walker.goal.label != RIDE  # no ride on a floor that moved
    lift = Interaction("switch", "lift", (370,), (704.0, 2652.0), np.zeros(0, np.int64), moves=(69,), repeat=True)
    walker.start(Goal(lift, np.array([grid_cell(live_grid, here)]), "switch (tag 3) that lowers a lift", presses=1))
    walker.goal.heights = (raised, ceilings)
    lowering = raised.copy()
    lowering[69] = -200.0
    walker.act(_obs(here, -288.0, start), LiveMap(lowering, ceilings, frozenset()), here, 3)
    ride = walker.goal
    assert ride is not None and ride.label == RIDE and ride.lifts == (69,) and ride.below  # up from the pit
