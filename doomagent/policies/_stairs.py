"""Stairs narrower than a grid cell: a step between two neighbouring cells that rises more than a player climbs at
once may still be climbed in smaller steps on the way (freedoom1 E4M1 starts in a pit whose stairs are 8 units deep
and 16 high: 32 units from one cell's centre to the next, never more than 16 at a time).

A player's floor is the highest floor within its radius (Doom's P_CheckPosition), so the rise met on the way from
one cell to the next is read at points between their centres: each point's floor is the highest of the sectors
within a player's radius of it. The step is climbable when no rise between two points on the way, nor from the
first cell or to the last, exceeds MAX_STEP, and no wall comes within a player's radius of any of them. Which
sectors each point touches is read from the map once per pair of cells asked about; the heights are the live ones.

Stairs that wind (a spiral whose steps are a few units across: freedoom2 MAP25's pit at (-960, 1040)) are not
climbed on the straight line between two cell centres, only on a bent one. So a step the straight line fails, with a
floor between the two cells' floors within a player's radius of either centre, is looked at again on a finer grid:
the points 4 units apart in a 32-unit square round the middle of the two centres. It is climbable when a walk from
the first centre to the second over those points, each point's floor read as above, never rises more than MAX_STEP
at a time and never comes within a player's radius of a wall. The live grid takes such a step only where the walk
has no other way to where it leads (`_livegrid._with_winding`), and `way` gives the walk the points to steer by.
"""

from __future__ import annotations

import numpy as np

from doomagent.env._plan_gates import segment_distances
from doomagent.env.geometry import MAX_STEP, MapGeometry
from doomagent.env.navgrid import RADIUS, NavGrid

