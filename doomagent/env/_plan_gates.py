"""Openings that closed doors bar without being on the way: bars (a row of thin door posts standing just inside a
room's edge), or a door sector whose posts fill a passage. The sectors on either side still touch, so the
sector graph alone walks straight through; a player cannot, until the posts are raised.

An opening (a two-sided line between two still sectors) is barred when a player standing anywhere on it would
overlap a closed door's lines, while without those doors there is room to stand on it. It is then crossed only
once every door that bars it has been set moving.
"""

from __future__ import annotations

import math

import numpy as np

from doomagent.env.geometry import MIN_HEADROOM, ML_BLOCKING, MapGeometry

PLAYER_RADIUS = 16.0
SAMPLE = 4.0  # map units between the points tested along an opening
NEAR = 48.0  # a closed door's line farther than this from an opening cannot bar it


def _distances(points: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """Return the (P, S) distances from each point to each segment (x1, y1, x2, y2)."""
    a, b = segments[None, :, 0:2], segments[None, :, 2:4]
    p = points[:, None, :]
    d = b - a
    t = np.clip(((p - a) * d).sum(-1) / np.maximum((d * d).sum(-1), 1e-9), 0.0, 1.0)
    return np.hypot(*(a + t[..., None] * d - p).transpose(2, 0, 1))


def gates(g: MapGeometry, movers: set[int]) -> dict[int, tuple[int, ...]]:
    """Return, for each barred opening, the closed door sectors that bar it."""
    closed = [s for s in g.doors if g.sector_ceiling[s] - g.sector_floor[s] < MIN_HEADROOM]
    if not closed:
        return {}
    front, back = g.line_front, g.line_back
    door_lines = np.flatnonzero(np.isin(front, closed) | np.isin(back, closed))
    seg = np.hstack([g.vertices[g.line_v[:, 0]], g.vertices[g.line_v[:, 1]]]).astype(float)
    solid = np.flatnonzero((front < 0) | (back < 0) | ((g.line_flags & ML_BLOCKING) > 0))
    out: dict[int, tuple[int, ...]] = {}
    for line in range(len(g.line_v)):
        f, b = int(front[line]), int(back[line])
        if f < 0 or b < 0 or f == b or f in movers or b in movers or g.line_flags[line] & ML_BLOCKING:
            continue
        x1, y1, x2, y2 = seg[line]
        reach = NEAR + np.hypot(x2 - x1, y2 - y1) / 2
        near = door_lines[_distances(np.array([[(x1 + x2) / 2, (y1 + y2) / 2]]), seg[door_lines])[0] < reach]
        if not len(near):
            continue
        n = max(2, int(np.hypot(x2 - x1, y2 - y1) / SAMPLE) + 1)
        points = np.stack([np.linspace(x1, x2, n), np.linspace(y1, y2, n)], axis=1)
        room = _distances(points, seg[solid]).min(axis=1) >= PLAYER_RADIUS if len(solid) else np.ones(n, bool)
        if not room.any():
            continue  # too narrow with every door open: not the doors' doing
        by_doors = _distances(points[room], seg[near]) < PLAYER_RADIUS
        if by_doors.any(axis=1).all():  # nowhere on the opening is there room beside the closed doors
            barring = {int(s) for i in np.flatnonzero(by_doors.any(axis=0)) for s in (front[near[i]], back[near[i]])}
            out[line] = tuple(sorted(s for s in barring if s in closed))
    return out


def segment_distance(p: tuple[float, float], a: np.ndarray, b: np.ndarray) -> float:
    """Return the distance from point p to the segment a-b."""
    dx, dy = float(b[0] - a[0]), float(b[1] - a[1])
    t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / max(dx * dx + dy * dy, 1e-9)
    t = min(1.0, max(0.0, t))
    return math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1])
