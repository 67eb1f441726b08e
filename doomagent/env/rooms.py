"""Split a map into rooms at door thresholds and order them along the route from start to exit."""

from __future__ import annotations

import itertools
import string
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np

from doomagent.env._chokepoints import split_large
from doomagent.env.geometry import ML_BLOCKING, MapGeometry

if TYPE_CHECKING:
    from doomagent.env.navgrid import NavGrid
from doomagent.errors import ConfigError

MAX_STEP = 24  # highest floor step a player climbs
MIN_HEADROOM = 56  # player height
PROFILE_DIR = Path(__file__).with_name("profiles")


@dataclass(frozen=True)
class Route:
    """The shortest walkable route from the player start to the exit."""

    sectors: tuple[int, ...]
    points: tuple[tuple[float, float], ...]  # start, midpoints of the lines crossed, exit line
    lines: tuple[int, ...]  # the lines crossed (points[1:-1]), then the exit line
    length: float
    keys: tuple[str, ...]
    strict: bool = True  # False: found only when step heights were ignored


@dataclass(frozen=True)
class Room:
    """A set of sectors the player moves between without crossing a door."""

    label: str
    sectors: frozenset[int]
    on_route: bool
    name: str | None = None


@dataclass
class RoomMap:
    """Rooms of one map, the sector-to-room index, and the route they are ordered along."""

    geometry: MapGeometry
    rooms: tuple[Room, ...]
    route: Route | None
    source: str  # "auto" or the profile path
    sector_room: dict[int, str] = field(init=False)

    def __post_init__(self) -> None:
        self.sector_room = {s: r.label for r in self.rooms for s in r.sectors}
        self._graphs: dict[bool, nx.DiGraph] = {}

    def route_from(self, x: float, y: float) -> Route | None:
        """Return the shortest walkable route from (x, y) to the exit (replanning after a detour)."""
        strict = self.route.strict if self.route is not None else True
        graph = self._graphs.get(strict)
        if graph is None:
            graph = self._graphs[strict] = walk_graph(self.geometry, strict=strict)
        set_start(graph, self.geometry, x, y)
        return _shortest_route(self.geometry, graph)

    @cached_property
    def navgrid(self) -> NavGrid:
        """Return the map's walkable grid with its distance field to the exit (built on first use)."""
        from doomagent.env.navgrid import NavGrid

        return NavGrid(self.geometry)

    @cached_property
    def walls(self) -> np.ndarray:
        """Return (N, 4) segments x1, y1, x2, y2 a player cannot walk straight through (doors open)."""
        g = self.geometry
        movers = frozenset(g.doors) | g.lifts
        keep = []
        for line in range(len(g.line_v)):
            f, b = int(g.line_front[line]), int(g.line_back[line])
            if f < 0 or b < 0 or g.line_flags[line] & ML_BLOCKING:
                keep.append(line)
            elif f in movers or b in movers:
                continue
            elif not (_passable(g, line, f, b, movers, True) or _passable(g, line, b, f, movers, True)):
                keep.append(line)
        a = g.vertices[g.line_v[keep, 0]]
        c = g.vertices[g.line_v[keep, 1]]
        return np.hstack([a, c])

    def clear_path(self, a: tuple[float, float], b: tuple[float, float], *, margin: float = 16.0) -> bool:
        """Return True if the straight walk from a to b crosses no wall (nor passes within `margin` of
        a wall's end, where a player's 16-unit radius would catch)."""
        w = self.walls
        ax, ay = a
        bx, by = b
        dx, dy = bx - ax, by - ay
        ex, ey = w[:, 2] - w[:, 0], w[:, 3] - w[:, 1]
        denom = dx * ey - dy * ex
        with np.errstate(divide="ignore", invalid="ignore"):
            t = ((w[:, 0] - ax) * ey - (w[:, 1] - ay) * ex) / denom
            u = ((w[:, 0] - ax) * dy - (w[:, 1] - ay) * dx) / denom
        if np.any((denom != 0) & (t >= 0) & (t <= 1) & (u >= 0) & (u <= 1)):
            return False
        length = max(np.hypot(dx, dy), 1e-9)
        for px, py in ((w[:, 0], w[:, 1]), (w[:, 2], w[:, 3])):
            along = np.clip(((px - ax) * dx + (py - ay) * dy) / length**2, 0, 1)
            near = np.hypot(ax + along * dx - px, ay + along * dy - py) < margin
            if np.any(near & (along > 0.02) & (along < 0.98)):
                return False
        return True

    @property
    def labels(self) -> tuple[str, ...]:
        """Return room labels in order: route rooms first, then the rest."""
        return tuple(r.label for r in self.rooms)

    def room_of_sector(self, sector: int) -> str | None:
        """Return the room label of a sector, or None for doors and unassigned sectors."""
        return self.sector_room.get(sector)

    def room_at(self, x: float, y: float) -> str | None:
        """Return the room label at a map point, or None on a door threshold."""
        return self.sector_room.get(self.geometry.sector_at(x, y))

    def room(self, label: str) -> Room:
        """Return the room with this label."""
        for r in self.rooms:
            if r.label == label:
                return r
        raise KeyError(label)


