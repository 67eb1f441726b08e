"""What the plan walker reads off a map's geometry, on the real freedoom1 maps where each rule was found wanting:
one-way lines (a crate climbed from nowhere, a bridge over a pit), the spot a switch is used from (its front
side, within reach), solid things in the way (a barrel), and the stall watch starting afresh at each new point.
(WAD reading only.)"""

from __future__ import annotations

import numpy as np
import pytest

from doomagent.env import MapGeometry
from doomagent.env.rooms import auto_rooms
from doomagent.policies._obstacles import Obstacles
from doomagent.policies._steer import ProgressWatch, step_toward
from doomagent.policies._use_spot import nearest_on_line, on_front, reaches, use_cells

pytestmark = pytest.mark.slow  # a map's walkable grid takes seconds to build


@pytest.fixture(scope="module")
def e1m3():
    return auto_rooms(MapGeometry.load("E1M3"))


@pytest.fixture(scope="module")
def e1m4():
    return auto_rooms(MapGeometry.load("E1M4"))


def test_a_crate_is_a_wall_from_the_floor_and_a_drop_from_its_top(e1m4):
    # Sector 39 (floor 64) is a crate standing in room sector 31 (floor 0): its side, line 358 (x=-384).
    floor, top = (-360.0, -480.0), (-416.0, -480.0)
    assert e1m4.clear_path(floor, top)  # the undirected test counts any line passable one way as open
    assert not e1m4.clear_path(floor, top, directed=True)
    assert not e1m4.clear_path(top, floor, directed=True)  # a drop off the route is kept off
    assert e1m4.clear_path(top, floor, directed=True, crossing=np.array([358]))  # the route's own drop is walked


def test_the_bridge_over_the_nukage_pit_is_kept_to(e1m3):
    # Sector 92 (floor 96) bends round pit sector 90 (floor -32): the straight way across the bend falls in.
    start, across = (-672.0, 2608.0), (104.0, 2608.0)
    assert e1m3.clear_path(start, across)
    assert not e1m3.clear_path(start, across, directed=True, crossing=np.array([433, 520]))


def test_a_switch_is_used_from_its_front_side_within_reach(e1m3):
    # Line 647 (x=1052, special 23) faces east into sector 135; from the west (x=1004, sector 135 too, behind
    # the 36-unit step sectors 136/137) a press does nothing.
    line = 647
    assert on_front(e1m3, line, 1070.0, 2612.0) and not on_front(e1m3, line, 1004.0, 2612.0)
    assert reaches(e1m3, line, 1070.0, 2612.0) and not reaches(e1m3, line, 1004.0, 2612.0)
    assert not reaches(e1m3, line, 1150.0, 2612.0)  # out of reach
    cells = use_cells(e1m3, line)
    xs = e1m3.navgrid.cx[cells]
    assert len(cells) > 0 and (xs > 1052).all()
    # Aimed no nearer an end than 30% of its length (a use at the very end slips past it).
    assert nearest_on_line(e1m3, line, 1070.0, 2700.0, inset=0.3) == pytest.approx((1052.0, 2588.0 + 0.7 * 48))


def test_a_switch_on_a_ledge_is_used_from_the_floor_below(e1m3):
    # Line 361 lies in strip sector 270, 56 units above sector 272; the spots are on 272's floor below it.
    cells = use_cells(e1m3, 361)
    sectors = {int(e1m3.navgrid.sector[c]) for c in cells}
    assert 272 in sectors and 270 not in sectors


def test_a_barrel_blocks_a_straight_walk_and_the_grid_way_goes_round(e1m4):
    things = Obstacles(e1m4, skill=3)
    barrel = (-1152.0, 224.0)  # thing type 2035 on skill 3
    assert things.blocks((barrel[0] + 60, barrel[1]), (barrel[0] - 60, barrel[1]))
    assert not things.blocks((barrel[0] + 60, barrel[1] + 60), (barrel[0] - 60, barrel[1] + 60))
    assert things.mask is not None and things.mask[e1m4.navgrid.cell_of(*barrel)]
    grid = e1m4.navgrid
    goal = grid.cells_near(barrel[0] - 64, barrel[1], reach=16.0)
    dist, _ = grid.field_to(goal, avoid=things.mask)
    assert not np.isfinite(dist[grid.cell_of(*barrel)])  # no way leads through the barrel's cells


