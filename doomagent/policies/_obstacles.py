"""Things a player bumps into: barrels, pillars, lamps, trees, hanging bodies. The map's lines say nothing of
them, so a walk planned on the floor plan alone pushes into a barrel for ever; the plan walker keeps its grid ways
off them and its straight walks clear of them."""

from __future__ import annotations

import numpy as np

from doomagent.env.rooms import RoomMap
from doomagent.env.specials import MULTIPLAYER_ONLY, SKILL_FLAG

PLAYER_RADIUS = 16.0
# Solid decorations (Doom's and Freedoom's thing types) and their radii in map units.
SOLID_THINGS: dict[int, float] = {
    2035: 10.0,  # barrel
    70: 16.0,  # burning barrel
    54: 32.0,  # big tree
    **dict.fromkeys((25, 26, 27, 28, 29, 30, 31, 32, 33, 35, 36, 37, 41, 42, 43, 44, 45, 46, 47, 48), 16.0),
    **dict.fromkeys((49, 50, 51, 52, 53, 55, 56, 57, 72, 73, 74, 75, 76, 77, 78, 85, 86, 2028), 16.0),
}


class Obstacles:
    """The solid things of a map on one skill level: a grid mask to route round, and a test for straight walks."""

    def __init__(self, room_map: RoomMap, skill: int = 3) -> None:
        things = room_map.geometry.things
        flag = SKILL_FLAG.get(skill, SKILL_FLAG[3])
        rows = [
            t
            for t in things
            if int(t["type"]) in SOLID_THINGS and t["flags"] & flag and not t["flags"] & MULTIPLAYER_ONLY
        ]
        self.centres = np.array([(float(t["x"]), float(t["y"])) for t in rows], dtype=float).reshape(-1, 2)
        self.radii = np.array([SOLID_THINGS[int(t["type"])] for t in rows], dtype=float)
        self.mask = room_map.navgrid.things_mask(self.centres, self.radii) if len(rows) else None

    def blocks(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Return True when a player walking straight from a to b would bump into one of the things."""
        if not len(self.radii):
            return False
        ax, ay = a
        dx, dy = b[0] - ax, b[1] - ay
        length2 = max(dx * dx + dy * dy, 1e-9)
        t = np.clip(((self.centres[:, 0] - ax) * dx + (self.centres[:, 1] - ay) * dy) / length2, 0.0, 1.0)
        near = np.hypot(ax + t * dx - self.centres[:, 0], ay + t * dy - self.centres[:, 1])
        start = np.hypot(self.centres[:, 0] - ax, self.centres[:, 1] - ay)
        # A thing the player already touches does not block walking away from it.
        return bool(np.any((near < self.radii + PLAYER_RADIUS) & (start >= self.radii + PLAYER_RADIUS)))
