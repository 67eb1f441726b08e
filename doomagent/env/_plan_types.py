"""The progression plan's types (objectives, legs, the plan) and their data form for the plan cache."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from doomagent.env._plan_world import ObjectiveKind
from doomagent.env.specials import Key
from doomagent.errors import NoPlanError


@dataclass(frozen=True)
class Objective:
    """One step of a map's progression, where it happens and what it does."""

    kind: ObjectiveKind
    where: tuple[float, float]
    sector: int
    text: str  # what it is, in a few words: "the blue keycard", "a switch that lowers a floor"
    key: Key | None = None  # the key picked up (key) or needed (door, locked switch)
    tag: int | None = None  # the sector tag a switch, trigger or boss death sets off
    line: int | None = None
    moves: tuple[int, ...] = ()  # sectors it sets moving


@dataclass(frozen=True)
class Leg:
    """The walk from one objective (or the start) to the next."""

    points: tuple[tuple[float, float], ...]
    lines: tuple[int, ...]  # lines crossed, teleport lines included
    sectors: tuple[int, ...]  # the sector at each point (repeats where a point stays in its sector)
    length: float


@dataclass(frozen=True)
class ProgressionPlan:
    """A map's objectives in order (the exit last) and the legs walked between them."""

    map: str
    objectives: tuple[Objective, ...]
    legs: tuple[Leg, ...]  # legs[i] ends at objectives[i]
    strict: bool = True  # False: the route climbs steps higher than 24 units (see climbs)
    climbs: tuple[int, ...] = ()  # lines the route climbs that the WAD shows no lift or trigger for

    @property
    def length(self) -> float:
        """Return the walking length of the whole route in map units."""
        return sum(leg.length for leg in self.legs)

    @property
    def keys(self) -> tuple[Key, ...]:
        """Return the keys picked up, in order."""
        return tuple(o.key for o in self.objectives if o.kind == "key" and o.key is not None)

    @property
    def sectors(self) -> tuple[int, ...]:
        """Return the sectors the route passes, in order, without repeats in a row."""
        out: list[int] = []
        for leg in self.legs:
            for s in leg.sectors:
                if not out or out[-1] != s:
                    out.append(s)
        return tuple(out)

    @property
    def points(self) -> tuple[tuple[float, float], ...]:
        """Return the route's points from the start to the exit."""
        out: list[tuple[float, float]] = []
        for leg in self.legs:
            out.extend(leg.points if not out else leg.points[1:])
        return tuple(out)

    @property
    def lines(self) -> tuple[int, ...]:
        """Return the lines crossed, in order."""
        return tuple(line for leg in self.legs for line in leg.lines)

    def summary(self) -> str:
        """Return the objectives in one line: `blue key > blue door > switch (tag 5) > exit`."""
        return " > ".join(_short(o) for o in self.objectives)


def _short(o: Objective) -> str:
    if o.kind in ("key", "door"):
        return f"{o.key} {'key' if o.kind == 'key' else 'door'}"
    if o.kind in ("switch", "walk", "shoot"):
        return f"{o.kind} (tag {o.tag})"
    return o.kind


def plan_data(found: ProgressionPlan | NoPlanError) -> dict[str, Any]:
    """Return a plan (or why a map has none) as JSON-ready data."""
    if isinstance(found, NoPlanError):
        return {"why": found.message}
    return dataclasses.asdict(found)


def plan_from_data(data: dict[str, Any]) -> ProgressionPlan | NoPlanError | None:
    """Return the plan (or the error) stored as data, or None for data this version cannot read."""
    if "why" in data:
        return NoPlanError(str(data["why"]))
    try:
        objectives = tuple(
            Objective(**{**o, "where": tuple(o["where"]), "moves": tuple(o["moves"])}) for o in data["objectives"]
        )
        legs = tuple(
            Leg(tuple(tuple(p) for p in leg["points"]), tuple(leg["lines"]), tuple(leg["sectors"]), leg["length"])
            for leg in data["legs"]
        )
        return ProgressionPlan(data["map"], objectives, legs, bool(data["strict"]), tuple(data["climbs"]))
    except (KeyError, TypeError, ValueError):
        return None