def test_the_stall_watch_starts_afresh_at_each_new_goal():
    watch = ProgressWatch(patience=3)
    assert all(watch.stalled(10.0, "a") is None for _ in range(4))
    assert watch.stalled(10.0, "a") is not None  # no nearer in more than 3 decisions
    assert watch.stalled(900.0, "b") is None  # the next point is far: not a stall against the last one
    assert all(watch.stalled(900.0 - 10 * i, "b") is None for i in range(1, 6))


def test_a_step_toward_a_spot_slid_past_needs_no_turn():
    # A ride from beside a lift strip steps into its edge; a player that slid past it steps back at once (turning
    # round first took a second, and the lift went up without it: freedoom2 MAP21, seed 8000).
    from doomagent.env.actions import Action
    from doomagent.env.observation import Hud, Observation

    hud = Hud(health=100, armor=0, ammo={}, weapon=1, weapon_ammo=0, weapons=(1,))
    facing_east = Observation(np.zeros((4, 4, 3), np.uint8), hud, (0.0, 0.0, 0.0), 0.0, 0, None, 0, (), False)
    assert step_toward(facing_east, (50.0, 10.0)) == Action.UP
    assert step_toward(facing_east, (-50.0, 5.0)) == Action.DOWN
    assert step_toward(facing_east, (5.0, 50.0)) == Action.STRAFE_LEFT
    assert step_toward(facing_east, (-10.0, -50.0)) == Action.STRAFE_RIGHT


def test_a_gap_between_two_crates_as_wide_as_the_player_is_no_way_through(e1m4):
    # Sectors 60 (x -944..-880) and 67/66 (x -1040..-976) rise 64-192 units above room sector 34 (floor -256):
    # the 32 units between them take a player's width exactly, and he cannot fit.
    things = Obstacles(e1m4, skill=3)
    assert things.mask is not None
    gap = e1m4.navgrid.cell_of(-960.0, 48.0)
    assert e1m4.navgrid.walkable[gap] and things.mask[gap]
    open_floor = e1m4.navgrid.cell_of(-800.0, -300.0)
    assert not things.mask[open_floor]


def test_supplies_are_fetched_when_short_nearest_first_and_each_tried_once(e1m4):
    from doomagent.env.observation import Hud
    from doomagent.policies._supplies import Supplies

    supplies = Supplies(e1m4, skill=3)
    kinds = {s.kind for s in supplies.items}
    assert {"health", "armor", "bullets", "shells"} <= kinds
    armed = (1, 2, 3, 4, 5, 6)  # shotgun, chaingun, rocket launcher, plasma rifle owned
    fine = Hud(health=100, armor=100, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=armed)
    hurt = Hud(health=30, armor=100, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=armed)
    pistol = Hud(health=100, armor=100, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2, 4))
    assert supplies.wanted(fine, "bullets") == set()
    assert supplies.wanted(hurt, "bullets") == {"health"}
    assert supplies.wanted(pistol, "bullets") == {"weapon 3", "weapon 5", "weapon 6"}  # the weapons it does not own
    here = (896.0, -1760.0)  # the player start
    target = supplies.next_target(here, {"health"}, None)
    assert target is not None and target.kind == "health"
    dist, _ = e1m4.navgrid.field_to(np.array([e1m4.navgrid.nearest_walkable(*here)]))
    healths = [s for s in supplies.items if s.kind == "health" and np.isfinite(dist[s.cell])]
    assert dist[target.cell] == min(dist[s.cell] for s in healths)
    supplies.drop()
    assert target not in supplies.items and supplies.target is None
    # E1M4's shotgun, on the map's list of weapons, is fetched by a player without one
    assert "weapon 3" in kinds
    shotgun = supplies.next_target(here, {"weapon 3"}, None)
    assert shotgun is not None and shotgun.kind == "weapon 3"
    supplies.drop()
    # a look that finds nothing worth the walk is not made again for the same kinds until the player has moved
    assert supplies.next_target(here, {"weapon 4"}, None) is None  # the chaingun: 5,875 units along the grid
    assert supplies._fruitless == (here, frozenset({"weapon 4"}))
    supplies.items.append(supplies.items[0].__class__(here, "weapon 4", e1m4.navgrid.nearest_walkable(*here)))
    assert supplies.next_target((here[0] + 100, here[1]), {"weapon 4"}, None) is None  # 100 units on: not yet
    assert supplies.next_target((here[0] + 300, here[1]), {"weapon 4"}, None) is not None