def label_for(index: int) -> str:
    """Return the spreadsheet-style label of a 0-based index: A..Z, AA, AB, ..."""
    letters = string.ascii_uppercase
    out = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        out = letters[rem] + out
    return out


def _passable(g: MapGeometry, line: int, src: int, dst: int, movers: frozenset[int], strict: bool) -> bool:
    if g.line_flags[line] & ML_BLOCKING:
        return False
    if src in movers or dst in movers:
        return True
    floor_step = g.sector_floor[dst] - g.sector_floor[src] if strict else 0
    headroom = min(g.sector_ceiling[src], g.sector_ceiling[dst]) - max(g.sector_floor[src], g.sector_floor[dst])
    return bool(floor_step <= MAX_STEP and headroom >= MIN_HEADROOM)


def _connects(g: MapGeometry, line: int, a: int, b: int) -> bool:
    # Rooms join where a player can cross in at least one direction: no blocking flag and room to
    # stand in the opening (a drop counts); windows and sills do not join rooms.
    if g.line_flags[line] & ML_BLOCKING:
        return False
    if a in g.lifts or b in g.lifts:
        return True
    headroom = min(g.sector_ceiling[a], g.sector_ceiling[b]) - max(g.sector_floor[a], g.sector_floor[b])
    return bool(headroom >= MIN_HEADROOM)


def walk_graph(g: MapGeometry, *, strict: bool = True) -> nx.DiGraph:
    """Return a directed graph of (portal line, entered sector) nodes weighted by walking distance.

    strict=False ignores step heights, for maps whose route climbs stairs or floors that
    switches raise (no static analysis can see those open).
    """
    movers = frozenset(g.doors) | g.lifts
    portals: dict[int, list[tuple[int, int]]] = {}  # sector -> [(line, other sector)]
    for line in np.flatnonzero((g.line_front >= 0) & (g.line_back >= 0)).tolist():
        f, b = int(g.line_front[line]), int(g.line_back[line])
        if f != b:
            portals.setdefault(f, []).append((line, b))
            portals.setdefault(b, []).append((line, f))
    mid = {line: g.line_midpoint(line) for lines in portals.values() for line, _ in lines}
    graph = nx.DiGraph()
    for sec, exits in portals.items():
        entries = [(line, sec) for line, other in exits if _passable(g, line, other, sec, movers, strict)]
        for entry in entries:
            ex, ey = mid[entry[0]]
            for line, other in exits:
                if line != entry[0] and _passable(g, line, sec, other, movers, strict):
                    qx, qy = mid[line]
                    graph.add_edge(entry, (line, other), weight=float(np.hypot(qx - ex, qy - ey)), sector=sec)
    graph.graph["mid"] = mid
    graph.graph["portals"] = portals
    graph.graph["strict"] = strict
    graph.graph["movers"] = movers
    set_start(graph, g, *g.start[:2])
    return graph


def set_start(graph: nx.DiGraph, g: MapGeometry, x: float, y: float) -> None:
    """Make (x, y) the graph's "start" node, linked to the portals of the sector it lies in."""
    if "start" in graph:
        graph.remove_node("start")
    sec = g.sector_at(x, y)
    graph.add_node("start", pos=(x, y), sector=sec)
    mid = graph.graph["mid"]
    for line, other in graph.graph["portals"].get(sec, []):
        if _passable(g, line, sec, other, graph.graph["movers"], graph.graph["strict"]):
            qx, qy = mid[line]
            graph.add_edge("start", (line, other), weight=float(np.hypot(qx - x, qy - y)), sector=sec)


