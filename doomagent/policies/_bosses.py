"""Where the explorer walks to fight a boss the map waits for (freedoom1 E1M8's barons, freedoom2 MAP07's mancubi):
near it, at a spot that sees it; a boss on ground the walk never reaches (a ledge, a cage) is shot from a spot the
eye sees it from, at the heights as they stand."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from doomagent.env.observation import LiveMap
from doomagent.env.rooms import RoomMap
from doomagent.policies._explore_walk import BOSS, Goal
from doomagent.policies._livegrid import LiveGrid, dilate
from doomagent.policies._sight import EYE, Sight

BOSS_CLASSES = {3003: "BaronOfHell", 16: "Cyberdemon", 7: "SpiderMastermind", 67: "Fatso", 68: "Arachnotron"}
BOSS_NEAR = 96.0  # map units from a live boss at which the walk to it stops (the navigator fights it)


@dataclass
class Bosses:
    """The bosses of one map whose deaths it waits for, and the walks to where they are seen."""

    room_map: RoomMap
    live_grid: LiveGrid
    names: frozenset[str]  # engine class names
    sight: Sight = field(init=False)

    def __post_init__(self) -> None:
        self.sight = Sight(self.room_map.geometry)

    def goal(self, live: LiveMap, reach: np.ndarray, anywhere: bool = False) -> Goal | None:
        """Return a walk toward the nearest live boss, one within reach (`anywhere`: any one), or None."""
        if not self.names:
            return None
        grid = self.live_grid.grid
        places = [(x, y) for name, x, y in live.monsters if name in self.names]
        # Only the bosses on ground the walk reaches (one in a cage is waited for: it comes out, or a trigger lets
        # it out, and meanwhile the walk does what else there is).
        grown = dilate(reach, grid.nx, grid.ny, 3)
        places = [p for p in places if anywhere or grown[grid.cell_of(*p)]]
        if not places:
            return None
        near = np.min([np.hypot(grid.cx - x, grid.cy - y) for x, y in places], axis=0)
        for radius in (BOSS_NEAR, 2 * BOSS_NEAR, 4 * BOSS_NEAR, 8 * BOSS_NEAR):
            cells = np.flatnonzero((near <= radius) & reach)
            # where a boss is in sight (the navigator fights what it sees): no wall between
            seen = [int(c) for c in cells[:: max(1, len(cells) // 200)] if self.sees(int(c), places, live, anywhere)]
            if seen:
                return Goal(None, np.array(seen), BOSS)
        return None

    def sees(self, cell: int, places: list[tuple[float, float]], live: LiveMap, above: bool) -> bool:
        """Return True when a place is in sight from the cell (`above`: a boss on a ledge; to the eye, live heights)."""
        at = self.live_grid.grid.centre(cell)
        if not above:
            return any(self.room_map.clear_use(at, p) for p in places)
        eye = (*at, float(live.floors[self.live_grid.sector[cell]]) + EYE)
        return any(self.sight.sees(live, eye, p) for p in places)
