"""A survey of every map of a WAD: rooms, the route to the exit, keys, exits, and why a map has no route.

What `doomagent maps` prints; read from the WAD alone, no engine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from doomagent.env import specials
from doomagent.env.geometry import MapGeometry
from doomagent.env.rooms import build_rooms

# E1M8-style maps end when their bosses die (tag 666 lowers a floor, Doom's boss-death scheme): no exit line.
BOSS_TAG = 666
# The things whose death ends such maps: Barons of Hell (E1M8); Cyberdemon, Spider Mastermind (E2M8, E3M8, MAP..).
BOSS_THINGS = {3003: "Baron of Hell", 16: "Cyberdemon", 7: "Spider Mastermind"}


@dataclass(frozen=True)
class MapSurvey:
    """One map, as far as the WAD tells without playing it."""

    name: str
    sectors: int
    rooms: int
    route_rooms: tuple[str, ...]  # the rooms the route crosses, in order
    route_length: float | None  # map units; None: no route to an exit
    route_keys: tuple[str, ...]  # keys the route's doors need
    keys_on_map: tuple[str, ...]  # key things placed on the map
    exits: int  # normal exit lines
    largest_room_share: float  # share of the map's floor area in its largest room
    why_no_route: str | None = None

    @property
    def routed(self) -> bool:
        """Return True if a walking route from the start to an exit was found."""
        return self.route_length is not None


def survey_map(geometry: MapGeometry) -> MapSurvey:
    """Return the survey of one map."""
    from doomagent.env.mapplot import room_raster

    rooms = build_rooms(geometry)
    grid, _ = room_raster(rooms, cells=200)
    counts = np.bincount(grid[grid >= 0].ravel(), minlength=len(rooms.labels)) if (grid >= 0).any() else np.zeros(1)
    floor = float((grid >= 0).sum() + (grid == -2).sum() + (grid == -3).sum())
    share = float(counts.max() / floor) if floor else 0.0
    route = rooms.route
    keys_on_map = tuple(
        dict.fromkeys(specials.KEY_THINGS[t] for t in geometry.things["type"].tolist() if t in specials.KEY_THINGS)
    )
    route_rooms: tuple[str, ...] = ()
    if route is not None:
        route_rooms = tuple(dict.fromkeys(rooms.sector_room[s] for s in route.sectors if s in rooms.sector_room))
    return MapSurvey(
        name=geometry.name,
        sectors=geometry.n_sectors,
        rooms=len(rooms.rooms),
        route_rooms=route_rooms,
        route_length=route.length if route is not None else None,
        route_keys=tuple(route.keys) if route is not None else (),
        keys_on_map=keys_on_map,
        exits=len(geometry.exit_lines),
        largest_room_share=share,
        why_no_route=None if route is not None else _why_no_route(geometry),
    )


def _why_no_route(g: MapGeometry) -> str:
    """Return why no walking route reaches an exit: no exit line at all (and how the map ends), or what blocks."""
    bosses = sorted({BOSS_THINGS[t] for t in g.things["type"].tolist() if t in BOSS_THINGS})
    if BOSS_TAG in set(g.sector_tag.tolist()) and bosses:
        return f"a boss map: the way to the exit opens when its bosses die ({', '.join(bosses)}; tag {BOSS_TAG})"
    if not g.exit_lines:
        return f"no exit line: the map ends when its bosses die ({', '.join(bosses)})" if bosses else "no exit line"
    teleports = sum(1 for s in g.line_special.tolist() if s in (39, 97, 125, 126))
    if teleports:
        return f"the exit lies past a teleporter or a switch the route does not model ({teleports} teleport lines)"
    return "the exit lies past a switch, lift or raised floor the route does not model"