def find_route(g: MapGeometry, graph: nx.DiGraph | None = None) -> Route | None:
    """Return the route from the start to the exit.

    The shortest walk when it needs no key and keeps to the step heights (E1M1's); otherwise the walk of
    the map's progression plan (keys fetched, switches used, teleporters taken: see `progression`); when
    no plan is found either, the shortest walk ignoring step heights, or None.
    """
    route = _shortest_route(g, walk_graph(g) if graph is None else graph)
    if route is not None and route.strict and not route.keys:
        return route
    planned = _planned_route(g)
    if planned is not None:
        return planned
    return route if route is not None else _shortest_route(g, walk_graph(g, strict=False))


def _planned_route(g: MapGeometry) -> Route | None:
    from doomagent.env.progression import NoPlanError, plan_for

    try:
        plan = plan_for(g)
    except NoPlanError:
        return None
    return Route(plan.sectors, plan.points, plan.lines, plan.length, plan.keys, strict=plan.strict)


def _shortest_route(g: MapGeometry, graph: nx.DiGraph) -> Route | None:
    portals: dict[int, list[tuple[int, int]]] = graph.graph["portals"]
    mid = graph.graph["mid"]
    start_sec = graph.nodes["start"]["sector"]
    sx, sy = graph.nodes["start"]["pos"]
    for exit_line in g.exit_lines:
        ex, ey = g.line_midpoint(exit_line)
        sides = {int(s) for s in (g.line_front[exit_line], g.line_back[exit_line]) if s >= 0}
        graph.add_node("exit")
        for sec in sides:
            for line, _other in portals.get(sec, []):
                node = (line, sec)
                if node in graph:
                    qx, qy = mid[line]
                    graph.add_edge(node, "exit", weight=float(np.hypot(ex - qx, ey - qy)), sector=sec)
            if sec == start_sec:
                graph.add_edge("start", "exit", weight=float(np.hypot(ex - sx, ey - sy)), sector=sec)
        try:
            path = nx.dijkstra_path(graph, "start", "exit")
        except nx.NetworkXNoPath:
            graph.remove_node("exit")
            continue
        sectors = [graph.edges[a, b]["sector"] for a, b in itertools.pairwise(path)]
        points = [(sx, sy)] + [mid[n[0]] for n in path[1:-1]] + [(ex, ey)]
        length = float(sum(graph.edges[a, b]["weight"] for a, b in itertools.pairwise(path)))
        keys = tuple(dict.fromkeys(g.doors[s].key for s in sectors if s in g.doors and g.doors[s].key))
        graph.remove_node("exit")
        lines = (*tuple(n[0] for n in path[1:-1]), exit_line)
        return Route(
            tuple(_dedupe(sectors)),
            tuple(points),
            lines,
            length,
            keys,  # type: ignore[arg-type]
            strict=graph.graph["strict"],
        )
    return None


def _dedupe(items: list[int]) -> list[int]:
    return [x for i, x in enumerate(items) if i == 0 or items[i - 1] != x]


def auto_rooms(g: MapGeometry) -> RoomMap:
    """Split the map at door sectors, cut rooms over 30% of the floor at their chokepoints, and label rooms
    A, B, C... along the route to the exit."""
    doors = set(g.doors)
    adjacency = nx.Graph()
    adjacency.add_nodes_from(s for s in range(g.n_sectors) if s not in doors)
    both = (g.line_front >= 0) & (g.line_back >= 0)
    for line in np.flatnonzero(both).tolist():
        f, b = int(g.line_front[line]), int(g.line_back[line])
        if f != b and f not in doors and b not in doors and _connects(g, line, f, b):
            adjacency.add_edge(f, b)
    graph = walk_graph(g)
    reachable = {graph.nodes["start"]["sector"]} | {
        n[1] for n in nx.descendants(graph, "start") if isinstance(n, tuple)
    }
    components = split_large(g, _merge_unreachable(g, list(nx.connected_components(adjacency)), reachable))
    route = find_route(g, graph)
    return _order_rooms(g, components, route, graph, source="auto")


