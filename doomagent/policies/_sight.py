"""Who can see the player: lines of sight across the map as it stands now (doors shut or open, lifts up or down),
for a navigator that turns to face a monster shooting from outside its view instead of turning blindly.

A sight line is blocked by a one-sided line, by a two-sided line whose opening is shut (a closed door), and by an
opening the line passes above or below (a ledge, a low window): as in Doom, the target counts as seen when some
height of its body is visible through every opening on the way."""

from __future__ import annotations

import math

import numpy as np

from doomagent.env.geometry import MIN_HEADROOM, MapGeometry
from doomagent.env.observation import LiveMap
from doomagent.env.rooms import crossed

EYE = 41.0  # the player's eye height over its floor
BODY = 56.0  # a monster's height, about (most stand 56 units tall; its lowest and highest parts are tried)
MISSILE_Z = 32.0  # the height over the player's floor a missile it fires leaves at


class Sight:
    """Line-of-sight tests on one map."""

    def __init__(self, geometry: MapGeometry) -> None:
        self.geometry = geometry
        ends = geometry.vertices[geometry.line_v]
        self.segments = np.hstack([ends[:, 0], ends[:, 1]])
        self.front, self.back = geometry.line_front, geometry.line_back

    def _openings(
        self, live: LiveMap, a: tuple[float, float], b: tuple[float, float]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Return, for the lines the segment a-b crosses, the bottom and top of each opening at the heights now and
        where along a-b (0 to 1) it meets each; None when one of them is one-sided (a wall)."""
        hits, along = crossed(a, b, self.segments)
        lines = np.flatnonzero(hits)
        front, back = self.front[lines], self.back[lines]
        if (back < 0).any():
            return None
        low = np.maximum(live.floors[front], live.floors[back])
        high = np.minimum(live.ceilings[front], live.ceilings[back])
        return low, high, along[lines]

    def sees(self, live: LiveMap, eye: tuple[float, float, float], target: tuple[float, float]) -> bool:
        """Return True when a monster standing at `target` (on its sector's floor now) and the eye at `eye` (x, y,
        z: the player's floor plus EYE) see each other."""
        openings = self._openings(live, eye[:2], target)
        if openings is None:
            return False
        low, high, along = openings
        if not len(low):
            return True
        if (high <= low).any():
            return False
        # The sight line's height where it meets a line is eye + t (z - eye) for a target height z; each opening
        # bounds z from both sides. The target is seen when some z within its body passes them all.
        base = float(live.floors[self.geometry.sector_at(*target)])
        t = np.maximum(along, 1e-6)
        z = eye[2]
        lowest = max(base, float(np.max(z + (low - z) / t)))
        highest = min(base + BODY, float(np.min(z + (high - z) / t)))
        return lowest <= highest

    def shut_between(self, live: LiveMap, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Return True when the walk from a to b crosses an opening a player does not fit through now (a door shut:
        the walk's grid counts a door as a way, since walking into it opens it, but a step in a fight opens none)."""
        openings = self._openings(live, a, b)
        if openings is None:
            return False  # a wall: the walk's own test
        low, high, _along = openings
        return bool((high - low < MIN_HEADROOM).any())

    def level_shot(self, live: LiveMap, start: tuple[float, float], z: float, target: tuple[float, float]) -> bool:
        """Return True when a bullet fired level at height `z` from `start` gets to `target`: every line on the way
        two-sided, its opening spanning z at the heights now (one meets the face of a step up, or a lintel, and stops
        there: a player cannot aim up or down, and with no monster to aim at a shot flies level)."""
        openings = self._openings(live, start, target)
        if openings is None:
            return False
        low, high, _along = openings
        return bool(((low <= z) & (z <= high) & (low < high)).all())

    def clear_shot(
        self, live: LiveMap, position: tuple[float, float, float], angle: float, length: float, *, radius: float
    ) -> bool:
        """Return True when a missile of `radius` fired from the player at `position` (x, y, floor z) along `angle`
        (degrees) meets no wall within `length` map units. Doom moves a missile as a square box, `radius` each way
        along the map's axes, so on a diagonal it sweeps a band radius * (|cos| + |sin|) either side of its line
        (about 1.4 times the radius): no one-sided line, nor an opening its height does not pass, may cross the
        band or end in it (a wall's corner beside the sight line stops it)."""
        x, y, z = position
        heading = math.radians(angle)
        cos, sin = math.cos(heading), math.sin(heading)
        half = radius * (abs(cos) + abs(sin))
        low, high = z + MISSILE_Z, z + MISSILE_Z + 2 * radius
        front, back = self.front, self.back
        other = np.where(back < 0, front, back)
        floor = np.maximum(live.floors[front], live.floors[other])
        ceiling = np.minimum(live.ceilings[front], live.ceilings[other])
        walls = self.segments[(back < 0) | (floor > low) | (ceiling < high)]
        # Each wall's ends in the missile's frame: along its line, and across it (to the left).
        dx, dy = walls[:, [0, 2]] - x, walls[:, [1, 3]] - y
        along, across = dx * cos + dy * sin, dy * cos - dx * sin
        if ((along >= 0) & (along <= length) & (np.abs(across) <= half)).any():
            return False  # a wall ends inside the band
        for side in {-half, 0.0, half}:
            c0, c1 = across[:, 0] - side, across[:, 1] - side
            meets = (c0 * c1 <= 0) & (c0 != c1)
            with np.errstate(divide="ignore", invalid="ignore"):
                at = along[:, 0] + (along[:, 1] - along[:, 0]) * c0 / (c0 - c1)
            if (meets & (at >= 0) & (at <= length)).any():
                return False
        return True

    def watchers(
        self, live: LiveMap, position: tuple[float, float, float], within: float
    ) -> list[tuple[str, float, float, float]]:
        """Return the live monsters within `within` map units that can see the player at `position` (x, y, floor
        z), as (class name, x, y, distance), nearest first."""
        x, y, z = position
        eye = (x, y, z + EYE)
        out = []
        for name, mx, my in live.monsters:
            d = math.hypot(mx - x, my - y)
            if d <= within and self.sees(live, eye, (mx, my)):
                out.append((name, mx, my, d))
        return sorted(out, key=lambda m: m[3])
