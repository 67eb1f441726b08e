"""Perpetual crushers on the walk's way. A crush-and-raise ceiling, once set off, comes down to 8 above its floor and
goes back up for as long as the map runs. The live grid plans as though each stood at its top, where it comes back
once a cycle. The walk waits short of one while it comes down or hangs too low, and goes under it as it rises.

Trace: freedoom2 MAP04, seed 7, god mode. The walk crossed the tag-7 trigger line beside the corridor under sector
82 and walked in as that ceiling came down. It was held there until the ceiling rose again. Meanwhile the grid,
built from the live ceiling, had no way through the corridor. The tag-3 trigger line past it then failed as out of
reach, nine times, until the frame cap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from doomagent.env.actions import Action
from doomagent.env.geometry import MIN_HEADROOM
from doomagent.env.observation import LiveMap, Observation
from doomagent.policies._steer import step_toward

if TYPE_CHECKING:
    from doomagent.policies._livegrid import LiveGrid

AHEAD = 10  # cells along the way looked at for a crusher: more than a run slides once it brakes
FALLING_ROOM = MIN_HEADROOM + 40  # a ceiling coming down is passed under only while this high above its floor
RISING_ROOM = MIN_HEADROOM - 16  # one going up is walked toward from this high: past the player's height on arrival
BACK_OFF = 3.0  # a run toward a crusher steps against its last move (this many times over) rather than wait
MOVING = 2.0  # map units moved in the last decision that count as a run


@dataclass
class CrusherWatch:
    """Keep the walk out from under a perpetual crusher while it comes down (see the module's doc)."""

    _under: dict[int, np.ndarray] | None = None  # crusher sector -> the cells whose player would stand under it
    _ceilings: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the crushers' ceilings at the last look

    def unsafe(self, live: LiveMap, crushers: list[int]) -> list[int]:
        """Return the crushers not to walk under now: coming down, or too low; and note their ceilings."""
        ceil = live.ceilings[crushers].astype(np.float64)
        room = ceil - live.floors[crushers]
        last = self._ceilings if len(self._ceilings) == len(ceil) else ceil
        self._ceilings = ceil
        falling, rising = ceil < last - 0.25, ceil > last + 0.25
        bad = (falling & (room < FALLING_ROOM)) | (rising & (room < RISING_ROOM))
        bad |= ~falling & ~rising & (room < MIN_HEADROOM)
        return [s for s, b in zip(crushers, bad.tolist(), strict=True) if b]

    def hold(
        self, lg: LiveGrid, obs: Observation, live: LiveMap, moved: tuple[float, float], way: list[int]
    ) -> Action | None:
        """Return the action that keeps the player short of a crusher its way (`way`: its cells, the player's first)
        passes under within AHEAD cells, while that one is unsafe; None when none is, or when the player stands
        under one already (it walks on out)."""
        if self._under is None:
            self._under = {int(s): _mask(lg, int(s)) for s in np.flatnonzero(lg.crushers)}
        if not self._under:
            return None
        bad = self.unsafe(live, list(self._under))
        ahead = way[1 : AHEAD + 1]
        if not bad or not ahead or any(self._under[s][way[0]] for s in self._under):
            return None
        if not any(self._under[s][ahead].any() for s in bad):
            return None
        if math.hypot(*moved) > MOVING:
            x, y = obs.position[0], obs.position[1]
            return step_toward(obs, (x - BACK_OFF * moved[0], y - BACK_OFF * moved[1]))
        return Action.WAIT


def _mask(lg: LiveGrid, sector: int) -> np.ndarray:
    mask = np.zeros(lg.n, dtype=bool)
    mask[lg.touching([sector])] = True
    return mask
