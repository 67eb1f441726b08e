"""Where a player stands to use a line: the walkable grid cells within use range of a switch whose straight
reach to the line crosses no wall. A switch on a ledge, in an alcove or behind a sill is pressed from the floor
below or beside it, not from its own sector (often a strip a player cannot stand in)."""

from __future__ import annotations

import math

import numpy as np

from doomagent.env.navgrid import RADIUS
from doomagent.env.rooms import RoomMap, crossed

USE_REACH = 52.0  # map units from a cell's centre to the line (Doom's use range is 64; a margin for the radius)
USE_RANGE = 60.0  # map units a use strikes along the view (Doom's 64, less a margin)
END_MARGIN = 6.0  # map units from a line's ends a use must strike it (at most a fifth of its length)
EDGE_ON = 0.35  # a line seen at a smaller angle's sine than this is seen edge-on (about 20 degrees)


def nearest_on_line(room_map: RoomMap, line: int, x: float, y: float, *, inset: float = 0.0) -> tuple[float, float]:
    """Return the point of `line` nearest to (x, y), kept `inset` (a share of its length) from either end: a use
    aimed at a line's very end slips past it by the turn's tolerance."""
    g = room_map.geometry
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    dx, dy = bx - ax, by - ay
    t = min(1.0 - inset, max(inset, ((x - ax) * dx + (y - ay) * dy) / max(dx * dx + dy * dy, 1e-9)))
    return float(ax + t * dx), float(ay + t * dy)


def reaches(room_map: RoomMap, line: int, x: float, y: float, reach: float = USE_REACH, *, moved: bool = False) -> bool:
    """Return True when a player at (x, y) can use `line`: on its front side (a switch used from behind does
    nothing), within reach, and no wall in between (`moved`: none once the tagged sectors have moved out of the way)."""
    if not on_front(room_map, line, x, y):
        return False
    at = nearest_on_line(room_map, line, x, y)
    d = math.dist((x, y), at)
    if d > reach:
        return False
    if d < 1.0:
        return True
    # A use reaches over a sill and under a lintel (freedoom1 E1M2's switch 1854, in an alcove 22 units up and 32 tall).
    return room_map.clear_use((x, y), _short_of(x, y, at), moved=moved)


def _short_of(x: float, y: float, at: tuple[float, float]) -> tuple[float, float]:
    """Return the point a unit short of a line's point `at` on the way from (x, y), where a use from there is checked
    to (the line itself is a wall a check for walls in between would otherwise stop at)."""
    d = max(math.dist((x, y), at), 1e-9)
    return at[0] + (x - at[0]) / d, at[1] + (y - at[1]) / d


def use_cells(room_map: RoomMap, line: int, *, moved: bool = False) -> np.ndarray:
    """Return the walkable cells a player can use `line` from (empty when none); `moved`: the cells of any sector it
    could be used from once the tagged sectors round it have moved (a switch in an alcove that opens onto a floor a
    switch elsewhere lowers: freedoom1 E4M1's tag-16 switch; the live grid tells when they can be stood on)."""
    grid = room_map.navgrid
    g = room_map.geometry
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    box = (
        (grid.cx >= min(ax, bx) - USE_REACH)
        & (grid.cx <= max(ax, bx) + USE_REACH)
        & (grid.cy >= min(ay, by) - USE_REACH)
        & (grid.cy <= max(ay, by) + USE_REACH)
        & ((grid.sector >= 0) if moved else grid.walkable)
    )
    cells = [int(c) for c in np.flatnonzero(box) if reaches(room_map, line, *grid.centre(int(c)), moved=moved)]
    return np.array(cells, dtype=np.int64)


