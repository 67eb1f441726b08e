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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from doomagent.env.actions import Action
from doomagent.env.observation import WEAPON_AMMO, Observation, VisibleObject
from doomagent.env.progression import Leg, Objective, ProgressionPlan
from doomagent.env.rooms import RoomMap
from doomagent.env.specials import is_walked_exit
from doomagent.policies._obstacles import Obstacles
from doomagent.policies._steer import ProgressWatch, StillWatch, UsePacer, bearing_off, turn_toward
from doomagent.policies._supplies import TAKEN, TRIES, Supplies
from doomagent.policies._use_spot import across, beyond, nearest_on_line, on_front, reaches, use_cells

REACHED = 40.0  # map units at which a leg's point counts as passed
LOOK_AHEAD = 4  # points beyond the next one that may be walked to directly when in clear view
NO_PROGRESS = 25  # decisions without getting closer before backing off
OBJECTIVE_CAP = 1500  # decisions spent on one objective before it is given up
BOSS_CAP = 4  # times as many for a boss fight (a Baron of Hell takes about a hundred pistol hits)
JUMP = 150.0  # map units moved in one decision that only a teleporter explains
LANDED = 128.0  # map units from a teleporter's destination within which a jump counts as taking it
STOOD = 3  # times an objective's walk stood still (see StillWatch) before the objective is given up
FETCH_EVERY = 10  # decisions between looks for a supply to fetch (each look walks the grid once)
FETCH_BUDGET = 400  # decisions per objective that may go to fetching supplies (one after another, they ate its cap)
FETCH_NOT_NEAR = 128.0  # map units from the objective, on its leg's last point, within which no fetch is begun
LIFT_RIDE = 20  # decisions waited on a lift for it to go down (a 128-unit lift takes 32 tics)
BRAKE_TURN = 60.0  # degrees to turn at which a running walk brakes first (it slides on while it turns)
BRAKE_TURN_LEDGE = 25.0  # the same near a drop: a slide there is a fall
BRAKE_SPEED = 10.0  # map units moved in the last decision above which it brakes
DOOR_REACH = 72.0  # a door on the way is pushed from this close
USE_REACH = 56.0  # a switch or door is pressed from this close to its line's middle (Doom's use range is 64)
PRESSES = 2  # USE presses at a switch or locked door before the walk goes on (an S1 switch needs one)
GRID_AHEAD = 24  # grid cells looked along when going round a wall
FIELDS_KEPT = 8  # grid distance fields kept (each is two arrays the size of the grid)
# how close the walk goes to a key (picked up within 36 units on each axis) or a trigger line
TOUCH = {"key": 30.0, "walk": 16.0}
AIM_INSET = 0.3  # a switch is aimed at no nearer its ends than this share of its length
PRESSED = ("switch", "exit")  # objectives used from a spot within reach of their line (see _use_spot)
BOSS_NEAR = 256.0  # map units from a boss's start within which the walk waits for it and fights
BOSS_QUIET = 150  # decisions there with no boss in view before its death is taken for done
# The planner's boss names (see env._triggers.BOSS_DEATHS) and the engine's class names for them.
BOSS_CLASSES = {"Baron of Hell": "BaronOfHell", "Cyberdemon": "Cyberdemon", "Spider Mastermind": "SpiderMastermind"}
BOSS_CLASSES |= {"Mancubus": "Fatso", "Arachnotron": "Arachnotron", "Icon of Sin": "BossBrain"}


