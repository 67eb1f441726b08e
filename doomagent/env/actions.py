"""The paper's action vocabulary as a closed type, its parser, and the engine buttons it drives."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from doomagent.errors import ActionParseError


class Action(StrEnum):
    """One decision of the Agent: a key of the paper's action set."""

    UP = "UP"
    DOWN = "DOWN"
    LEFT = "LEFT"
    RIGHT = "RIGHT"
    STRAFE_LEFT = "STRAFE LEFT"
    STRAFE_RIGHT = "STRAFE RIGHT"
    FIRE = "FIRE"
    USE = "USE"
    WAIT = "WAIT"
    SPEED = "SPEED"
    WEAPON_1 = "1"
    WEAPON_2 = "2"
    WEAPON_3 = "3"
    WEAPON_4 = "4"
    WEAPON_5 = "5"
    WEAPON_6 = "6"
    WEAPON_7 = "7"

    @property
    def is_motion(self) -> bool:
        """Return True for keys held several frames (walking, turning, strafing)."""
        return self in MOTION_ACTIONS


@dataclass(frozen=True)
class Aim:
    """`AIM k`: turn so that column k of the grid drawn on the model's image (env.grid) is straight ahead."""

    column: int

    @property
    def value(self) -> str:
        """Return the answer as written: `AIM 3`."""
        return f"AIM {self.column}"

    @property
    def is_motion(self) -> bool:
        """Return False: an aim turns at once, in the decision's first tic."""
        return False


Move = Action | Aim  # what a decision plays: a key of the paper's set, or an aim (with env.grid)
_AIM = re.compile(r"^\s*AIM\s*[:#]?\s*(\d{1,2})\s*$", re.I)


def parse_move(text: str | Action | Aim) -> Move:
    """Return the action or aim `text` names (`AIM 3`, `aim #3`); ActionParseError otherwise."""
    if isinstance(text, (Action, Aim)):
        return text
    match = _AIM.match(text.strip().strip("\"'`.")) if isinstance(text, str) else None
    if match is not None:
        return Aim(int(match.group(1)))
    return parse_action(text)


MOTION_ACTIONS = frozenset({Action.UP, Action.DOWN, Action.LEFT, Action.RIGHT, Action.STRAFE_LEFT, Action.STRAFE_RIGHT})
ACTION_NAMES: tuple[str, ...] = tuple(a.value for a in Action)

# Engine buttons in the order DoomEnv enables them.
BUTTON_NAMES: tuple[str, ...] = (
    "MOVE_FORWARD",
    "MOVE_BACKWARD",
    "TURN_LEFT",
    "TURN_RIGHT",
    "MOVE_LEFT",
    "MOVE_RIGHT",
    "ATTACK",
    "USE",
    "SPEED",
    "SELECT_WEAPON1",
    "SELECT_WEAPON2",
    "SELECT_WEAPON3",
    "SELECT_WEAPON4",
    "SELECT_WEAPON5",
    "SELECT_WEAPON6",
    "SELECT_WEAPON7",
)
SPEED_BUTTON = BUTTON_NAMES.index("SPEED")
ACTION_BUTTON: dict[Action, int | None] = {
    Action.UP: 0,
    Action.DOWN: 1,
    Action.LEFT: 2,
    Action.RIGHT: 3,
    Action.STRAFE_LEFT: 4,
    Action.STRAFE_RIGHT: 5,
    Action.FIRE: 6,
    Action.USE: 7,
    Action.WAIT: None,
    Action.SPEED: None,  # SPEED toggles running; the button is held while on
    **{Action(str(n)): 8 + n for n in range(1, 8)},
}

_SPACES = re.compile(r"[\s_\-]+")
_ALIASES = {"STRAFELEFT": "STRAFE LEFT", "STRAFERIGHT": "STRAFE RIGHT"}


def parse_action(text: str | Action) -> Action:
    """Return the action that `text` names, tolerant of case, spaces, `_`/`-` and surrounding quotes.

    Raise ActionParseError for anything else; agent graphs turn that into WAIT.
    """
    if isinstance(text, Action):
        return text
    if not isinstance(text, str):
        raise ActionParseError(repr(text), f"an action must be text, not {type(text).__name__}")
    key = _SPACES.sub(" ", text.strip().strip("\"'`.").strip()).upper()
    key = _ALIASES.get(key.replace(" ", ""), key)
    try:
        return Action(key)
    except ValueError:
        raise ActionParseError(
            text,
            f"{text!r} is not an action",
            hint=f"use one of: {', '.join(ACTION_NAMES)}",
        ) from None
