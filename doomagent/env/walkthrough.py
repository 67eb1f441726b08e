"""Write a map's walkthrough from its progression plan, in the numbered step style of the paper's.

Each step says where to go (compass direction, rooms crossed, rough distance), what to do there (the key,
door, switch, trigger line, teleporter, bosses or exit of the plan's objective, in the plan's words), the
hazards on the way (floors that hurt, crushers) and the monsters in the rooms first entered on that leg.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from doomagent.env._triggers import VANILLA
from doomagent.env.geometry import MapGeometry
from doomagent.env.navgrid import HAZARD_SPECIALS
from doomagent.env.progression import Leg, Objective, ProgressionPlan
from doomagent.env.rooms import RoomMap
from doomagent.env.specials import MULTIPLAYER_ONLY, SKILL_FLAG

MONSTERS = {
    3004: "zombieman",
    9: "shotgun guy",
    65: "chaingunner",
    3001: "imp",
    3002: "demon",
    58: "spectre",
    3006: "lost soul",
    3005: "cacodemon",
    69: "hell knight",
    3003: "baron of hell",
    68: "arachnotron",
    71: "pain elemental",
    66: "revenant",
    67: "mancubus",
    64: "arch-vile",
    7: "spider mastermind",
    16: "cyberdemon",
    84: "wolfenstein SS",
}
_CRUSHERS = frozenset({6, 25, 44, 49, 55, 56, 57, 65, 73, 77, 94, 141})
_COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")


def compass(dx: float, dy: float) -> str:
    """Return the compass word of a direction in map coordinates (y grows north)."""
    angle = math.degrees(math.atan2(dy, dx)) % 360
    return _COMPASS[int((angle + 22.5) // 45) % 8]


def write_walkthrough(plan: ProgressionPlan, rooms: RoomMap) -> str:
    """Return the walkthrough of the plan's map, one numbered step per objective after the opening one."""
    g = rooms.geometry
    seen_rooms: set[str] = set()
    x, y, angle = g.start
    start_room = rooms.room_at(x, y)
    seen_rooms.add(start_room or "")
    facing = compass(math.cos(math.radians(angle)), math.sin(math.radians(angle)))
    opening = f"You start in room {start_room}, facing {facing}." if start_room else f"You start facing {facing}."
    crowd = _monsters(g, rooms, {start_room} if start_room else set())
    steps = [opening + (f" {crowd}" if crowd else "")]
    crushers = _crusher_sectors(g)
    for objective, leg in zip(plan.objectives, plan.legs, strict=True):
        entered = [r for r in _leg_rooms(rooms, leg) if r not in seen_rooms]
        seen_rooms.update(entered)
        text = _go(leg, rooms) + " " + _do(objective, g, rooms)
        hazards = _hazards(g, leg, crushers)
        if hazards:
            text += " " + hazards
        crowd = _monsters(g, rooms, set(entered))
        if crowd:
            text += " " + crowd
        steps.append(text)
    if not plan.strict:
        steps.append(
            "Somewhere on this route a ledge is higher than you can step up: look for a lift or stairs that rise "
            "when you press a switch or walk nearby."
        )
    return "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)) + "\n"


def _leg_rooms(rooms: RoomMap, leg: Leg) -> list[str]:
    return list(dict.fromkeys(r for s in leg.sectors if (r := rooms.room_of_sector(s)) is not None))


def _go(leg: Leg, rooms: RoomMap) -> str:
    """Return where to walk on a leg: the way out of the first room and the rooms passed."""
    a, b = leg.points[0], leg.points[-1]
    if leg.length < 96:
        return "Right here:"
    # The first stretch says which way to set off; the overall bearing says where the goal lies.
    first = next((p for p in leg.points[1:] if math.dist(p, a) > 64), b)
    head, goal = compass(first[0] - a[0], first[1] - a[1]), compass(b[0] - a[0], b[1] - a[1])
    through = _leg_rooms(rooms, leg)
    via = f" through rooms {', '.join(through)}" if len(through) > 1 else (f" in room {through[0]}" if through else "")
    way = f"Head {head}" + (f", then on toward the {goal}" if goal != head else "")
    return f"{way}{via} (about {_rounded(leg.length)} units)."