def _merge_unreachable(g: MapGeometry, components: list[set[int]], reachable: set[int]) -> list[frozenset[int]]:
    """Fold components no player can reach (pillars, sills, scenery) into the neighbour they share
    the longest boundary with, so that every room is a place the player can stand in."""
    owner = {s: i for i, c in enumerate(components) for s in c}
    a = g.vertices[g.line_v[:, 0]]
    b = g.vertices[g.line_v[:, 1]]
    length = np.hypot(*(b - a).T)
    shared: dict[int, dict[int, float]] = {}
    for line in np.flatnonzero((g.line_front >= 0) & (g.line_back >= 0)).tolist():
        f, k = owner.get(int(g.line_front[line])), owner.get(int(g.line_back[line]))
        if f is not None and k is not None and f != k:
            shared.setdefault(f, {}).setdefault(k, 0.0)
            shared.setdefault(k, {}).setdefault(f, 0.0)
            shared[f][k] += float(length[line])
            shared[k][f] += float(length[line])
    parent = list(range(len(components)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    live = [bool(c & reachable) for c in components]
    for i in sorted(range(len(components)), key=lambda i: len(components[i])):
        if live[i] or not shared.get(i):
            continue
        # Prefer a reachable neighbour; among equals, the longest shared boundary.
        target = max(shared[i], key=lambda k: (live[root(k)], shared[i][k]))
        parent[i] = root(target)
    merged: dict[int, set[int]] = {}
    for i, c in enumerate(components):
        merged.setdefault(root(i), set()).update(c)
    return [frozenset(c) for c in merged.values()]


def _order_rooms(
    g: MapGeometry,
    groups: list[frozenset[int]],
    route: Route | None,
    graph: nx.DiGraph,
    *,
    source: str,
    names: dict[frozenset[int], str] | None = None,
) -> RoomMap:
    owner = {s: i for i, grp in enumerate(groups) for s in grp}
    order: list[int] = []
    if route is not None:
        for sec in route.sectors:
            i = owner.get(sec)
            if i is not None and i not in order:
                order.append(i)
    on_route = set(order)
    # Off-route rooms: by walking distance from the start, unreachable ones last by size.
    dist = nx.single_source_dijkstra_path_length(graph, "start")
    best: dict[int, float] = {}
    sx, sy, _ = g.start
    best[owner.get(g.sector_at(sx, sy), -1)] = 0.0
    for node, d in dist.items():
        if isinstance(node, tuple):
            i = owner.get(node[1])
            if i is not None:
                best[i] = min(best.get(i, np.inf), d)
    rest = sorted(
        (i for i in range(len(groups)) if i not in on_route),
        key=lambda i: (best.get(i, np.inf), -len(groups[i]), min(groups[i])),
    )
    rooms = tuple(
        Room(label_for(k), groups[i], i in on_route, (names or {}).get(groups[i])) for k, i in enumerate(order + rest)
    )
    return RoomMap(g, rooms, route, source)


def load_profile(g: MapGeometry, path: Path) -> RoomMap:
    """Return rooms named in a profile file: `rooms: {label-or-name: [sectors...]}` in YAML."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read room profile {path}: {exc}") from exc
    rooms = data.get("rooms") if isinstance(data, dict) else None
    if not isinstance(rooms, dict) or not rooms:
        raise ConfigError(
            f"room profile {path} has no 'rooms' mapping", hint="write `rooms:` followed by `name: [sector, ...]` lines"
        )
    groups: list[frozenset[int]] = []
    names: dict[frozenset[int], str] = {}
    seen: dict[int, str] = {}
    for name, sectors in rooms.items():
        if not isinstance(sectors, list) or not all(isinstance(s, int) for s in sectors):
            raise ConfigError(f"room {name!r} in {path} must list sector numbers")
        for s in sectors:
            if not 0 <= s < g.n_sectors:
                raise ConfigError(
                    f"room {name!r} in {path} names sector {s}; map {g.name} has sectors 0..{g.n_sectors - 1}"
                )
            if s in seen:
                raise ConfigError(f"sector {s} is in both {seen[s]!r} and {name!r} in {path}")
            seen[s] = str(name)
        grp = frozenset(sectors)
        groups.append(grp)
        names[grp] = str(name)
    graph = walk_graph(g)
    return _order_rooms(g, groups, find_route(g, graph), graph, source=str(path), names=names)


def profile_path(g: MapGeometry) -> Path:
    """Return where the shipped profile of this WAD and map would live."""
    return PROFILE_DIR / f"{g.wad_path.stem.lower()}_{g.name}.yaml"


def build_rooms(g: MapGeometry, profile: str | Path | None = None) -> RoomMap:
    """Return the rooms of a map: a given profile, else a shipped one, else the automatic split."""
    if profile is not None:
        path = Path(profile)
        if not path.is_file():
            raise ConfigError(f"room profile not found: {path}")
        return load_profile(g, path)
    shipped = profile_path(g)
    return load_profile(g, shipped) if shipped.is_file() else auto_rooms(g)
