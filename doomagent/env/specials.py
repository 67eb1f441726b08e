"""Classify linedef specials and thing types of Doom and Boom maps: exits, doors, keys, lifts."""

from __future__ import annotations

from typing import Literal

Key = Literal["blue", "yellow", "red"]

# Level exits (vanilla and Boom): normal first, then secret.
EXIT_SPECIALS = frozenset({11, 52, 197})
SECRET_EXIT_SPECIALS = frozenset({51, 124, 198})
WALKED_EXIT_SPECIALS = frozenset({52, 124})  # exits taken by walking over the line (W1), not by pressing it

# Doors that act on the sector behind the line (the player pushes them).
MANUAL_DOOR_SPECIALS: dict[int, Key | None] = {
    1: None,
    31: None,
    117: None,
    118: None,
    26: "blue",
    32: "blue",
    27: "yellow",
    34: "yellow",
    28: "red",
    33: "red",
}
# Doors that act on the sectors tagged like the line (switches, walk-overs, shootables).
TAGGED_DOOR_SPECIALS: dict[int, Key | None] = {
    **{
        s: None
        for s in (
            2,
            3,
            4,
            16,
            29,
            42,
            46,
            50,
            61,
            63,
            75,
            76,
            86,
            90,
            103,
            105,
            106,
            107,
            108,
            109,
            110,
            111,
            112,
            113,
            114,
            115,
            116,
            175,
            196,
        )
    },
    99: "blue",
    133: "blue",
    134: "red",
    135: "red",
    136: "yellow",
    137: "yellow",
}
LIFT_SPECIALS = frozenset({10, 21, 62, 88, 120, 121, 122, 123})
# Ceilings that, once set off, crush down to 8 above the floor and rise again for as long as the map runs: vanilla
# (6 and 77 fast, 141 silent) and Boom (150, 164-165, 183-185).
CRUSH_AND_RAISE_SPECIALS = frozenset({6, 25, 49, 73, 77, 141, 150, 164, 165, 183, 184, 185})

# Boom generalized linedef ranges.
_GEN_LOCKED_DOOR = range(0x3800, 0x3C00)
_GEN_DOOR = range(0x3C00, 0x4000)
_GEN_LIFT = range(0x3400, 0x3800)
_GEN_CRUSHER = range(0x2F80, 0x3000)  # every generalized crusher crushes and raises
_GEN_TRIGGER_MANUAL = (0, 1)  # trigger field values "push once/again" act on the line's back sector


def is_exit(special: int) -> bool:
    """Return True for a special that ends the level normally."""
    return special in EXIT_SPECIALS


def is_walked_exit(special: int) -> bool:
    """Return True for an exit taken by walking over its line (pressing it does nothing)."""
    return special in WALKED_EXIT_SPECIALS


def is_secret_exit(special: int) -> bool:
    """Return True for a special that ends the level through the secret exit."""
    return special in SECRET_EXIT_SPECIALS


def door_action(special: int) -> tuple[Literal["manual", "tagged"], Key | None] | None:
    """Return how a door special finds its sector and which key it needs, or None if no door."""
    if special in MANUAL_DOOR_SPECIALS:
        return "manual", MANUAL_DOOR_SPECIALS[special]
    if special in TAGGED_DOOR_SPECIALS:
        return "tagged", TAGGED_DOOR_SPECIALS[special]
    if special in _GEN_DOOR or special in _GEN_LOCKED_DOOR:
        trigger = special & 0x7
        how: Literal["manual", "tagged"] = "manual" if trigger in (6, 7) else "tagged"
        key: Key | None = None
        if special in _GEN_LOCKED_DOOR:
            key = (None, "red", "blue", "yellow", "red", "blue", "yellow", None)[(special >> 6) & 0x7]
        return how, key
    return None


def is_lift(special: int) -> bool:
    """Return True for a special that lowers a lift (platform) sector."""
    return special in LIFT_SPECIALS or special in _GEN_LIFT


def is_crush_and_raise(special: int) -> bool:
    """Return True for a special that sets a ceiling crushing down and back up for good (a perpetual crusher)."""
    return special in CRUSH_AND_RAISE_SPECIALS or special in _GEN_CRUSHER


PLAYER_START = 1
# Thing flags: on which skills a thing is placed (1-2, 3, 4-5), and placed only in multiplayer games.
SKILL_FLAG = {1: 0x1, 2: 0x1, 3: 0x2, 4: 0x4, 5: 0x4}
MULTIPLAYER_ONLY = 0x10
KEY_THINGS: dict[int, Key] = {5: "blue", 40: "blue", 6: "yellow", 39: "yellow", 13: "red", 38: "red"}