def _rounded(length: float) -> int:
    return int(round(length / 100.0) * 100) or 100


def _do(o: Objective, g: MapGeometry, rooms: RoomMap) -> str:
    """Return what to do at an objective; each names the objective's own text."""
    room = rooms.room_of_sector(o.sector)
    in_room = f" in room {room}" if room else ""
    if o.kind == "key":
        return f"Pick up {o.text}{in_room}: walk over it."
    if o.kind == "door":
        return f"Open {o.text}{in_room}: walk up to it with the {o.key} key, press USE, and go through."
    if o.kind == "teleport":
        dest = rooms.room_of_sector(o.sector)
        return f"Step onto {o.text}: it takes you" + (f" to room {dest}." if dest else " ahead.")
    if o.kind == "boss":
        after = "the level ends when they die." if o.tag is None else "their death opens the way on."
        return f"Then {o.text}{in_room}: {after}"
    side = _wall(g, o.line) if o.line is not None else ""
    if o.kind == "switch":
        return f"Use the {o.text}{side}{in_room}: face it up close and press USE."
    if o.kind == "walk":
        return f"Walk over the {o.text}{in_room}."
    if o.kind == "shoot":
        return f"Shoot the {o.text}{side}{in_room} (FIRE at it)."
    if (
        o.line is not None
        and VANILLA.get(int(g.line_special[o.line])) is not None
        and VANILLA[int(g.line_special[o.line])].trigger == "walk"
    ):
        return f"Cross {o.text}{in_room} to finish the level."
    return f"{o.text[0].upper()}{o.text[1:]} is{side}{in_room}. Face it up close and press USE to finish the level."


def _wall(g: MapGeometry, line: int) -> str:
    """Return ` on the <compass> wall` for a line used from its front side."""
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    # The front side lies to the right of v1 -> v2; a player on it faces the opposite way.
    return f" on the {compass(-(by - ay), bx - ax)} wall"


def _hazards(g: MapGeometry, leg: Leg, crushers: frozenset[int]) -> str:
    out = []
    if any(int(g.sector_special[s]) in HAZARD_SPECIALS for s in leg.sectors):
        out.append("Part of the floor on the way hurts (nukage, slime or lava): cross it quickly or go around.")
    if any(s in crushers for s in leg.sectors):
        out.append("A ceiling on the way crushes: wait until it rises, then run under it.")
    return " ".join(out)


def _crusher_sectors(g: MapGeometry) -> frozenset[int]:
    tags = {int(t) for s, t in zip(g.line_special.tolist(), g.line_tag.tolist(), strict=True) if s in _CRUSHERS}
    return frozenset(np.flatnonzero(np.isin(g.sector_tag, list(tags))).tolist()) if tags else frozenset()


def _plural(name: str) -> str:
    if name.endswith("man"):
        return name[:-3] + "men"
    if name.endswith("s"):
        return name
    return name + "s"


def _monsters(g: MapGeometry, rooms: RoomMap, wanted: set[str]) -> str:
    """Return a sentence naming the monsters (skill 3) standing in the given rooms, most numerous first."""
    if not wanted:
        return ""
    count: Counter[str] = Counter()
    for t in g.things:
        name = MONSTERS.get(int(t["type"]))
        flags = int(t["flags"])
        if name is None or not flags & SKILL_FLAG[3] or flags & MULTIPLAYER_ONLY:
            continue
        if rooms.room_at(float(t["x"]), float(t["y"])) in wanted:
            count[name] += 1
    if not count:
        return ""
    parts = [f"{n} {_plural(name) if n > 1 else name}" for name, n in count.most_common(4)]
    return f"Watch for {', '.join(parts)}."
