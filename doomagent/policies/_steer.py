"""Steering helpers shared by the scripted walkers: turning toward a point, noticing no progress."""

from __future__ import annotations

import math
from dataclasses import dataclass

from doomagent.env.actions import Action
from doomagent.env.observation import Observation

TURN_TOLERANCE = 14.0  # degrees off the target at which a walker walks instead of turning
NEAR_TOLERANCE, FAR_TOLERANCE = 14.0, 20.0  # degrees off a point nearer / farther than 96 units before turning


def bearing_off(obs: Observation, point: tuple[float, float]) -> float:
    """Return how far `point` lies off the view's centre, in degrees (positive: to the left)."""
    x, y, _ = obs.position
    heading = math.degrees(math.atan2(point[1] - y, point[0] - x))
    return (heading - obs.angle + 180.0) % 360.0 - 180.0


def turn_toward(obs: Observation, point: tuple[float, float], tolerance: float = TURN_TOLERANCE) -> Action | None:
    """Return LEFT or RIGHT to face `point`, or None when already facing it."""
    off = bearing_off(obs, point)
    if abs(off) <= tolerance:
        return None
    return Action.LEFT if off > 0 else Action.RIGHT


def walk_tolerance(here: tuple[float, float], point: tuple[float, float]) -> float:
    """Return how far off the point ahead a walk may head before it turns: a turn key tapped once turns the view
    only about 5 degrees (Doom turns slowly for its first 6 tics), so a far point is turned to less finely."""
    return NEAR_TOLERANCE if math.dist(here, point) < 96.0 else FAR_TOLERANCE


def step_toward(obs: Observation, point: tuple[float, float]) -> Action:
    """Return the step (forward, back or sideways) that moves toward `point` without turning: a player that slid past
    a spot it must stand on steps back onto it at once, where turning round first takes a second."""
    off = bearing_off(obs, point)
    if abs(off) <= 45.0:
        return Action.UP
    if abs(off) >= 135.0:
        return Action.DOWN
    return Action.STRAFE_LEFT if off > 0 else Action.STRAFE_RIGHT


@dataclass
class ProgressWatch:
    """Notice when a distance to go stops shrinking, and hand out a push-back-sidestep sequence."""

    patience: int = 25  # decisions without getting closer
    _best: float = math.inf
    _since: int = 0
    _decisions: int = 0
    _goal: object = None

    def stalled(self, distance: float, goal: object = None) -> list[Action] | None:
        """Record this decision's distance to `goal`; return actions to get unstuck when progress has stalled.
        A new goal starts afresh (the distance to the next point is no stall against the last one's)."""
        self._decisions += 1
        if goal != self._goal:
            self._goal, self._best, self._since = goal, distance, self._decisions
            return None
        if distance < self._best - 8:
            self._best, self._since = distance, self._decisions
            return None
        if self._decisions - self._since <= self.patience:
            return None
        self._best, self._since = math.inf, self._decisions
        side = Action.STRAFE_LEFT if self._decisions % 2 else Action.STRAFE_RIGHT
        # Popped from the end: USE, back off, sidestep, push forward, USE again.
        return [Action.USE, *[Action.UP] * 3, *[side] * 4, *[Action.DOWN] * 3, Action.USE]


USE_EVERY = 24  # decisions between USE presses on the way: a door takes about this long to open


@dataclass
class UsePacer:
    """Space out USE presses: a second press on a door that is opening sends it back down (Doom reverses a moving
    door that is used again), so a walk that pressed at every step stood at the door for good."""

    every: int = USE_EVERY
    _used: int = -1_000_000  # the decision of the last press

    def press_or(self, decision: int, action: Action) -> Action:
        """Return USE when none was pressed in the last `every` decisions (and note the press), else `action`."""
        if decision - self._used < self.every:
            return action
        self._used = decision
        return Action.USE


@dataclass
class StillWatch:
    """Notice a player that has not moved `radius` map units in `patience` decisions, whatever it was doing (pushing
    a door that does not open, pressing on at a wall, waiting): the engine ends an episode 1,000 frames still."""

    patience: int = 150
    radius: float = 48.0
    _anchor: tuple[float, float] | None = None
    _since: int = 0
    _decisions: int = 0

    def still(self, here: tuple[float, float]) -> bool:
        """Record this decision's place; return True once it has stayed within `radius` for `patience` decisions
        (then the watch starts afresh)."""
        self._decisions += 1
        if self._anchor is None or math.dist(here, self._anchor) > self.radius:
            self._anchor, self._since = here, self._decisions
            return False
        if self._decisions - self._since < self.patience:
            return False
        self._anchor = None
        return True
