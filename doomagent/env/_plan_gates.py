"""Openings that closed doors bar without being on the way: bars (a row of thin door posts standing just inside a
room's edge), or a door sector whose posts fill a passage. The sectors on either side still touch, so the
sector graph alone walks straight through; a player cannot, until the posts are raised.

An opening (a two-sided line between two still sectors) is tested along rows: the line itself and a row ROW units
to either side of it (posts often stand a step in from the edge). A row is barred when a player standing anywhere
on it would overlap a closed door's lines (a gap exactly a player wide counts as shut: a player never gets
through one), while without those doors there is room to stand on it. The opening is crossed once each barred
row has a point whose barring doors have all been set moving (key posts: the red posts alone open the red gap).
"""

from __future__ import annotations

import math

import numpy as np

from doomagent.env.geometry import MIN_HEADROOM, ML_BLOCKING, MapGeometry

PLAYER_RADIUS = 16.0
SAMPLE = 4.0  # map units between the points tested along an opening
NEAR = 48.0  # a closed door's line farther than this from an opening cannot bar it
ROW = 8.0  # map units from an opening to the rows tested on either side of it
SLACK = 1.0  # a door line this much farther than a player's radius still bars (a gap exactly a player wide)

Gate = tuple[tuple[frozenset[int], ...], ...]  # per barred row, the door sets whose opening frees a point of it


def segment_distances(points: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """Return the (P, S) distances from each point to each segment (x1, y1, x2, y2)."""
    a, b = segments[None, :, 0:2], segments[None, :, 2:4]
    p = points[:, None, :]
    d = b - a
    t = np.clip(((p - a) * d).sum(-1) / np.maximum((d * d).sum(-1), 1e-9), 0.0, 1.0)
    return np.hypot(*(a + t[..., None] * d - p).transpose(2, 0, 1))


def gates(g: MapGeometry, movers: set[int]) -> dict[int, Gate]:
    """Return, for each barred opening, its barred rows: per row, the sets of closed door sectors that each free
    a point of it once set moving."""
    closed = [s for s in g.doors if g.sector_ceiling[s] - g.sector_floor[s] < MIN_HEADROOM]
    if not closed:
        return {}
    front, back = g.line_front, g.line_back
    door_lines = np.flatnonzero(np.isin(front, closed) | np.isin(back, closed))
    seg = np.hstack([g.vertices[g.line_v[:, 0]], g.vertices[g.line_v[:, 1]]]).astype(float)
    solid = np.flatnonzero((front < 0) | (back < 0) | ((g.line_flags & ML_BLOCKING) > 0))
    shut = set(closed)
    out: dict[int, Gate] = {}
    for line in range(len(g.line_v)):
        f, b = int(front[line]), int(back[line])
        if f < 0 or b < 0 or f == b or f in movers or b in movers or g.line_flags[line] & ML_BLOCKING:
            continue
        x1, y1, x2, y2 = seg[line]
        length = float(np.hypot(x2 - x1, y2 - y1))
        reach = NEAR + length / 2
        mid = np.array([[(x1 + x2) / 2, (y1 + y2) / 2]])
        near = door_lines[segment_distances(mid, seg[door_lines])[0] < reach]
        if not len(near) or length == 0:
            continue
        walls = solid[segment_distances(mid, seg[solid])[0] < reach] if len(solid) else solid  # those a row can touch
        n = max(2, int(length / SAMPLE) + 1)
        normal = np.array([y1 - y2, x2 - x1]) / length
        on_line = np.stack([np.linspace(x1, x2, n), np.linspace(y1, y2, n)], axis=1)
        rows = []
        for offset in (0.0, ROW, -ROW):
            row = _barred_row(on_line + offset * normal, seg, walls, near, front, back, shut)
            if row is not None:
                rows.append(row)
        if rows:
            out[line] = tuple(rows)
    return out


def _barred_row(
    points: np.ndarray,
    seg: np.ndarray,
    solid: np.ndarray,
    near: np.ndarray,
    front: np.ndarray,
    back: np.ndarray,
    shut: set[int],
) -> tuple[frozenset[int], ...] | None:
    """Return the door sets that each free a point of a barred row (None: the row is not barred)."""
    room = np.ones(len(points), bool)
    if len(solid):
        room = segment_distances(points, seg[solid]).min(axis=1) >= PLAYER_RADIUS
    if not room.any():
        return None  # too narrow with every door open (or in a wall): not the doors' doing
    by_doors = segment_distances(points[room], seg[near]) < PLAYER_RADIUS + SLACK
    if not by_doors.any(axis=1).all():
        return None  # a point with room beside every closed door
    frees = set()
    for hits in by_doors:
        frees.add(frozenset(int(s) for i in np.flatnonzero(hits) for s in (front[near[i]], back[near[i]]) if s in shut))
    return tuple(sorted(frees, key=sorted))


def segment_distance(p: tuple[float, float], a: np.ndarray, b: np.ndarray) -> float:
    """Return the distance from point p to the segment a-b."""
    dx, dy = float(b[0] - a[0]), float(b[1] - a[1])
    t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / max(dx * dx + dy * dy, 1e-9)
    t = min(1.0, max(0.0, t))
    return math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1])