def shut_ways(room_map: RoomMap, line: int, cells: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """Return, for a switch used from `cells` only once tagged sectors have moved (use_cells with `moved`), the ways
    a use reaches it: each the lines of tagged sectors with no opening as the map begins (RoomMap.use_walls_tagged)
    that the use from one of the cells crosses (distinct ways only; an empty way: a use clear from the start). The
    switch is pressed in vain until every line of one way has opened: freedoom1 E4M1's tag-16 switch sits behind a
    strip (sector 318, floor and ceiling 376) that the tag-8 switch lowers; a walk that came to it first (on a trial
    route) pressed at it and circled its alcove for 1,300 frames."""
    segments, shut = room_map.use_walls_tagged
    ways: set[tuple[int, ...]] = set()
    for cell in cells.tolist():
        x, y = room_map.navgrid.centre(int(cell))
        tip = _short_of(x, y, nearest_on_line(room_map, line, x, y))
        ways.add(tuple(shut[crossed((x, y), tip, segments)[0]].tolist()))
    return tuple(sorted(ways))


def open_way(room_map: RoomMap, ways: tuple[tuple[int, ...], ...], floors: np.ndarray, ceilings: np.ndarray) -> bool:
    """Return True when every line of one of the ways (see shut_ways) has an opening at the heights now."""
    g = room_map.geometry
    for way in ways:
        front, back = g.line_front[list(way)], g.line_back[list(way)]
        if (np.minimum(ceilings[front], ceilings[back]) - np.maximum(floors[front], floors[back]) > 0).all():
            return True
    return False


def on_front(room_map: RoomMap, line: int, x: float, y: float) -> bool:
    """Return True when (x, y) lies on the line's front side (Doom's: the right of its first to second vertex)."""
    g = room_map.geometry
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    return (x - ax) * (by - ay) - (y - ay) * (bx - ax) > 0


def beyond(room_map: RoomMap, line: int, front: bool, depth: float = 24.0) -> tuple[float, float]:
    """Return the point `depth` units past the line's middle on its front side (`front`) or its back side."""
    g = room_map.geometry
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    return _past(room_map, line, ((ax + bx) / 2, (ay + by) / 2), front, depth)


def across(room_map: RoomMap, line: int, x: float, y: float, *, inset: float) -> tuple[float, float]:
    """Return the point 24 units past the line straight across from (x, y), on the side it is not on (kept `inset`
    from the line's ends): where to head to walk over it."""
    at = nearest_on_line(room_map, line, x, y, inset=inset)
    return _past(room_map, line, at, not on_front(room_map, line, x, y), 24.0)


def _past(room_map: RoomMap, line: int, at: tuple[float, float], front: bool, depth: float) -> tuple[float, float]:
    g = room_map.geometry
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    length = max(math.hypot(bx - ax, by - ay), 1e-9)
    nx, ny = (by - ay) / length, -(bx - ax) / length  # the front side's normal
    sign = 1.0 if front else -1.0
    return at[0] + sign * depth * nx, at[1] + sign * depth * ny


def spans(room_map: RoomMap, line: int, a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Return True when the step from a to b (which lie on the line's two sides) sets the line off: Doom takes a
    line the player's box touched and asks only which side of it (drawn on for ever) the centre is on, so a step
    past its end within the player's radius counts."""
    g = room_map.geometry
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    ex, ey = bx - ax, by - ay
    dx, dy = b[0] - a[0], b[1] - a[1]
    denom = dx * ey - dy * ex
    if denom == 0:
        return False
    s = ((ax - a[0]) * ey - (ay - a[1]) * ex) / denom  # where along the step it meets the line drawn on
    length = math.hypot(ex, ey)
    t = ((a[0] + s * dx - ax) * ex + (a[1] + s * dy - ay) * ey) / max(length * length, 1e-9)
    slack = RADIUS / max(length, 1e-9)
    return -slack <= t <= 1.0 + slack


def use_strikes(room_map: RoomMap, line: int, x: float, y: float, angle: float) -> bool:
    """Return True when a use from (x, y) with the view at `angle` degrees strikes `line` within range, clear of its
    ends. Doom's use runs along the view and takes the first line it crosses: one it meets edge-on, or past its end,
    it misses (freedoom1 E1M9's tag-22 switch, pressed from against the wall beside it, turned 6 degrees off)."""
    g = room_map.geometry
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    dx, dy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    ex, ey = bx - ax, by - ay
    den = dx * ey - dy * ex
    if abs(den) < 1e-9:
        return False
    wx, wy = ax - x, ay - y
    t = (wx * ey - wy * ex) / den  # how far along the view it meets the line drawn on
    s = (wx * dy - wy * dx) / den  # and where along the line
    length = max(math.hypot(ex, ey), 1e-9)
    margin = min(END_MARGIN, 0.2 * length) / length
    return 0.0 < t <= USE_RANGE and margin <= s <= 1.0 - margin


def edge_on(room_map: RoomMap, line: int, x: float, y: float, at: tuple[float, float]) -> bool:
    """Return True when a player at (x, y) sees the line's point `at` nearly along the line (or stands on it drawn
    on): a turn of a tap or two sweeps a use past it, so the player steps out in front of it first."""
    g = room_map.geometry
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    length = max(math.hypot(bx - ax, by - ay), 1e-9)
    depth = abs((x - ax) * (by - ay) - (y - ay) * (bx - ax)) / length  # from the line drawn on
    return depth < 2.0 or depth < EDGE_ON * math.dist((x, y), at)


def in_front(room_map: RoomMap, line: int, at: tuple[float, float], depth: float) -> tuple[float, float]:
    """Return the point `depth` units in front of the line's point `at` (on its front side)."""
    return _past(room_map, line, at, True, depth)
