"""What the explorer's walk is doing now (`Goal`), and the labels of the goals that no interaction is the end of."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from doomagent.policies._interactions import Interaction

RIDE, BOSS, OPENED = "the lift it moved", "the boss", "the ground it opened"  # goals of no interaction
_SERIALS = itertools.count()


@dataclass
class Goal:
    """What the walk is doing now: an interaction (or a boss, or ground to look at) and the cells it ends on."""

    what: Interaction | None  # None: a boss's place, or ground not seen yet
    cells: np.ndarray
    label: str
    decisions: int = 0
    stalls: int = 0
    presses: int = 0
    waited: int = 0
    settle: int = 0  # decisions waited for what it moves to stand still before the first press
    aims: int = 0  # decisions spent setting a use right that would miss (a step out in front, a fine turn)
    heights: tuple[np.ndarray, np.ndarray] | None = None  # the sectors' heights at the first press
    side: bool | None = None  # for a line walked over: the side of it the walk was on
    lifts: tuple[int, ...] = ()  # a ride: the lift sectors
    below: bool = True  # a ride: whether it began below the lift's top (it is ridden up)
    stepped: int = 0  # a ride from beside the lift: steps taken toward it (into its edge) before the wait
    then: np.ndarray | None = None  # a ride: the ground to walk into after it
    ride_field: tuple[np.ndarray, np.ndarray] | None = None  # a ride up: the walk to it as though it were down
    source: Interaction | None = None  # a ride or a walk into opened ground: the interaction that opened it
    serial: int = field(default_factory=lambda: next(_SERIALS))  # goals told apart: an id() is reused once freed
