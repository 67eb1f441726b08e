"""The explorer's walk on real freedoom geometry: a trigger line counts as crossed the way Doom counts it, and a
closed door thinner than a grid cell is pushed, not walked into. (WAD reading only.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

from doomagent.env import MapGeometry
from doomagent.env.observation import LiveMap
from doomagent.env.rooms import auto_rooms
from doomagent.policies._explore_walk import Walker
from doomagent.policies._livegrid import LiveGrid
from doomagent.policies._use_spot import spans


@pytest.mark.slow
def test_a_step_past_a_trigger_lines_end_within_the_radius_sets_it_off():
    # freedoom1 E2M6 line 717 runs from (1072, 240) to (1072, 368); the engine opened its doors when the player's
    # centre crossed x = 1072 at y = 381, 13 units past the line's end (its box touched the line).
    rooms = auto_rooms(MapGeometry.load("E2M6", "freedoom1.wad"))
    assert spans(rooms, 717, (1078.0, 383.0), (1068.0, 381.0))
    assert spans(rooms, 717, (1080.0, 300.0), (1064.0, 300.0))
    assert not spans(rooms, 717, (1080.0, 400.0), (1064.0, 400.0))  # 32 units past the end: no touch


@pytest.mark.slow
def test_a_shut_door_thinner_than_a_cell_is_found_on_the_way():
    # freedoom1 E2M9: the door sector 174 is 8 units deep (y 224..232) and pushed at line 1320; no grid cell's
    # centre falls in it, so the walk saw no door on its way and pressed on into it for 1,000 frames.
    g = MapGeometry.load("E2M9", "freedoom1.wad")
    rooms = auto_rooms(g)
    walker = Walker(rooms, LiveGrid(rooms), lambda _text: None)
    floors, ceilings = g.sector_floor.astype(float), g.sector_ceiling.astype(float)
    shut = LiveMap(floors, ceilings, frozenset(), ())
    door = walker._door_between((856.0, 248.0), (856.0, 216.0), shut)
    assert door is not None and math.isclose(door[1], 232.0) and math.isclose(door[0], 856.0)
    opened = ceilings.copy()
    opened[174] = 128.0
    assert walker._door_between((856.0, 248.0), (856.0, 216.0), LiveMap(floors, opened, frozenset(), ())) is None
    assert walker._door_between((700.0, 300.0), (700.0, 260.0), shut) is None  # a step that crosses no door
    assert np.all(g.sector_ceiling[[174]] - g.sector_floor[[174]] == 0)
