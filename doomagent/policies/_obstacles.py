"""Things a player bumps into: barrels, pillars, lamps, trees, hanging bodies. The map's lines say nothing of
them, so a walk planned on the floor plan alone pushes into a barrel for ever; the plan walker keeps its grid ways
off them and its straight walks clear of them."""

from __future__ import annotations

import numpy as np

from doomagent.env import specials
from doomagent.env.geometry import MIN_HEADROOM
from doomagent.env.navgrid import CELL
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
        grid = room_map.navgrid
        mask = grid.things_mask(self.centres, self.radii) if len(rows) else np.zeros(len(grid.cx), dtype=bool)
        self.mask = mask | _below_ledges(room_map)
        self._drops = room_map.one_way[0]  # one-way lines: a drop seen from their passable side
        self._room_map = room_map
        self._shut: dict[frozenset[int], np.ndarray] = {}

    def shut(self, opened: frozenset[int]) -> np.ndarray:
        """Return `mask` and the cells of doors shut as the map starts that only a switch or a trigger opens (no
        push does), but those in `opened` (sectors set moving so far): the grid shows every door open, and a way
        through one of these is a push at a wall."""
        if opened not in self._shut:
            g, grid = self._room_map.geometry, self._room_map.navgrid
            remote = [
                s
                for s, door in g.doors.items()
                if s not in opened
                and g.sector_ceiling[s] - g.sector_floor[s] < MIN_HEADROOM
                and not any(_pushed(int(g.line_special[line])) for line in door.lines)
            ]
            self._shut[opened] = self.mask | np.isin(grid.sector, remote)
        return self._shut[opened]

    def near_drop(self, here: tuple[float, float], reach: float = 64.0) -> bool:
        """Return True when a one-way line (a ledge's edge) lies within `reach` of `here`."""
        if not len(self._drops):
            return False
        a, b = self._drops[:, 0:2], self._drops[:, 2:4]
        d = b - a
        p = np.array(here)
        t = np.clip(((p - a) * d).sum(1) / np.maximum((d * d).sum(1), 1e-9), 0.0, 1.0)
        return bool((np.hypot(*(a + t[:, None] * d - p).T) < reach).any())

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


def _pushed(special: int) -> bool:
    """Return True for a door line a player opens by pushing it (not a switch's or trigger's tagged door)."""
    action = specials.door_action(special)
    return action is not None and action[0] == "manual"


def _below_ledges(room_map: RoomMap) -> np.ndarray:
    """Return the grid cells closer than a player's radius to a step too high to climb, on its low side: a player
    there would overlap the higher floor, so nobody stands there (a gap between two crates as wide as the player
    is no way through)."""
    grid = room_map.navgrid
    lines, _numbers, from_front = room_map.one_way
    mask = np.zeros(len(grid.cx), dtype=bool)
    for (ax, ay, bx, by), blocked_front in zip(lines, from_front, strict=True):
        i0 = max(0, int((min(ax, bx) - PLAYER_RADIUS - grid.x0) / CELL))
        i1 = min(grid.nx - 1, int((max(ax, bx) + PLAYER_RADIUS - grid.x0) / CELL))
        j0 = max(0, int((min(ay, by) - PLAYER_RADIUS - grid.y0) / CELL))
        j1 = min(grid.ny - 1, int((max(ay, by) + PLAYER_RADIUS - grid.y0) / CELL))
        cells = (np.arange(j0, j1 + 1)[:, None] * grid.nx + np.arange(i0, i1 + 1)[None, :]).ravel()
        px, py = grid.cx[cells], grid.cy[cells]
        dx, dy = bx - ax, by - ay
        t = np.clip(((px - ax) * dx + (py - ay) * dy) / max(dx * dx + dy * dy, 1e-9), 0.0, 1.0)
        near = np.hypot(ax + t * dx - px, ay + t * dy - py) < PLAYER_RADIUS
        front = (px - ax) * dy - (py - ay) * dx > 0
        mask[cells[near & (front == blocked_front)]] = True
    return mask