SAMPLES = 5  # points between two cell centres (every 2.7 units across a side, 3.8 across a corner)
RISE = 3 * MAX_STEP  # steps rising more than this between neighbouring cells are not looked at
WIDE = 12  # sectors one point may touch at most (a point touching more is taken for no way up)
FINE = 4.0  # units between the points of the finer grid a winding stair is looked at on
SPAN = 4  # its points either side of the middle: a square of 9 x 9 points, 32 units across
_SIDE = 2 * SPAN + 1
AROUND = 2 * WIDE  # sectors near the two centres a winding stair is looked for among
SEEN = 8  # sets of heights each pair's answer is kept for
_NEVER = 1e9  # the floor of a point never stood on (near a wall, or off the finer grid)


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
        self._wall = g.n_sectors + 1  # a padding sector whose floor is _NEVER: a point too near a wall
        self._boxes = np.concatenate(  # each line's bounding box: x min, y min, x max, y max
            [
                np.minimum(self._segments[:, :2], self._segments[:, 2:]),
                np.maximum(self._segments[:, :2], self._segments[:, 2:]),
            ],
            axis=1,
        )
        # each pair's sectors within a player's radius of either centre (in the order of _keys)
        self._around = np.zeros((0, AROUND), dtype=np.int64)
        self._fine: dict[int, np.ndarray] = {}  # pair -> the sectors each point of its finer grid touches
        # pair -> {(its floors, the heights of the sectors its finer grid touches): climbed on a bent way}; the
        # same answer at the same heights, as a grid rebuilt while nothing near a stair moved asks for it again
        self._winds: dict[int, dict[tuple[float, float, bytes], bool]] = {}
        self._steps = _steps()  # each point's neighbours on the finer grid

    def climbable(
        self, a: np.ndarray, b: np.ndarray, floor: np.ndarray, floors: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Return, for each step a -> b (cells; `floor`: each cell's floor, `floors`: each sector's), whether the
        rise is climbed on the straight way, and whether it is climbed on a bent way only (a winding stair)."""
        keys = a.astype(np.int64) * len(self._grid.cx) + b
        at = self._lookup(keys)
        if (at < 0).any():  # pairs not read yet
            self._add(np.unique(keys[at < 0]))
            at = self._lookup(keys)
        rows = self._rows[at]
        out, bent = np.zeros(len(a), dtype=bool), np.zeros(len(a), dtype=bool)
        heights = np.append(floors.astype(np.float64), [-np.inf, _NEVER])
        some = np.flatnonzero(rows >= 0)
        if len(some):
            on_way = heights[self._sectors[rows[some]]].max(axis=2)  # (steps, SAMPLES)
            way = np.concatenate([floor[a[some], None], on_way, floor[b[some], None]], axis=1)
            out[some] = (np.diff(way, axis=1) <= MAX_STEP).all(axis=1)
        left = np.flatnonzero(~out)
        if len(left):  # the rest: those with a floor between theirs near either centre may be winding stairs
            between = heights[self._around[at[left]]]
            low, high = floor[a[left]], floor[b[left]]
            stepped = ((between > low[:, None]) & (between < high[:, None])).any(axis=1)
            for i in left[stepped].tolist():
                bent[i] = self._winding(
                    int(a[i]), int(b[i]), int(keys[i]), float(floor[a[i]]), float(floor[b[i]]), heights
                )
        return out, bent

    def forget_winding(self) -> None:
        """Forget the winding-stair answers kept (they are asked afresh at the next build)."""
        self._winds.clear()

    def _winding(self, a: int, b: int, key: int, low: float, high: float, heights: np.ndarray) -> bool:
        """Return whether a -> b is climbed on a bent way (`_bent`), read again only where the heights it depends on
        have changed since it was last asked."""
        fine = self._fine_of(key, a, b)
        seen = self._winds.setdefault(key, {})
        heard = (low, high, heights[fine].tobytes())
        if heard not in seen:
            if len(seen) >= SEEN:  # a lift near the stair ridden up and down: start the pair's answers afresh
                seen.clear()
            seen[heard] = self._bent(a, b, key, low, high, heights) is not None
        return seen[heard]

    def way(self, a: int, b: int, floor: np.ndarray, floors: np.ndarray) -> list[tuple[float, float]] | None:
        """Return the points of the bent way up from a to b (a's centre first, b's last), or None when the step has
        none (it is no winding stair, or not climbable now)."""
        key = a * len(self._grid.cx) + b
        if key not in self._fine:
            return None
        heights = np.append(floors.astype(np.float64), [-np.inf, _NEVER])
        came = self._bent(a, b, key, float(floor[a]), float(floor[b]), heights)
        if came is None:
            return None
        (ax, ay), (bx, by) = self._grid.centre(a), self._grid.centre(b)
        point, start, out = _corner(self._grid, b, a), _corner(self._grid, a, b), []
        while point != start:
            row, col = divmod(point, _SIDE)
            out.append(((ax + bx) / 2 + (col - SPAN) * FINE, (ay + by) / 2 + (row - SPAN) * FINE))
            point = int(came[point])
        return [(ax, ay), *reversed(out)]

    def _fine_of(self, key: int, a: int, b: int) -> np.ndarray:
        """Return the sectors each point of the pair's finer grid touches, read once per pair."""
        fine = self._fine.get(key)
        if fine is None:
            fine = self._fine[key] = self._read_fine(a, b)
        return fine

    def _bent(self, a: int, b: int, key: int, low: float, high: float, heights: np.ndarray) -> np.ndarray | None:
        """Return, for each point of the finer grid reached from a's centre, the point it was reached from (-1: not
        reached), or None when b's centre is not reached."""
        fine = self._fine_of(key, a, b)
        point = heights[fine].max(axis=1)
        start, end = _corner(self._grid, a, b), _corner(self._grid, b, a)
        point[start] = low
        came = np.full(_SIDE * _SIDE + 1, -1, dtype=np.int64)  # the last one stands for "off the grid"
        came[start] = start
        rise = point[:, None] - np.append(point, _NEVER)[self._steps]  # climbing to each point from each neighbour
        fine_steps = rise <= MAX_STEP
        while True:
            step = (came[self._steps] >= 0) & fine_steps & (came[:-1, None] < 0)
            fresh = np.flatnonzero(step.any(axis=1))
            if not len(fresh):
                break
            came[fresh] = self._steps[fresh, np.argmax(step[fresh], axis=1)]
        if came[end] < 0 or high - point[end] > MAX_STEP:
            return None
        return came[:-1]

    def _lookup(self, keys: np.ndarray) -> np.ndarray:
        """Return each pair's place among the pairs read (-1: not read yet)."""
        if not len(self._keys):
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
        return np.where(self._keys[at] == keys, at, -1)

    def _add(self, keys: np.ndarray) -> None:
        n = len(self._grid.cx)
        pairs = [(int(k) // n, int(k) % n) for k in keys.tolist()]
        read = [self._read(a, b) for a, b in pairs]
        found = [r for r in read if r is not None]
        rows = np.full(len(keys), -1, dtype=np.int64)
        rows[[i for i, r in enumerate(read) if r is not None]] = len(self._sectors) + np.arange(len(found))
        if found:
            self._sectors = np.concatenate([self._sectors, np.stack(found)])
        around = np.stack([self._read_around(a, b) for a, b in pairs])
        all_keys, all_rows = np.concatenate([self._keys, keys]), np.concatenate([self._rows, rows])
        order = np.argsort(all_keys)
        self._keys, self._rows = all_keys[order], all_rows[order]
        self._around = np.concatenate([self._around, around])[order]

    def _read_around(self, a: int, b: int) -> np.ndarray:
        """Return the sectors within a player's radius of a's or b's centre (AROUND, padded)."""
        g = self._g
        near = np.union1d(self._lines[self._ptr[a] : self._ptr[a + 1]], self._lines[self._ptr[b] : self._ptr[b + 1]])
        sides = np.union1d(g.line_front[near], g.line_back[near])
        sides = sides[sides >= 0][:AROUND]
        return np.concatenate([sides, np.full(AROUND - len(sides), self._sentinel)])

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

    def _read_fine(self, a: int, b: int) -> np.ndarray:
        """Return the sectors within a player's radius of each point of the finer grid round a and b (points x WIDE,
        padded; a point near a wall, or touching more than WIDE sectors, holds the wall sector)."""
        g = self._g
        (ax, ay), (bx, by) = self._grid.centre(a), self._grid.centre(b)
        offsets = (np.arange(_SIDE) - SPAN) * FINE
        xs, ys = np.meshgrid((ax + bx) / 2 + offsets, (ay + by) / 2 + offsets)
        points = np.stack([xs.ravel(), ys.ravel()], axis=1)
        lo, hi = points.min(axis=0) - RADIUS, points.max(axis=0) + RADIUS
        boxes = self._boxes
        near = np.flatnonzero(
            (boxes[:, 0] <= hi[0]) & (boxes[:, 2] >= lo[0]) & (boxes[:, 1] <= hi[1]) & (boxes[:, 3] >= lo[1])
        )
        within = segment_distances(points, self._segments[near]) < RADIUS
        centres = g.sectors_at(points[:, 0], points[:, 1])
        out = np.full((len(points), WIDE), self._sentinel, dtype=np.int64)
        for k in range(len(points)):
            lines = near[within[k]]
            found = {int(centres[k]), *g.line_front[lines].tolist(), *g.line_back[lines].tolist()} - {-1}
            if g.impassable[lines].any() or len(found) > WIDE:
                out[k, 0] = self._wall
            else:
                out[k, : len(found)] = sorted(found)
        return out


def _corner(grid: NavGrid, a: int, b: int) -> int:
    """Return the point of the finer grid round a and b that is a's centre."""
    (ax, ay), (bx, by) = grid.centre(a), grid.centre(b)
    col, row = (SPAN + round((ax - bx) / 2 / FINE), SPAN + round((ay - by) / 2 / FINE))
    return row * _SIDE + col


def _steps() -> np.ndarray:
    """Return each point's eight neighbours on the finer grid (points x 8; _SIDE**2 where there is none)."""
    rows, cols = np.divmod(np.arange(_SIDE * _SIDE), _SIDE)
    out = []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr or dc:
                r, c = rows + dr, cols + dc
                inside = (r >= 0) & (r < _SIDE) & (c >= 0) & (c < _SIDE)
                out.append(np.where(inside, r * _SIDE + c, _SIDE * _SIDE))
    return np.stack(out, axis=1)
