"""Sectors in pieces: a WAD sector may be several areas that do not touch (mappers reuse one sector for every floor
of the same height, light and texture). The planner walks sector to sector, so to it such a sector is one room
and the walk goes straight through whatever lies between its pieces: on freedoom2 MAP08 the plan walked across
sector 120 through door sector 122, shut until a switch far away opens it, and the navigator pushed at a wall.

`split` returns a view of the map in which every piece is a sector of its own: the first piece keeps the sector's
number, the others get new numbers past the map's last sector, each with the heights, tag and specials of the
sector it came from (a tag moves every piece). The planner plans on the view; `real` maps its sector numbers
back to the WAD's.
"""

from __future__ import annotations

import math

import numpy as np

from doomagent.env.geometry import MapGeometry

_PER_SECTOR = ("sector_floor", "sector_ceiling", "sector_tag", "sector_special")


class _Pieces:
    """Every sector's pieces, read off its boundary: the loops of lines with the sector on one side only. With the
    sector on the right of each line (Doom's front side), an outer loop runs clockwise and a hole in it
    counterclockwise; each outer loop is a piece, and each hole belongs to the smallest outer loop around it (a
    thin ring of trim round a pillar is one piece: an outer loop and its hole)."""

    def __init__(self, g: MapGeometry) -> None:
        self.g = g
        self.line_piece: dict[tuple[int, int], int] = {}  # (line, sector) -> piece of that sector the line bounds
        self._outer: dict[int, list[tuple[np.ndarray, float]]] = {}  # split sector -> per piece (edges, area)
        front, back = g.line_front, g.line_back
        lines_of: dict[int, list[int]] = {}
        for line in np.flatnonzero(front != back).tolist():
            for sec in (int(front[line]), int(back[line])):
                if sec >= 0:
                    lines_of.setdefault(sec, []).append(line)
        for sec, lines in lines_of.items():
            self._split_sector(sec, lines)

    def _split_sector(self, sec: int, lines: list[int]) -> None:
        g = self.g
        ends = [
            (int(a), int(b)) if g.line_front[line] == sec else (int(b), int(a))
            for line in lines
            for a, b in [g.line_v[line]]
        ]
        parent: dict[int, int] = {}

        def root(v: int) -> int:
            while parent.setdefault(v, v) != v:
                parent[v] = parent[parent[v]]
                v = parent[v]
            return v

        for a, b in ends:
            parent[root(a)] = root(b)
        loops: dict[int, list[int]] = {}
        for i, (a, _b) in enumerate(ends):
            loops.setdefault(root(a), []).append(i)
        if len(loops) < 2:
            return
        outer: list[tuple[list[int], np.ndarray, float]] = []
        holes: list[tuple[list[int], np.ndarray, float]] = []
        for members in loops.values():
            edges = np.array([[*g.vertices[ends[i][0]], *g.vertices[ends[i][1]]] for i in members], dtype=float)
            area = 0.5 * float((edges[:, 0] * edges[:, 3] - edges[:, 2] * edges[:, 1]).sum())
            (outer if area < 0 else holes).append((members, edges, -area))
        if len(outer) < 2:
            return
        self._outer[sec] = [(edges, area) for _m, edges, area in outer]
        for k, (members, _edges, _area) in enumerate(outer):
            for i in members:
                self.line_piece[(lines[i], sec)] = k
        for members, edges, _area in holes:
            k = self.piece_at(sec, float(edges[0, 0]), float(edges[0, 1]))
            for i in members:
                self.line_piece[(lines[i], sec)] = k

    @property
    def count(self) -> dict[int, int]:
        """Return, per sector in pieces, its number of pieces."""
        return {sec: len(outer) for sec, outer in self._outer.items()}

    def piece_at(self, sec: int, x: float, y: float) -> int:
        """Return the piece (0-based) of split sector `sec` holding (x, y): the smallest outer loop around it."""
        best, best_area = 0, math.inf
        for k, (edges, area) in enumerate(self._outer[sec]):
            ay, by = edges[:, 1], edges[:, 3]
            crosses = (ay > y) != (by > y)
            with np.errstate(divide="ignore", invalid="ignore"):
                xcross = edges[:, 0] + (y - ay) * (edges[:, 2] - edges[:, 0]) / (by - ay)
            if (crosses & (x < xcross)).sum() % 2 == 1 and area < best_area:
                best, best_area = k, area
        return best


class _SplitView(MapGeometry):
    """A map whose sectors in several pieces are split into one sector per piece (see the module's text)."""

    _pieces: _Pieces
    _first: dict[int, int]  # split sector -> the number of its second piece (the first keeps its own)
    real: np.ndarray  # view's sector -> the WAD's sector
    _whole: MapGeometry  # the map with its sectors whole

    def opens_wide(self, sector: int) -> bool:
        """Return the whole sector's answer: a door rises under the lowest ceiling around all of its pieces."""
        return self._whole.opens_wide(int(self.real[sector]))

    def _piece_sector(self, sec: int, piece: int) -> int:
        return sec if piece == 0 else self._first[sec] + piece - 1

    def sector_at(self, x: float, y: float) -> int:
        """Return the sector (piece) containing point (x, y)."""
        sec = super().sector_at(x, y)
        if sec not in self._first:
            return sec
        return self._piece_sector(sec, self._pieces.piece_at(sec, x, y))

    def sectors_at(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Return the sector (piece) of every point."""
        out = super().sectors_at(xs, ys).copy()
        for k in np.flatnonzero(np.isin(out, list(self._first))).tolist():
            out.flat[k] = self.sector_at(float(np.ravel(xs)[k]), float(np.ravel(ys)[k]))
        return out


def split(g: MapGeometry) -> tuple[MapGeometry, np.ndarray]:
    """Return (the map with every sector piece a sector of its own, view sector -> WAD sector). Where no sector is
    in pieces the map itself comes back, with the identity."""
    pieces = _Pieces(g)
    identity = np.arange(g.n_sectors)
    if not pieces.count:
        return g, identity
    first: dict[int, int] = {}
    real: list[int] = identity.tolist()
    for sec, n in sorted(pieces.count.items()):
        first[sec] = len(real)
        real.extend([sec] * (n - 1))
    view = _SplitView.__new__(_SplitView)
    cached = ("doors", "_door_specials", "door_targets", "lifts", "exit_lines")  # worked out again for the pieces
    state = {k: v for k, v in g.__dict__.items() if k not in cached}
    view.__dict__.update(state)
    view._pieces, view._first, view.real, view._whole = pieces, first, np.array(real), g
    view.sector_floor_tex = [g.sector_floor_tex[s] for s in real]
    for name in _PER_SECTOR:
        setattr(view, name, getattr(g, name)[view.real])
    front, back = g.line_front.copy(), g.line_back.copy()
    for line in np.flatnonzero(np.isin(front, list(first)) | np.isin(back, list(first))).tolist():
        for sides in (front, back):
            sec = int(sides[line])
            if sec in first:
                piece = pieces.line_piece.get((line, sec))  # None: a line drawn inside the sector
                if piece is None:
                    piece = pieces.piece_at(sec, *g.line_midpoint(line))
                sides[line] = view._piece_sector(sec, piece)
    view.line_front, view.line_back = front, back
    return view, view.real
