"""A walkable grid over a map and a distance field to the exit: where a player can stand, how far
it is to the exit along the floor, and which way to go from anywhere."""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any

import numpy as np

from doomagent.env.geometry import MAX_STEP, MIN_HEADROOM, ML_BLOCKING, MapGeometry

CELL = 16.0  # map units per grid cell
RADIUS = 16.0  # the player's radius: cells closer than this to a wall are not walkable
HAZARD_SPECIALS = frozenset({4, 5, 7, 11, 16})  # sector specials that hurt: nukage, slime, lava
HAZARD_COST = 8.0  # a step on a hurting floor costs as much as this many steps on a safe one


class NavGrid:
    """Cells of CELL map units, their floors, walkability, and the walking distance to the exit."""

    def __init__(self, g: MapGeometry, *, exit_line: int | None = None) -> None:
        self.geometry = g
        x0, y0, x1, y1 = g.bounds
        self.x0, self.y0 = x0, y0
        self.nx = math.ceil((x1 - x0) / CELL) + 1
        self.ny = math.ceil((y1 - y0) / CELL) + 1
        xs = x0 + (np.arange(self.nx) + 0.5) * CELL
        ys = y0 + (np.arange(self.ny) + 0.5) * CELL
        gx, gy = np.meshgrid(xs, ys)  # shape (ny, nx)
        self.cx, self.cy = gx.ravel(), gy.ravel()
        # Sample a hair off the centres: map lines sit on the same 8-unit lattice as the centres.
        sx, sy = self.cx + 0.37, self.cy + 0.29
        sectors = g.sectors_at(sx, sy)
        inside = g.inside_map(sx, sy, sectors)
        self.sector = np.where(inside, sectors, -1)
        movers = np.zeros(g.n_sectors, dtype=bool)
        movers[list(g.doors)] = True
        movers[list(g.lifts)] = True
        self.mover = np.where(self.sector >= 0, movers[np.maximum(self.sector, 0)], False)
        self.floor = np.where(self.sector >= 0, g.sector_floor[np.maximum(self.sector, 0)], 0).astype(float)
        ceiling = np.where(self.sector >= 0, g.sector_ceiling[np.maximum(self.sector, 0)], 0).astype(float)
        specials = g.sector_special[np.maximum(self.sector, 0)]
        self.hazard = (self.sector >= 0) & np.isin(specials, list(HAZARD_SPECIALS))
        roomy = (ceiling - self.floor >= MIN_HEADROOM) | self.mover
        self.walkable = (self.sector >= 0) & roomy & ~self._near_wall()
        self.exit_line = exit_line if exit_line is not None else (g.exit_lines[0] if g.exit_lines else None)
        self._avoid_graph: tuple[int, np.ndarray, Any] | None = None  # (mask id, mask kept alive, graph)

    def _near_wall(self) -> np.ndarray:
        """Return, per cell, whether its centre lies closer than RADIUS to a line a player cannot pass."""
        g = self.geometry
        f, b = g.line_front, g.line_back
        two = (f >= 0) & (b >= 0)
        ff, bb = np.maximum(f, 0), np.maximum(b, 0)
        headroom = np.minimum(g.sector_ceiling[ff], g.sector_ceiling[bb]) - np.maximum(
            g.sector_floor[ff], g.sector_floor[bb]
        )
        movers = np.isin(f, list(g.doors) + list(g.lifts)) | np.isin(b, list(g.doors) + list(g.lifts))
        solid = ~two | ((g.line_flags & ML_BLOCKING) > 0) | (two & ~movers & (headroom < MIN_HEADROOM))
        return self.near_lines(solid)

    def index_box(self, ax: float, ay: float, bx: float, by: float) -> tuple[int, int, int, int] | None:
        """Return the column and row ranges (i0, i1, j0, j1, inclusive) of the cells whose centres may lie within
        RADIUS of the segment a-b (its bounding box grown by RADIUS), or None when none is on the grid."""
        i0 = max(0, math.floor((min(ax, bx) - RADIUS - self.x0) / CELL - 0.5))
        i1 = min(self.nx - 1, math.ceil((max(ax, bx) + RADIUS - self.x0) / CELL - 0.5))
        j0 = max(0, math.floor((min(ay, by) - RADIUS - self.y0) / CELL - 0.5))
        j1 = min(self.ny - 1, math.ceil((max(ay, by) + RADIUS - self.y0) / CELL - 0.5))
        return None if i0 > i1 or j0 > j1 else (i0, i1, j0, j1)

    def near_lines(self, lines: np.ndarray) -> np.ndarray:
        """Return, per cell, whether its centre lies closer than RADIUS to one of `lines` (a mask over the map's
        lines): where a player standing would touch one.

        Each line is checked only against the cells of its own bounding box grown by RADIUS (the only ones it
        can be that close to), so the cost follows the walls' length, not cells x lines (a minute on E1M3).
        """
        g = self.geometry
        near = np.zeros((self.ny, self.nx), dtype=bool)
        for (ax, ay), (bx, by) in zip(g.vertices[g.line_v[lines, 0]], g.vertices[g.line_v[lines, 1]], strict=True):
            span = self.index_box(ax, ay, bx, by)
            if span is None:
                continue
            i0, i1, j0, j1 = span
            px = self.x0 + (np.arange(i0, i1 + 1) + 0.5) * CELL
            py = self.y0 + (np.arange(j0, j1 + 1) + 0.5) * CELL
            qx, qy = np.meshgrid(px, py)
            dx, dy = bx - ax, by - ay
            t = np.clip(((qx - ax) * dx + (qy - ay) * dy) / max(dx * dx + dy * dy, 1e-9), 0, 1)
            near[j0 : j1 + 1, i0 : i1 + 1] |= np.hypot(ax + t * dx - qx, ay + t * dy - qy) < RADIUS
        return near.ravel()

    def is_hazard(self, x: float, y: float) -> bool:
        """Return True if (x, y) is on a floor that hurts."""
        return bool(self.hazard[self.cell_of(x, y)])

    def cell_of(self, x: float, y: float) -> int:
        """Return the index of the cell holding (x, y), clamped to the grid."""
        i = min(max(int((x - self.x0) / CELL), 0), self.nx - 1)
        j = min(max(int((y - self.y0) / CELL), 0), self.ny - 1)
        return j * self.nx + i

    def centre(self, cell: int) -> tuple[float, float]:
        """Return a cell's centre in map units."""
        return float(self.cx[cell]), float(self.cy[cell])

    @cached_property
    def _graph(self) -> Any:
        """Return the walking graph, edges reversed so that Dijkstra runs from a goal outward."""
        return self._build_graph(self.walkable)

    def _build_graph(self, walkable: np.ndarray) -> Any:
        from scipy.sparse import coo_matrix

        n = len(self.cx)
        idx = np.arange(n).reshape(self.ny, self.nx)
        rows, cols, weights = [], [], []
        for dj, di in ((0, 1), (1, 0), (1, 1), (1, -1)):
            src = idx[max(0, -dj) : self.ny - max(0, dj), max(0, -di) : self.nx - max(0, di)].ravel()
            dst = idx[max(0, dj) : self.ny + min(0, dj) or None, max(0, di) : self.nx + min(0, di) or None].ravel()
            ok = walkable[src] & walkable[dst]
            src, dst = src[ok], dst[ok]
            step = CELL * math.hypot(di, dj)
            for a, b in ((src, dst), (dst, src)):
                # Walking a -> b climbs at most MAX_STEP (drops are free); movers (doors, lifts) always pass.
                up = self.floor[b] - self.floor[a]
                fine = (up <= MAX_STEP) | self.mover[a] | self.mover[b]
                rows.append(b[fine])
                cols.append(a[fine])
                weights.append(np.where(self.hazard[b[fine]], step * HAZARD_COST, step))
        return coo_matrix((np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)).tocsr()

    def field_to(self, cells: np.ndarray, *, avoid: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Return (walking distance to the nearest of `cells`, next cell toward them) for every cell; with
        `avoid` (a mask of cells, e.g. those a solid thing stands on: see `things_mask`), the way keeps off
        them (the graph without them is built once per mask)."""
        from scipy.sparse.csgraph import dijkstra

        graph = self._graph
        if avoid is not None:
            key = id(avoid)
            if self._avoid_graph is None or self._avoid_graph[0] != key:
                self._avoid_graph = (key, avoid, self._build_graph(self.walkable & ~avoid))
            graph = self._avoid_graph[2]
        dist, pred, _ = dijkstra(graph, indices=cells, min_only=True, return_predecessors=True)
        return dist, pred

    def things_mask(self, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
        """Return the cells whose centre lies within a player's radius of one of the things at `centres` (N, 2)
        with `radii` (N,): where a player standing would overlap it."""
        mask = np.zeros(len(self.cx), dtype=bool)
        for (x, y), r in zip(centres, radii, strict=True):
            reach = r + RADIUS
            i0, i1 = max(0, int((x - reach - self.x0) / CELL)), min(self.nx - 1, int((x + reach - self.x0) / CELL))
            j0, j1 = max(0, int((y - reach - self.y0) / CELL)), min(self.ny - 1, int((y + reach - self.y0) / CELL))
            for j in range(j0, j1 + 1):
                row = j * self.nx + np.arange(i0, i1 + 1)
                mask[row] |= np.hypot(self.cx[row] - x, self.cy[row] - y) < reach
        return mask

    @cached_property
    def exit_field(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the distance field to the exit."""
        return self.field_to(self.exit_cells)

    @cached_property
    def exit_cells(self) -> np.ndarray:
        """Return the walkable cells within reach of the exit line (USE range)."""
        if self.exit_line is None:
            return np.array([], dtype=np.int64)
        return self.cells_near(*self.geometry.line_midpoint(self.exit_line))

    def cells_near(self, mx: float, my: float, reach: float = 56.0) -> np.ndarray:
        """Return the walkable cells within `reach` of a point (USE range by default), or the nearest one."""
        near = np.hypot(self.cx - mx, self.cy - my) <= reach
        cells = np.flatnonzero(near & self.walkable)
        if not len(cells):
            cells = np.array([int(np.argmin(np.where(self.walkable, np.hypot(self.cx - mx, self.cy - my), np.inf)))])
        return cells

    def distance_to_exit(self, x: float, y: float) -> float:
        """Return the walking distance from (x, y) to the exit (inf where none is known)."""
        dist, _ = self.exit_field
        cell = self.nearest_walkable(x, y)
        return float(dist[cell]) if cell is not None else math.inf

    def nearest_walkable(self, x: float, y: float, reach: int = 3) -> int | None:
        """Return the walkable cell at (x, y), or the nearest one within `reach` cells."""
        cell = self.cell_of(x, y)
        if self.walkable[cell]:
            return cell
        i, j = cell % self.nx, cell // self.nx
        best, best_d = None, math.inf
        for dj in range(-reach, reach + 1):
            for di in range(-reach, reach + 1):
                ii, jj = i + di, j + dj
                if 0 <= ii < self.nx and 0 <= jj < self.ny:
                    c = jj * self.nx + ii
                    d = math.hypot(self.cx[c] - x, self.cy[c] - y)
                    if self.walkable[c] and d < best_d:
                        best, best_d = c, d
        return best

    def path_to_exit(self, x: float, y: float, limit: int = 400) -> list[int]:
        """Return the cells from (x, y) toward the exit along the distance field."""
        return self.follow(self.exit_field, x, y, limit)

    def follow(self, field: tuple[np.ndarray, np.ndarray], x: float, y: float, limit: int = 400) -> list[int]:
        """Return the cells from (x, y) down a distance field (from field_to) toward its goal."""
        dist, pred = field
        cell = self.nearest_walkable(x, y)
        path: list[int] = []
        while cell is not None and cell >= 0 and len(path) < limit and np.isfinite(dist[cell]):
            path.append(int(cell))
            nxt = int(pred[cell])
            if nxt < 0:
                break
            cell = nxt
        return path
