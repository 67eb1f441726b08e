"""Walk a map's progression plan: each objective's leg in turn, then what the objective needs (press the switch or
the locked door, shoot the gun-triggered line, pick up the key, cross the trigger line, take the teleporter), on
to the exit.

The legs come from the progression planner (`env.progression`), which knows what opens the way (lifts lowered,
stairs raised, doors unlocked), so the walk goes where the static geometry alone shows no way. Doors on the way
are pushed when the walk stalls at them; a stalled walk backs off, sidesteps and finds its place on the leg again;
an objective not done within `OBJECTIVE_CAP` decisions is given up with its reason (`gave_up`), and the walk goes
on to the next one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from doomagent.env.actions import Action
from doomagent.env.observation import Observation
from doomagent.env.progression import Leg, Objective, ProgressionPlan
from doomagent.env.rooms import RoomMap
from doomagent.policies._steer import ProgressWatch, turn_toward

REACHED = 40.0  # map units at which a leg's point counts as passed
LOOK_AHEAD = 4  # points beyond the next one that may be walked to directly when in clear view
NO_PROGRESS = 25  # decisions without getting closer before backing off
OBJECTIVE_CAP = 1500  # decisions spent on one objective before it is given up
JUMP = 150.0  # map units moved in one decision that only a teleporter explains
DOOR_REACH = 72.0  # a door on the way is pushed from this close
USE_REACH = 56.0  # a switch or door is pressed from this close to its line's middle (Doom's use range is 64)
PRESSES = 2  # USE presses at a switch or locked door before the walk goes on (an S1 switch needs one)
GRID_AHEAD = 24  # grid cells looked along when going round a wall
FIELDS_KEPT = 8  # grid distance fields kept (each is two arrays the size of the grid)
TOUCH = {"key": 20.0, "walk": 16.0, "teleport": 16.0}  # how close the walk goes to a key or a trigger line's middle


@dataclass
class PlanWalker:
    """Follow the plan's legs and do each objective; `gave_up` lists the objectives left undone, and why."""

    room_map: RoomMap
    plan: ProgressionPlan
    objective: int = 0  # the objective walked to now
    index: int = 1  # the leg's point walked to now
    gave_up: list[str] = field(default_factory=list)
    _tries: int = 0
    _presses: int = 0
    _last: tuple[float, float] | None = None
    _watch: ProgressWatch = field(default_factory=lambda: ProgressWatch(NO_PROGRESS))
    _unstick: list[Action] = field(default_factory=list)
    _decisions: int = 0
    _fields: dict[tuple[int, int], Any] = field(default_factory=dict, repr=False)  # grid fields to leg points

    @property
    def current(self) -> Objective:
        """Return the objective walked to now (the exit once every other one is done)."""
        return self.plan.objectives[min(self.objective, len(self.plan.objectives) - 1)]

    def _leg(self) -> Leg:
        return self.plan.legs[min(self.objective, len(self.plan.legs) - 1)]

    def _points(self) -> tuple[tuple[float, float], ...]:
        return self._leg().points

    def _done(self, reason: str | None = None) -> None:
        """Go on to the next objective (the exit stays the objective once reached)."""
        if reason is not None:
            self.gave_up.append(f"{self.current.text}: {reason}")
        if self.objective < len(self.plan.objectives) - 1:
            self.objective += 1
        self.index, self._tries, self._presses = 1, 0, 0
        self._watch = ProgressWatch(NO_PROGRESS)
        self._unstick = []

    def _find_place(self, here: tuple[float, float]) -> None:
        """Put the walk at the leg's point nearest to `here` (after a teleport, a fight or a push)."""
        points = self._points()
        self.index = max(1, min(range(len(points)), key=lambda i: math.dist(here, points[i])))

    def act(self, obs: Observation) -> Action:
        """Return the next action toward (or at) the current objective."""
        self._decisions += 1
        here = (obs.position[0], obs.position[1])
        jumped = self._last is not None and math.dist(here, self._last) > JUMP
        self._last = here
        if jumped and self.current.kind == "teleport":
            self._done()
        if jumped:
            self._find_place(here)
        self._tries += 1
        if self._tries > OBJECTIVE_CAP and self.current.kind != "exit":
            self._done(f"not done in {OBJECTIVE_CAP} decisions")
        if self.current.kind == "boss":  # bosses die in the fight; the walk goes on to what their death opens
            self._done()
        points = self._points()
        while self.index < len(points) - 1 and self._passed(here, self.index):
            self.index += 1
        if self._unstick:
            return self._unstick.pop()
        goal = self.current
        if self.index == len(points) - 1 and math.dist(here, goal.where) < max(USE_REACH, TOUCH.get(goal.kind, 0)):
            return self._at_objective(obs, goal, math.dist(here, goal.where))
        return self._walk(obs, here, points)

    def _is_door(self, i: int) -> bool:
        return self._leg().sectors[i] in self.room_map.geometry.doors

    def _passed(self, here: tuple[float, float], i: int) -> bool:
        """Return True when the walk is past the leg's point i: near it, and for a door, in it or beyond it
        (a door's two sides are 16 units apart: nearness alone would count a shut door as passed)."""
        points, door = self._points(), self._is_door(i)
        if not door and i + 1 < len(points):
            ahead = points[i + 1]  # walked past it: nearer the next point than it is, with a clear way there
            if math.dist(here, ahead) < math.dist(points[i], ahead) and self.room_map.clear_path(here, ahead):
                return True
        if math.dist(here, points[i]) >= REACHED:
            return False
        return not door or self.room_map.geometry.sector_at(*here) in self._leg().sectors[i : i + 3]

    def _walk(self, obs: Observation, here: tuple[float, float], points: tuple[tuple[float, float], ...]) -> Action:
        target = self.index
        for k in range(self.index + 1, min(self.index + LOOK_AHEAD, len(points) - 1) + 1):
            if self._is_door(target) or not self.room_map.clear_path(here, points[k]):
                break  # never look past a door: walk up to it and open it first
            target = k
        if self._is_door(target) and math.dist(here, points[target]) < DOOR_REACH:
            turn = turn_toward(obs, points[target], tolerance=10.0)
            return turn or (Action.USE if self._decisions % 2 else Action.UP)
        unstick = self._watch.stalled(math.dist(here, points[self.index]))
        if unstick:  # a closed door, a raised lift, a corner: push, back off, sidestep, then find the leg again
            self._unstick = unstick
            self._find_place(here)
        blocked = not self.room_map.clear_path(here, points[self.index])
        if blocked:
            around = self._around(here, points[self.index])  # a wall in between: the grid's way round it
            if around is not None:
                return turn_toward(obs, around) or Action.UP
        turn = turn_toward(obs, points[target])
        if turn is not None:
            return turn
        if blocked and self._decisions % 3 == 0:
            return Action.USE  # something shuts the way to the next point: a door, or a lift to call
        return Action.UP

    def _around(self, here: tuple[float, float], point: tuple[float, float]) -> tuple[float, float] | None:
        """Return where to head for on the walkable grid's shortest way from `here` to `point` (None when the
        grid knows no way: a door or a lift the static floor plan shows shut)."""
        grid, key = self.room_map.navgrid, (self.objective, self.index)
        if key not in self._fields:
            if len(self._fields) >= FIELDS_KEPT:
                self._fields.pop(next(iter(self._fields)))
            self._fields[key] = grid.field_to(grid.cells_near(*point, reach=32.0))
        path = grid.follow(self._fields[key], *here, limit=GRID_AHEAD)
        if len(path) < 2:
            return None
        ahead = grid.centre(path[1])
        for cell in path[2:]:
            if not self.room_map.clear_path(here, grid.centre(cell)):
                break
            ahead = grid.centre(cell)
        return ahead

    def _at_objective(self, obs: Observation, goal: Objective, distance: float) -> Action:
        if goal.kind in ("switch", "door", "exit", "shoot"):
            turn = turn_toward(obs, goal.where, tolerance=10.0)
            if turn is not None:
                return turn
            if self._decisions % 2:  # press, then let the engine answer before pressing again
                return Action.WAIT
            self._presses += 1
            if goal.kind != "exit" and self._presses >= PRESSES:
                self._done()
            if goal.kind == "exit" and self._presses % 3 == 0:
                return Action.UP  # an exit line walked over rather than pressed
            return Action.FIRE if goal.kind == "shoot" else Action.USE
        if distance < TOUCH.get(goal.kind, 16.0):  # the key is picked up, the line crossed
            self._done()
            return Action.UP
        return turn_toward(obs, goal.where, tolerance=10.0) or Action.UP
