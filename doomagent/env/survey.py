"""A survey of every map of a WAD: rooms, the route to the exit, keys, exits, and why a map has no route.

What `doomagent maps` prints; read from the WAD alone, no engine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from doomagent.env import specials
from doomagent.env.geometry import MapGeometry
from doomagent.env.progression import ProgressionPlan, plan_for
from doomagent.env.rooms import build_rooms
from doomagent.errors import NoPlanError


@dataclass(frozen=True)
class MapSurvey:
    """One map, as far as the WAD tells without playing it."""

    name: str
    sectors: int
    rooms: int
    route_rooms: tuple[str, ...]  # the rooms the route crosses, in order
    route_length: float | None  # map units; None: no route to an exit
    route_keys: tuple[str, ...]  # keys the route picks up, in order
    keys_on_map: tuple[str, ...]  # key things placed on the map
    exits: int  # normal exit lines
    largest_room_share: float  # share of the map's floor area in its largest room
    why_no_route: str | None = None
    objectives: tuple[str, ...] = ()  # the progression plan's objectives, in order (see progression)
    approximate: bool = False  # the plan climbs a step the WAD shows no lift for

    @property
    def routed(self) -> bool:
        """Return True if a walking route from the start to an exit was found."""
        return self.route_length is not None


def survey_map(geometry: MapGeometry) -> MapSurvey:
    """Return the survey of one map: its progression plan, rooms along it, and why when no plan exists."""
    from doomagent.env.mapplot import room_raster

    try:
        plan: ProgressionPlan | None = plan_for(geometry)
        why = None
    except NoPlanError as exc:
        plan, why = None, exc.message
    rooms = build_rooms(geometry)
    grid, _ = room_raster(rooms, cells=200)
    counts = np.bincount(grid[grid >= 0].ravel(), minlength=len(rooms.labels)) if (grid >= 0).any() else np.zeros(1)
    floor = float((grid >= 0).sum() + (grid == -2).sum() + (grid == -3).sum())
    share = float(counts.max() / floor) if floor else 0.0
    keys_on_map = tuple(
        dict.fromkeys(specials.KEY_THINGS[t] for t in geometry.things["type"].tolist() if t in specials.KEY_THINGS)
    )
    route = rooms.route if plan is not None else None
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
        why_no_route=why,
        objectives=tuple(plan_objective_words(plan)) if plan is not None else (),
        approximate=plan is not None and not plan.strict,
    )


def plan_objective_words(plan: ProgressionPlan) -> list[str]:
    """Return the plan's objectives as short words: `blue key`, `blue door`, `switch`, `teleport`, `exit`."""
    words = {"switch": "switch", "walk": "trigger", "shoot": "shoot", "boss": "boss", "teleport": "teleport"}
    out = []
    for o in plan.objectives:
        if o.kind in ("key", "door"):
            out.append(f"{o.key} {o.kind}")
        else:
            out.append(words.get(o.kind, o.kind))
    return out