@dataclass
class PlanWalker:
    """Follow the plan's legs and do each objective; `gave_up` lists the objectives left undone, and why."""

    room_map: RoomMap
    plan: ProgressionPlan
    skill: int = 3  # which things stand in the way (see _obstacles)
    alive: Callable[[VisibleObject], bool] | None = None  # tells a live monster from its corpse (the navigator's)
    objective: int = 0  # the objective walked to now
    index: int = 1  # the leg's point walked to now
    gave_up: list[str] = field(default_factory=list)
    _tries: int = 0
    _fetched: int = 0  # decisions spent fetching supplies during this objective
    _stood: int = 0  # times this objective's walk stood still
    _still: StillWatch = field(default_factory=StillWatch)
    _presses: int = 0
    _last: tuple[float, float] | None = None
    _watch: ProgressWatch = field(default_factory=lambda: ProgressWatch(NO_PROGRESS))
    _unstick: list[Action] = field(default_factory=list)
    _decisions: int = 0
    _speed: float = 0.0  # map units moved in the last decision
    _quiet: int = 0  # decisions at a boss's place with no boss in view
    _pacer: UsePacer = field(default_factory=UsePacer)  # USE presses on the way (doors, lifts), spaced out
    _fields: dict[tuple[int, int], Any] = field(default_factory=dict, repr=False)  # grid fields to leg points
    _spots: dict[int, Any] = field(default_factory=dict, repr=False)  # line -> (cells it is used from, field)
    _crossing_of: Leg | None = field(default=None, repr=False)
    _obstacles: Obstacles | None = field(default=None, repr=False)
    _supplies: Supplies | None = field(default=None, repr=False)
    _crossing_lines: Any = field(default=None, repr=False)

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
        self.index, self._tries, self._presses, self._fetched, self._stood = 1, 0, 0, 0, 0
        self._watch = ProgressWatch(NO_PROGRESS)
        self._unstick = []

    def _landed(self, here: tuple[float, float]) -> bool:
        """Return True when a jump ended where the current teleporter leads (the next leg's start): another
        teleporter walked into on the way leaves this one to take."""
        legs = self.plan.legs
        return self.objective + 1 >= len(legs) or math.dist(here, legs[self.objective + 1].points[0]) < LANDED

    def _find_place(self, here: tuple[float, float]) -> None:
        """Put the walk at the leg's point nearest to `here` (after a teleport, a fight or a push)."""
        points = self._points()
        self.index = max(1, min(range(len(points)), key=lambda i: math.dist(here, points[i])))

    def act(self, obs: Observation) -> Action:
        """Return the next action toward (or at) the current objective."""
        self._decisions += 1
        here = (obs.position[0], obs.position[1])
        self._speed = math.dist(here, self._last) if self._last is not None else 0.0
        jumped = self._speed > JUMP
        self._last = here
        if jumped and self.current.kind == "teleport" and self._landed(here):
            self._done()
        if jumped:
            self._find_place(here)
        self._tries += 1
        cap = OBJECTIVE_CAP * (BOSS_CAP if self.current.kind == "boss" else 1)
        if self._tries > cap and self.current.kind != "exit":
            self._done(f"not done in {cap} decisions")
        if self._still.still(here):
            self._recover(here)
        points = self._points()
        while self.index < len(points) - 1 and self._passed(here, self.index):
            self.index += 1
        if self._unstick:
            return self._unstick.pop()
        fetch = self._fetch(obs, here)
        if fetch is not None:
            return fetch
        goal = self.current
        if goal.kind == "boss" and math.dist(here, goal.where) < BOSS_NEAR:
            return self._at_boss(obs, goal, here, points)
        if self.index == len(points) - 1 and goal.kind in PRESSED and goal.line is not None and not self._walked(goal):
            approach = self._approach(obs, here, goal, goal.line)
            if approach is not None:
                return approach
        if self.index == len(points) - 1 and math.dist(here, goal.where) < max(USE_REACH, TOUCH.get(goal.kind, 0)):
            return self._at_objective(obs, goal, math.dist(here, goal.where))
        return self._walk(obs, here, points)

    def _recover(self, here: tuple[float, float]) -> None:
        """Get a walk that stood still moving again (back off, sidestep, walk on, then find its place on the leg);
        the STOOD-th time on one objective, give the objective up (the exit and a boss fight are kept)."""
        self._stood += 1
        if self._stood >= STOOD and self.current.kind not in ("exit", "boss"):
            self._done(f"stood still {STOOD} times")
        self._find_place(here)
        side = Action.STRAFE_LEFT if self._stood % 2 else Action.STRAFE_RIGHT
        self._unstick = [*[Action.UP] * 4, *[side] * 6, *[Action.DOWN] * 6]  # popped from the end

    def _things(self) -> Obstacles:
        if self._obstacles is None:
            self._obstacles = Obstacles(self.room_map, self.skill)
        return self._obstacles

    def _avoid(self) -> Any:
        """Return the grid cells the walk's ways keep off: solid things, and shut doors that no objective done so far
        has set moving (see Obstacles.shut)."""
        opened = frozenset(s for o in self.plan.objectives[: self.objective] for s in o.moves)
        return self._things().shut(opened)

    def clear(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Return True when the straight walk from a to b is clear: no wall, no drop off the route, no thing."""
        return self.room_map.clear_path(a, b, directed=True, crossing=self._crossing()) and not self._things().blocks(
            a, b
        )

    def _crossing(self) -> Any:
        """Return the current leg's lines as an array (its own drops may be walked off)."""
        leg = self._leg()
        if self._crossing_of is not leg:
            self._crossing_of, self._crossing_lines = leg, np.array(leg.lines, dtype=np.int64)
        return self._crossing_lines

    def _is_door(self, i: int) -> bool:
        return self._leg().sectors[i] in self.room_map.geometry.doors

    def _passed(self, here: tuple[float, float], i: int) -> bool:
        """Return True when the walk is past the leg's point i: near it, and for a door, in it or beyond it
        (a door's two sides are 16 units apart: nearness alone would count a shut door as passed)."""
        points, door = self._points(), self._is_door(i)
        if not door and i + 1 < len(points):
            ahead = points[i + 1]  # walked past it: nearer the next point than it is, with a clear way there
            if math.dist(here, ahead) < math.dist(points[i], ahead) and self.clear(here, ahead):
                return True
        if math.dist(here, points[i]) >= REACHED:
            return False
        return not door or self.room_map.geometry.sector_at(*here) in self._leg().sectors[i : i + 3]

    def _walk(self, obs: Observation, here: tuple[float, float], points: tuple[tuple[float, float], ...]) -> Action:
        target = self.index
        for k in range(self.index + 1, min(self.index + LOOK_AHEAD, len(points) - 1) + 1):
            if self._is_door(target) or not self.clear(here, points[k]):
                break  # never look past a door: walk up to it and open it first
            target = k
        if self._is_door(target) and math.dist(here, points[target]) < DOOR_REACH:
            aim = points[min(target + 1, len(points) - 1)]  # past the door: its own point is too near to aim at
            turn = turn_toward(obs, aim, tolerance=_tolerance(here, aim))
            return turn or self._use_or(Action.UP)
        blocked = not self.clear(here, points[self.index])
        # Progress is the walk still to go: along the grid where a wall is in between (a winding corridor leads
        # away from its end before it turns back), else straight.
        to_go = self._grid_distance(here, points[self.index]) if blocked else math.dist(here, points[self.index])
        unstick = self._watch.stalled(to_go, (self.objective, self.index))
        if unstick and self.room_map.geometry.sector_at(*here) in self.room_map.geometry.lifts:
            # On a lift that is up: off it backwards and on again (over the line that lowers it), then ride down.
            self._unstick = [*[Action.WAIT] * LIFT_RIDE, *[Action.UP] * 5, *[Action.DOWN] * 9]
            return self._unstick.pop()
        if unstick:  # a closed door, a raised lift, a corner: push, back off, sidestep, then find the leg again
            self._unstick = unstick
            self._find_place(here)
        if blocked:
            around = self._around(here, points[self.index])  # a wall in between: the grid's way round it
            if around is not None:
                return self._head(obs, around)
        return self._head(obs, points[target], blocked)

    def _head(self, obs: Observation, point: tuple[float, float], blocked: bool = False) -> Action:
        """Turn toward `point` (braking first when running at a sharp turn: a narrow ledge is slid off), or walk."""
        sharp = BRAKE_TURN_LEDGE if self._things().near_drop((obs.position[0], obs.position[1])) else BRAKE_TURN
        if abs(bearing_off(obs, point)) > sharp and self._speed > BRAKE_SPEED:
            return Action.DOWN
        turn = turn_toward(obs, point)
        if turn is not None:
            return turn
        if blocked:
            return self._use_or(Action.UP)  # something shuts the way to the next point: a door, or a lift to call
        return Action.UP

    def _use_or(self, action: Action) -> Action:
        """Return USE unless one was pressed lately (a second press reverses a door that is opening), else
        `action`."""
        return self._pacer.press_or(self._decisions, action)

    def _field(self, point: tuple[float, float]) -> Any:
        """Return the grid's distance field to the current leg point (kept for the last FIELDS_KEPT points)."""
        grid, key = self.room_map.navgrid, (self.objective, self.index)
        if key not in self._fields:
            if len(self._fields) >= FIELDS_KEPT:
                self._fields.pop(next(iter(self._fields)))
            self._fields[key] = grid.field_to(grid.cells_near(*point, reach=32.0), avoid=self._avoid())
        return self._fields[key]

    def _to_go(self, grid_field: Any, here: tuple[float, float]) -> float:
        """Return the walk along a grid field from `here` to its goal (inf where the field knows no way)."""
        cell = self.room_map.navgrid.nearest_walkable(*here)
        return float(grid_field[0][cell]) if cell is not None else math.inf

    def _grid_distance(self, here: tuple[float, float], point: tuple[float, float]) -> float:
        """Return the walk along the grid from `here` to the leg point (straight where the grid knows none)."""
        d = self._to_go(self._field(point), here)
        return d if math.isfinite(d) else math.dist(here, point)

    def _around(self, here: tuple[float, float], point: tuple[float, float]) -> tuple[float, float] | None:
        """Return where to head for on the walkable grid's shortest way from `here` to `point` (None when the
        grid knows no way: a door or a lift the static floor plan shows shut)."""
        return self._ahead(self._field(point), here)

    def _ahead(self, grid_field: Any, here: tuple[float, float]) -> tuple[float, float] | None:
        """Return the farthest point in clear view along a grid field's way from `here` (None: no way)."""
        grid = self.room_map.navgrid
        path = grid.follow(grid_field, *here, limit=GRID_AHEAD)
        if len(path) < 2:
            return None
        ahead = grid.centre(path[1])
        for cell in path[2:]:
            if not self.clear(here, grid.centre(cell)):
                break
            ahead = grid.centre(cell)
        return ahead

    def _fetch(self, obs: Observation, here: tuple[float, float]) -> Action | None:
        """Go for health, armor or ammo lying on the map when short of it (see _supplies); None: not now."""
        if self._supplies is None:
            self._supplies = Supplies(self.room_map, self.skill)
        supplies = self._supplies
        kinds = supplies.wanted(obs.hud, WEAPON_AMMO.get(obs.hud.weapon))
        if supplies.target is None:
            if not kinds or self._decisions % FETCH_EVERY or self._fetched >= FETCH_BUDGET:
                return None
            goal = self.current
            if self.index == len(self._points()) - 1 and math.dist(here, goal.where) < FETCH_NOT_NEAR:
                return None  # at the objective: do it first (freedoom2 MAP22: a switch left for shells, time and again)
            if supplies.next_target(here, kinds, self._avoid()) is None:
                return None
        target = supplies.target
        assert target is not None
        supplies.tries += 1
        self._fetched += 1
        taken = math.dist(here, target.where) < TAKEN
        if taken or supplies.tries > TRIES or target.kind not in kinds:
            supplies.drop(again=not taken and supplies.tries <= TRIES)
            self._find_place(here)
            return None
        to_go = self._to_go(supplies.target_field, here)
        ahead = self._ahead(supplies.target_field, here)
        unstick = self._watch.stalled(to_go, ("supply", target.where))
        if ahead is None or not math.isfinite(to_go) or unstick:  # no way there after all: leave it
            supplies.drop()
            self._unstick = unstick or []
            self._find_place(here)
            return None
        return self._head(obs, ahead)

    def _boss_in_view(self, obs: Observation) -> VisibleObject | None:
        names = {engine for name, engine in BOSS_CLASSES.items() if name in self.current.text}
        alive = self.alive or (lambda _o: True)
        return next((o for o in obs.objects if o.is_enemy and o.name in names and alive(o)), None)

    def _at_boss(
        self, obs: Observation, goal: Objective, here: tuple[float, float], points: tuple[tuple[float, float], ...]
    ) -> Action:
        """At the bosses' place: walk on while one is in view (the navigator fights it once in range); once none
        has been seen for BOSS_QUIET decisions, take their death for done and go on to what it opens."""
        if self._boss_in_view(obs) is not None:
            self._quiet = 0
            return self._walk(obs, here, points)
        self._quiet += 1
        if self._quiet > BOSS_QUIET:
            self._quiet = 0
            self._done()
        return Action.RIGHT  # look round for them

    def _approach(self, obs: Observation, here: tuple[float, float], goal: Objective, line: int) -> Action | None:
        """Walk the grid to a spot the switch can be used from and press it there; None where the grid knows
        no such spot reachable from here (the walk then goes to the line's middle, as for any objective)."""
        if line not in self._spots:
            cells = use_cells(self.room_map, line)
            grid = self.room_map.navgrid
            self._spots[line] = (cells, grid.field_to(cells, avoid=self._avoid()) if len(cells) else None)
        _cells, spot_field = self._spots[line]
        to_go = self._to_go(spot_field, here) if spot_field is not None else math.inf
        if not math.isfinite(to_go):
            return None
        if reaches(self.room_map, line, *here):
            return self._at_objective(obs, goal, 0.0, nearest_on_line(self.room_map, line, *here, inset=AIM_INSET))
        unstick = self._watch.stalled(to_go, (self.objective, "spot"))
        if unstick:
            self._unstick = unstick
            return self._unstick.pop()
        ahead = self._ahead(spot_field, here)
        if ahead is None:
            return None
        return self._head(obs, ahead)

    def _walked(self, goal: Objective) -> bool:
        """Return True for an exit taken by walking over its line (pressing it does nothing)."""
        g = self.room_map.geometry
        return goal.kind == "exit" and goal.line is not None and is_walked_exit(int(g.line_special[goal.line]))

    def _at_objective(
        self, obs: Observation, goal: Objective, distance: float, aim: tuple[float, float] | None = None
    ) -> Action:
        if self._walked(goal):  # straight over the line from where the walk stands (a door may shut the way)
            assert goal.line is not None
            here = (obs.position[0], obs.position[1])
            aim = across(self.room_map, goal.line, *here, inset=AIM_INSET)
            return turn_toward(obs, aim, tolerance=_tolerance(here, aim)) or self._use_or(Action.UP)
        if goal.kind in ("switch", "door", "exit", "shoot"):
            turn = turn_toward(obs, aim or goal.where, tolerance=10.0)
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
        if goal.kind == "walk" and goal.line is not None:  # a trigger line: done once walked over, not when near
            start_front = self.room_map.geometry.line_front[goal.line] == goal.sector
            here = (obs.position[0], obs.position[1])
            if on_front(self.room_map, goal.line, *here) != start_front:
                self._done()
                return Action.UP
            aim = beyond(self.room_map, goal.line, not start_front)
            turn = turn_toward(obs, aim, tolerance=_tolerance(here, aim))
            return turn or self._use_or(Action.UP)  # a door may shut the way over
        if goal.kind == "teleport" and goal.line is not None:
            # A teleport line sends only a player crossing it from its front: from behind, walk round to the front
            # first (the jump itself ends the objective, see act).
            here = (obs.position[0], obs.position[1])
            aim = beyond(self.room_map, goal.line, not on_front(self.room_map, goal.line, *here))
            return turn_toward(obs, aim, tolerance=_tolerance(here, aim)) or Action.UP
        if distance < TOUCH.get(goal.kind, 16.0):  # the key is picked up
            self._done()
            return Action.UP
        return turn_toward(obs, goal.where, tolerance=10.0) or Action.UP


def _tolerance(here: tuple[float, float], point: tuple[float, float]) -> float:
    """Return the turn tolerance toward a point: 10 degrees, wider up close (where a step swings the bearing)."""
    return max(10.0, math.degrees(math.atan2(24.0, max(math.dist(here, point), 1.0))))
