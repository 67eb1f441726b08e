"""What each linedef special does for progression: how it is set off, what it moves, which key it needs.

Vanilla Doom's numbered specials and Boom's generalized ranges, reduced to what a route planner needs: a
trigger (walk over, switch, shoot, push the door itself), whether it can be used again, and its effect on the
sectors it acts on: `open` (doors that open, floors and ceilings that move, lifts, stairs: the sector becomes
passable once set off), `none` (lights, closing doors, crushers), `teleport`, `exit`, `secret_exit`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from doomagent.env.specials import Key

Trigger = Literal["walk", "switch", "shoot", "push"]
Effect = Literal["open", "stairs", "lift", "none", "teleport", "line_teleport", "exit", "secret_exit"]


@dataclass(frozen=True)
class Special:
    """One linedef special as the planner reads it."""

    trigger: Trigger
    effect: Effect
    key: Key | None = None
    door: bool = False  # a door (as opposed to a floor, ceiling or lift): for the walkthrough's words

    @property
    def manual(self) -> bool:
        """Return True when it acts on the sector behind the line (doors the player pushes)."""
        return self.trigger == "push"


def _table() -> dict[int, Special]:
    rows: dict[int, Special] = {}

    def put(trigger: Trigger, effect: Effect, numbers: str, *, key: Key | None = None, door: bool = False) -> None:
        for n in numbers.split():
            rows[int(n)] = Special(trigger, effect, key, door)

    put("push", "open", "1 31 117 118", door=True)
    put("push", "open", "26 32", key="blue", door=True)
    put("push", "open", "27 34", key="yellow", door=True)
    put("push", "open", "28 33", key="red", door=True)
    put("walk", "open", "2 4 86 90 105 106 108 109", door=True)
    put("walk", "open", "5 19 22 30 36 37 38 40 56 58 59 82 83 84 91 92 93 94 95 96 98 119 128 129 130")
    put("walk", "stairs", "8 100")
    put("walk", "lift", "10 53 87 88 120 121")
    put("walk", "none", "3 6 12 13 16 17 25 35 44 54 57 72 73 74 75 76 77 79 80 81 89 104 107 110 141")
    put("walk", "teleport", "39 97 207 208")
    put("walk", "line_teleport", "243 244 262 263")
    put("walk", "exit", "52")
    put("walk", "secret_exit", "124")
    put("switch", "open", "29 61 63 103 111 112 114 115", door=True)
    put("switch", "open", "99 133", key="blue", door=True)
    put("switch", "open", "134 135", key="red", door=True)
    put("switch", "open", "136 137", key="yellow", door=True)
    put("switch", "open", "9 14 15 18 20 23 45 55 60 64 65 66 67 68 69 70 71 101 102 131 132 140")
    put("switch", "stairs", "7 127")
    put("switch", "lift", "21 62 122 123")
    put("switch", "none", "41 42 43 49 50 113 116 138 139")
    put("switch", "teleport", "209 210")
    put("switch", "exit", "11")
    put("switch", "secret_exit", "51")
    put("shoot", "open", "24 46 47", door=False)
    put("shoot", "exit", "197")
    put("shoot", "secret_exit", "198")
    return rows


VANILLA = _table()
_GENERALIZED_TRIGGERS: tuple[Trigger, ...] = ("walk", "walk", "switch", "switch", "shoot", "shoot", "push", "push")


def classify(special: int) -> Special | None:
    """Return what a linedef special does, or None for no special (or one that does nothing to the route)."""
    if special == 0:
        return None
    if special in VANILLA:
        return VANILLA[special]
    if 0x2F80 <= special < 0x8000:  # Boom's generalized linedefs: the trigger is the low three bits
        trigger = _GENERALIZED_TRIGGERS[special & 0x7]
        if special < 0x3000:
            return Special(trigger, "none")  # crushers
        if special < 0x3400:
            return Special(trigger, "stairs")
        if special < 0x3800:
            return Special(trigger, "lift")
        if special < 0x3C00:
            key: Key | None = (None, "red", "blue", "yellow", "red", "blue", "yellow", None)[(special >> 6) & 0x7]
            return Special(trigger, "open", key, door=True)
        if special < 0x4000:
            return Special(trigger, "open", door=True)
        return Special(trigger, "open")  # ceilings and floors
    return None


# Doom's boss deaths: on these maps, when every monster of the type dies, sectors tagged 666 (or 667) move.
# (map name pattern, thing type, monster name, tag or None when the death ends the level)
BOSS_DEATHS: tuple[tuple[str, int, str, int | None], ...] = (
    ("E1M8", 3003, "Baron of Hell", 666),
    ("E2M8", 16, "Cyberdemon", None),
    ("E3M8", 7, "Spider Mastermind", None),
    ("E4M6", 16, "Cyberdemon", 666),
    ("E4M8", 7, "Spider Mastermind", 666),
    ("MAP07", 67, "Mancubus", 666),
    ("MAP07", 68, "Arachnotron", 667),
)
BOSS_BRAIN = 88  # MAP30's Icon of Sin: the level ends when it dies
KEEN = 72  # a Commander Keen's death opens tag 666 doors on any map
TELEPORT_DESTINATION = 14
