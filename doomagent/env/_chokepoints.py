"""Cut rooms that are too large at their chokepoints: narrow openings between two large areas.

Doors alone leave whole halves of some maps in one room (E2M4: 702 sectors, 4 rooms). A room larger than
MAX_SHARE of the map's floor is cut in two where the walkable openings between its parts are narrowest for
the floor they separate: the sweep of the room's spectral ordering (the Fiedler vector of its sector graph,
edges weighted by the width of the openings between sectors) that minimises opening width over the smaller
side's floor area, among cuts at most MAX_CUT units wide that leave both sides connected and each at least
MIN_SIDE of the room. Parts are cut again while they are still too large.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from doomagent.env.geometry import ML_BLOCKING, MapGeometry

MAX_SHARE = 0.3  # rooms larger than this share of the map's floor are cut
MAX_CUT = 384.0  # map units of opening: a corridor mouth or a few, not a wide-open hall
MIN_SIDE = 0.2  # neither side of a cut may hold less than this share of the room's floor
MIN_HEADROOM = 56


def sector_areas(g: MapGeometry, cells: int = 240) -> np.ndarray:
    """Return each sector's floor area in map units squared, from a raster of the map."""
    x0, y0, x1, y1 = g.bounds
    step = max(x1 - x0, y1 - y0) / cells
    gx, gy = np.meshgrid(np.arange(x0 + step / 2, x1, step), np.arange(y0 + step / 2, y1, step))
    px, py = gx.ravel() + 0.37, gy.ravel() + 0.29
    sectors = g.sectors_at(px, py)
    inside = g.inside_map(px, py, sectors)
    counts = np.bincount(sectors[inside], minlength=g.n_sectors).astype(float)
    return counts * step * step


def openings(g: MapGeometry, *, walkable_only: bool = True) -> dict[tuple[int, int], float]:
    """Return, per pair of sectors, the total width of the walkable lines between them (of every two-sided
    line with walkable_only=False)."""
    a = g.vertices[g.line_v[:, 0]]
    b = g.vertices[g.line_v[:, 1]]
    width = np.hypot(*(b - a).T)
    out: dict[tuple[int, int], float] = {}
    for line in np.flatnonzero((g.line_front >= 0) & (g.line_back >= 0)).tolist():
        f, k = int(g.line_front[line]), int(g.line_back[line])
        if f == k:
            continue
        if walkable_only and (g.line_flags[line] & ML_BLOCKING or g.opening(f, k) < MIN_HEADROOM):
            continue
        key = (min(f, k), max(f, k))
        out[key] = out.get(key, 0.0) + float(width[line])
    return out


def split_large(g: MapGeometry, rooms: list[frozenset[int]]) -> list[frozenset[int]]:
    """Return the rooms with every room over MAX_SHARE of the floor cut at its chokepoints."""
    area = sector_areas(g)
    total = float(area.sum()) or 1.0
    widths = openings(g)
    touching = openings(g, walkable_only=False)
    out: list[frozenset[int]] = []
    todo = list(rooms)
    while todo:
        room = todo.pop()
        if float(area[list(room)].sum()) <= MAX_SHARE * total or len(room) < 4:
            out.append(room)
            continue
        parts = _bisect(room, area, widths, touching)
        if parts is None:
            out.append(room)
        else:
            todo.extend(parts)
    return out


def _bisect(
    room: frozenset[int],
    area: np.ndarray,
    widths: dict[tuple[int, int], float],
    touching: dict[tuple[int, int], float],
) -> tuple[frozenset[int], frozenset[int]] | None:
    whole = nx.Graph()
    whole.add_nodes_from(room)
    for (a, b), w in widths.items():
        if a in room and b in room:
            whole.add_edge(a, b, weight=w)
    # Cut the room's main walkable piece; bits joined to it only by drops, lifts or sills follow the side
    # they touch most.
    main = max(nx.connected_components(whole), key=lambda c: float(area[list(c)].sum()))
    graph = whole.subgraph(main).copy()
    if graph.number_of_nodes() < 4:
        return None
    nodes = sorted(graph.nodes)
    weights = nx.to_numpy_array(graph, nodelist=nodes, weight="weight")
    degree = weights.sum(axis=1)
    scale = 1.0 / np.sqrt(np.maximum(degree, 1e-9))
    laplacian = np.eye(len(nodes)) - scale[:, None] * weights * scale[None, :]
    _values, vectors = np.linalg.eigh(laplacian)  # dense and exact: rooms hold hundreds of sectors at most
    fiedler = vectors[:, 1] * scale
    order = [n for _, n in sorted(zip(fiedler.tolist(), nodes, strict=True))]
    room_area = float(area[list(main)].sum())
    candidates: list[tuple[float, int]] = []
    side: set[int] = set()
    side_area, cut = 0.0, 0.0
    for i, sector in enumerate(order[:-1]):
        for other, data in graph[sector].items():
            cut += -data["weight"] if other in side else data["weight"]
        side.add(sector)
        side_area += float(area[sector])
        small = min(side_area, room_area - side_area)
        if cut > MAX_CUT or small < MIN_SIDE * room_area:
            continue
        candidates.append((cut / small, i))
    for _score, i in sorted(candidates)[:20]:  # the narrowest cut that leaves both sides in one piece
        first = set(order[: i + 1])
        second = set(main) - first
        if nx.is_connected(graph.subgraph(first)) and nx.is_connected(graph.subgraph(second)):
            return _attach(room - main, first, second, touching)
    return None


def _attach(
    rest: frozenset[int], first: set[int], second: set[int], touching: dict[tuple[int, int], float]
) -> tuple[frozenset[int], frozenset[int]]:
    """Give each leftover sector to the side it shares the longest boundary with (repeatedly, outward)."""
    left = set(rest)
    while left:
        placed = False
        for sector in sorted(left):
            a = sum(w for (p, q), w in touching.items() if (p == sector and q in first) or (q == sector and p in first))
            b = sum(
                w for (p, q), w in touching.items() if (p == sector and q in second) or (q == sector and p in second)
            )
            if a or b:
                (first if a >= b else second).add(sector)
                left.discard(sector)
                placed = True
        if not placed:
            first.update(left)
            break
    return frozenset(first), frozenset(second)
