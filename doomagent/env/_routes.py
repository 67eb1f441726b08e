"""The walk graph of a map (sectors joined where a player can cross, doors and lifts included) and the route
from the player start to the exit on it."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import networkx as nx
import numpy as np

from doomagent.env.geometry import MAX_STEP, MIN_HEADROOM, ML_BLOCKING, MapGeometry


@dataclass(frozen=True)
class Route:
    """The shortest walkable route from the player start to the exit."""

    sectors: tuple[int, ...]
    points: tuple[tuple[float, float], ...]  # start, midpoints of the lines crossed, exit line
    lines: tuple[int, ...]  # the lines crossed (points[1:-1]), then the exit line
    length: float
    keys: tuple[str, ...]
    strict: bool = True  # False: found only when step heights were ignored


def passable(g: MapGeometry, line: int, src: int, dst: int, movers: frozenset[int], strict: bool) -> bool:
    if g.line_flags[line] & ML_BLOCKING:
        return False
    if src in movers or dst in movers:
        return True
    floor_step = g.sector_floor[dst] - g.sector_floor[src] if strict else 0
    return bool(floor_step <= MAX_STEP and g.opening(src, dst) >= MIN_HEADROOM)


def connects(g: MapGeometry, line: int, a: int, b: int) -> bool:
    # Rooms join where a player can cross in at least one direction: no blocking flag and room to
    # stand in the opening (a drop counts); windows and sills do not join rooms.
    if g.line_flags[line] & ML_BLOCKING:
        return False
    if a in g.lifts or b in g.lifts:
        return True
    return g.opening(a, b) >= MIN_HEADROOM


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
        entries = [(line, sec) for line, other in exits if passable(g, line, other, sec, movers, strict)]
        for entry in entries:
            ex, ey = mid[entry[0]]
            for line, other in exits:
                if line != entry[0] and passable(g, line, sec, other, movers, strict):
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
        if passable(g, line, sec, other, graph.graph["movers"], graph.graph["strict"]):
            qx, qy = mid[line]
            graph.add_edge("start", (line, other), weight=float(np.hypot(qx - x, qy - y)), sector=sec)


def find_route(g: MapGeometry, graph: nx.DiGraph | None = None) -> Route | None:
    """Return the route from the start to the exit.

    The shortest walk when it needs no key and keeps to the step heights (E1M1's); otherwise the walk of
    the map's progression plan (keys fetched, switches used, teleporters taken: see `progression`); when
    no plan is found either, the shortest walk ignoring step heights, or None.
    """
    route = shortest_route(g, walk_graph(g) if graph is None else graph)
    if route is not None and route.strict and not route.keys:
        return route
    planned = _planned_route(g)
    if planned is not None:
        return planned
    return route if route is not None else shortest_route(g, walk_graph(g, strict=False))


def _planned_route(g: MapGeometry) -> Route | None:
    from doomagent.env.progression import NoPlanError, plan_for

    try:
        plan = plan_for(g)
    except NoPlanError:
        return None
    return Route(plan.sectors, plan.points, plan.lines, plan.length, plan.keys, strict=plan.strict)


def shortest_route(g: MapGeometry, graph: nx.DiGraph) -> Route | None:
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
