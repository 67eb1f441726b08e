"""Split a map into rooms at door thresholds and order them along the route from start to exit."""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np

from doomagent.env._chokepoints import split_large
from doomagent.env._routes import Route, connects, find_route, passable, set_start, shortest_route, walk_graph
from doomagent.env.geometry import ML_BLOCKING, MapGeometry

if TYPE_CHECKING:
    from doomagent.env.navgrid import NavGrid
from doomagent.errors import ConfigError

PROFILE_DIR = Path(__file__).with_name("profiles")


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
        return shortest_route(self.geometry, graph)

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
            elif not (passable(g, line, f, b, movers, True) or passable(g, line, b, f, movers, True)):
                keep.append(line)
        a = g.vertices[g.line_v[keep, 0]]
        c = g.vertices[g.line_v[keep, 1]]
        return np.hstack([a, c])

    @cached_property
    def use_walls(self) -> np.ndarray:
        """Return (N, 4) segments a use cannot reach through: one-sided lines and two-sided lines with no opening
        between floor and ceiling (Doom's use passes over a sill and under a lintel; doors and lifts count open, a door
        that opens only a crack too: freedoom1 E2M1's switches behind its yellow-key doors, 28 units open)."""
        return self._segments(self._use_wall_lines(False))

    @cached_property
    def use_walls_moved(self) -> np.ndarray:
        """Return the use walls with every tagged sector counted open too (a floor some switch or trigger moves out
        of the way: see clear_use)."""
        return self._segments(self._use_wall_lines(True))

    @cached_property
    def use_walls_tagged(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the use walls that use_walls_moved counts open (a tagged sector's lines with no opening as the map
        begins): (N, 4) segments and their line numbers."""
        lines = np.setdiff1d(self._use_wall_lines(False), self._use_wall_lines(True))
        return self._segments(lines), lines

    def _use_wall_lines(self, moved: bool) -> np.ndarray:
        g = self.geometry
        movers = g.door_targets | g.lifts | (frozenset(np.flatnonzero(g.sector_tag).tolist()) if moved else frozenset())
        f, b = g.line_front, g.line_back
        ff, bb = np.maximum(f, 0), np.maximum(b, 0)
        opening = np.minimum(g.sector_ceiling[ff], g.sector_ceiling[bb]) - np.maximum(
            g.sector_floor[ff], g.sector_floor[bb]
        )
        moving = np.isin(f, list(movers)) | np.isin(b, list(movers))
        return np.flatnonzero((f < 0) | (b < 0) | ((opening <= 0) & ~moving))

    def _segments(self, lines: np.ndarray) -> np.ndarray:
        g = self.geometry
        return np.hstack([g.vertices[g.line_v[lines, 0]], g.vertices[g.line_v[lines, 1]]]).reshape(-1, 4)

    def clear_use(self, a: tuple[float, float], b: tuple[float, float], *, moved: bool = False) -> bool:
        """Return True when a use from a reaches b: no line with no opening lies between them (see use_walls; `moved`:
        with the tagged sectors out of the way, see use_walls_moved)."""
        return not crossed(a, b, self.use_walls_moved if moved else self.use_walls)[0].any()

    @cached_property
    def one_way(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the lines crossed one way only (a drop off a crate or a ledge, climbed from nowhere): (N, 4)
        segments, their line numbers, and whether each one's front side is the one it cannot be crossed from.
        Lines of sectors that move (doors, lifts, any tagged sector: a floor a switch lowers) are left out: their
        heights change."""
        g = self.geometry
        movers = frozenset(g.doors) | g.lifts | frozenset(np.flatnonzero(g.sector_tag).tolist())
        keep, from_front = [], []
        for line in range(len(g.line_v)):
            f, b = int(g.line_front[line]), int(g.line_back[line])
            if f < 0 or b < 0 or g.line_flags[line] & ML_BLOCKING or f in movers or b in movers:
                continue
            forward, back = passable(g, line, f, b, movers, True), passable(g, line, b, f, movers, True)
            if forward != back:
                keep.append(line)
                from_front.append(not forward)
        a = g.vertices[g.line_v[keep, 0]].reshape(-1, 2)
        c = g.vertices[g.line_v[keep, 1]].reshape(-1, 2)
        return np.hstack([a, c]), np.array(keep, dtype=np.int64), np.array(from_front, dtype=bool)

    def clear_path(
        self,
        a: tuple[float, float],
        b: tuple[float, float],
        *,
        margin: float = 16.0,
        directed: bool = False,
        crossing: np.ndarray | None = None,
    ) -> bool:
        """Return True if the straight walk from a to b crosses no wall (nor passes within `margin` of
        a wall's end, where a player's 16-unit radius would catch). With `directed`, a line crossed one way only
        is a wall too: from the side it cannot be crossed from where it is one of the `crossing` lines (the
        route's own drops), from both sides elsewhere (a crate's side, a ledge over a pit nobody means to fall
        into)."""
        w = self.walls
        if directed:
            lines, numbers, from_front = self.one_way
            ex, ey = lines[:, 2] - lines[:, 0], lines[:, 3] - lines[:, 1]
            front = (a[0] - lines[:, 0]) * ey - (a[1] - lines[:, 1]) * ex > 0  # Doom's front side: the right
            allowed = np.isin(numbers, crossing) if crossing is not None else np.zeros(len(numbers), dtype=bool)
            w = np.vstack([w, lines[~allowed | (front == from_front)]])
        if crossed(a, b, w)[0].any():
            return False
        ax, ay = a
        dx, dy = b[0] - ax, b[1] - ay
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


def auto_rooms(g: MapGeometry) -> RoomMap:
    """Split the map at door sectors, cut rooms over 30% of the floor at their chokepoints, and label rooms
    A, B, C... along the route to the exit."""
    doors = set(g.doors)
    adjacency = nx.Graph()
    adjacency.add_nodes_from(s for s in range(g.n_sectors) if s not in doors)
    both = (g.line_front >= 0) & (g.line_back >= 0)
    for line in np.flatnonzero(both).tolist():
        f, b = int(g.line_front[line]), int(g.line_back[line])
        if f != b and f not in doors and b not in doors and connects(g, line, f, b):
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


def crossed(a: tuple[float, float], b: tuple[float, float], segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return which of the (N, 4) segments the segment from a to b crosses, and how far along a-b each is met (a
    share of its length; meaningless where not crossed)."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    ex, ey = segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1]
    denom = dx * ey - dy * ex
    with np.errstate(divide="ignore", invalid="ignore"):
        t = ((segments[:, 0] - ax) * ey - (segments[:, 1] - ay) * ex) / denom
        u = ((segments[:, 0] - ax) * dy - (segments[:, 1] - ay) * dx) / denom
    return (denom != 0) & (t >= 0) & (t <= 1) & (u >= 0) & (u <= 1), t
