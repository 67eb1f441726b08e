"""Stairs narrower than a grid cell: a step between two neighbouring cells that rises more than a player climbs at
once may still be climbed in smaller steps on the way (freedoom1 E4M1 starts in a pit whose stairs are 8 units deep
and 16 high: 32 units from one cell's centre to the next, never more than 16 at a time).

A player's floor is the highest floor within its radius (Doom's P_CheckPosition), so the rise met on the way from
one cell to the next is read at points between their centres: each point's floor is the highest of the sectors
within a player's radius of it. The step is climbable when no rise between two points on the way, nor from the
first cell or to the last, exceeds MAX_STEP, and no wall comes within a player's radius of any of them. Which
sectors each point touches is read from the map once per pair of cells asked about; the heights are the live ones.
"""

from __future__ import annotations

import numpy as np

from doomagent.env._plan_gates import segment_distances
from doomagent.env.geometry import MAX_STEP, MapGeometry
from doomagent.env.navgrid import RADIUS, NavGrid

SAMPLES = 5  # points between two cell centres (every 2.7 units across a side, 3.8 across a corner)
RISE = 3 * MAX_STEP  # steps rising more than this between neighbouring cells are not looked at
WIDE = 12  # sectors one point may touch at most (a point touching more is taken for no way up)


class Stairs:
    """Answer whether steps between neighbouring cells too tall for one climb are stairs climbed on the way."""

    def __init__(self, grid: NavGrid, g: MapGeometry, cells: np.ndarray, lines: np.ndarray) -> None:
        """`cells` (sorted) and `lines`: each line within a player's radius of each cell's centre."""
        self._grid, self._g = grid, g
        self._ptr = np.searchsorted(cells, np.arange(len(grid.cx) + 1))
        self._lines = lines
        self._segments = g.vertices[g.line_v].reshape(-1, 4)  # (lines, x1 y1 x2 y2)
        self._sentinel = g.n_sectors  # a padding sector whose floor is -inf
        self._keys = np.zeros(0, dtype=np.int64)  # pairs read (a * cells + b), sorted
        self._rows = np.zeros(0, dtype=np.int64)  # each one's row in _sectors, -1 where a wall is in the way
        self._sectors = np.zeros((0, SAMPLES, WIDE), dtype=np.int64)

    def climbable(self, a: np.ndarray, b: np.ndarray, floor: np.ndarray, floors: np.ndarray) -> np.ndarray:
        """Return, for each step a -> b (cells; `floor`: each cell's floor, `floors`: each sector's), whether the
        rise is climbed on the way."""
        keys = a.astype(np.int64) * len(self._grid.cx) + b
        rows = self._lookup(keys)
        if (rows == -2).any():  # pairs not read yet
            self._add(np.unique(keys[rows == -2]))
            rows = self._lookup(keys)
        out = np.zeros(len(a), dtype=bool)
        some = np.flatnonzero(rows >= 0)
        if not len(some):
            return out
        heights = np.append(floors.astype(np.float64), -np.inf)
        on_way = heights[self._sectors[rows[some]]].max(axis=2)  # (steps, SAMPLES)
        way = np.concatenate([floor[a[some], None], on_way, floor[b[some], None]], axis=1)
        out[some] = (np.diff(way, axis=1) <= MAX_STEP).all(axis=1)
        return out

    def _lookup(self, keys: np.ndarray) -> np.ndarray:
        """Return each pair's row (-2: not read yet)."""
        if not len(self._keys):
            return np.full(len(keys), -2, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
        return np.where(self._keys[at] == keys, self._rows[at], -2)

    def _add(self, keys: np.ndarray) -> None:
        n = len(self._grid.cx)
        read = [self._read(int(k) // n, int(k) % n) for k in keys.tolist()]
        found = [r for r in read if r is not None]
        rows = np.full(len(keys), -1, dtype=np.int64)
        rows[[i for i, r in enumerate(read) if r is not None]] = len(self._sectors) + np.arange(len(found))
        if found:
            self._sectors = np.concatenate([self._sectors, np.stack(found)])
        all_keys, all_rows = np.concatenate([self._keys, keys]), np.concatenate([self._rows, rows])
        order = np.argsort(all_keys)
        self._keys, self._rows = all_keys[order], all_rows[order]

    def _read(self, a: int, b: int) -> np.ndarray | None:
        """Return the sectors within a player's radius of each point between the centres of a and b (SAMPLES x
        WIDE, padded), or None when a wall comes that near one of them."""
        grid, g = self._grid, self._g
        near = np.union1d(self._lines[self._ptr[a] : self._ptr[a + 1]], self._lines[self._ptr[b] : self._ptr[b + 1]])
        t = np.arange(1, SAMPLES + 1)[:, None] / (SAMPLES + 1)
        points = (1 - t) * np.array(grid.centre(a)) + t * np.array(grid.centre(b))  # (SAMPLES, xy)
        within = segment_distances(points, self._segments[near]) < RADIUS  # (SAMPLES, lines near)
        if g.impassable[near[within.any(axis=0)]].any():
            return None
        out = np.full((SAMPLES, WIDE), self._sentinel, dtype=np.int64)
        for k, (x, y) in enumerate(points.tolist()):
            lines = near[within[k]]
            found = {g.sector_at(x, y), *g.line_front[lines].tolist(), *g.line_back[lines].tolist()}
            if len(found) > WIDE:
                return None
            out[k, : len(found)] = sorted(found)
        return out
