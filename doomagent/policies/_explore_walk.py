"""The explorer's walk: along the live grid to a goal's cells, then doing the goal there (press the switch, cross the
trigger line, shoot the target, touch the key).

On the way it heads for the farthest cell in clear view, pushes the doors the way goes through, steps over
teleport lines, waits while the floor under it or ahead of it moves (a lift, a door opening), and never stands
still: a walk that stops closing in backs off and sidesteps, and the fourth time keeps off the cell it stalled
short of for a while (something the grid does not show stands there: a monster, a bar).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from doomagent.env.actions import Action
from doomagent.env.geometry import MAX_STEP, MIN_HEADROOM
from doomagent.env.observation import LiveMap, Observation
from doomagent.env.rooms import RoomMap, crossed
from doomagent.env.specials import is_walked_exit
from doomagent.policies._crusher import CrusherWatch
from doomagent.policies._footing import drop_ahead, held_back, slide_brake, standing_cell, straight_clear, up_the_stair
from doomagent.policies._goal import BOSS, OPENED, RIDE, Goal
from doomagent.policies._interactions import Interaction, aim_at_target
from doomagent.policies._livegrid import TELEPORT_JUMP, LiveGrid, Walk, moved
from doomagent.policies._steer import (
    ProgressWatch,
    StillWatch,
    UsePacer,
    bearing_off,
    step_toward,
    turn_toward,
    walk_tolerance,
)
from doomagent.policies._use_spot import (
    across,
    edge_on,
    in_front,
    nearest_on_line,
    on_front,
    reaches,
    spans,
    use_strikes,
)

Point = tuple[float, float]
STALLS = 4  # stalls on one walk before the cell ahead is kept off
KEEP_OFF = 900  # decisions a cell stalled short of is kept off
LOOK_AHEAD = 20  # cells along the way the walk may head for directly
PRESS_WAIT = 24  # decisions after a press to see its sectors move
PRESSES = 3  # presses (or crossings, or volleys) that moved nothing before the interaction counts as failed
DOOR_REACH = 56.0  # a closed door on the way is pushed from this close
MOTION_WAIT = 160  # decisions waited for moving sectors when no way is open (a lift on its way, a crusher)
BOSS_LOOK = 40  # decisions spent looking round at a boss's place for it
REST = 240  # decisions a repeatable interaction just set off is not chosen again (its lift comes back up meanwhile)
SETTLE_WAIT = 200  # decisions at most waited for what a switch moves to stand still before pressing it
# Decisions at most spent on a ride, and that a lift waits below before it rises again (105 tics, and a few).
RIDE_WAIT, LIFT_PAUSE = 150, 60
STEP_IN = 6  # decisions a ride from beside a lift steps toward it before it waits
SETTLED = 8  # decisions since anything last moved after which the walk's floors are taken to be the live ones
STILL = 4  # decisions since the floor under the player last moved after which its height is taken as the floor's
BRAKE_TURN, BRAKE_SPEED = 60.0, 10.0  # a walk brakes before a turn of this many degrees, going this many units a step
AIM_INSET = 0.3  # a switch is aimed at no nearer its ends than this share of its length
AIMS, STEP_OUT = 24, 32.0  # decisions at most spent setting a use right; how far in front of a switch it steps out
FINE_TOLERANCE = 4.0  # degrees off it before turning where walking on as the view points would run off a ledge


@dataclass
class Walker:
    """Walk the live grid to the goal and do it."""

    room_map: RoomMap
    live_grid: LiveGrid
    note: Callable[[str], None]
    walk: Walk | None = None
    goal: Goal | None = None
    avoid_changed: bool = False  # cells kept off changed since the walk was last built
    failures: list[str] = field(default_factory=list)  # the interactions given up, and why
    _kept_off: dict[int, int] = field(default_factory=dict)  # cell -> decision until which it is kept off
    _field: tuple[np.ndarray, np.ndarray] | None = None
    _field_of: tuple[int, int] = (-1, -1)  # (walk version, goal serial) the field was made for
    _decisions: int = 0
    _last: tuple[float, float] | None = None
    _speed: float = 0.0  # map units moved forward (along the view) in the last decision
    _moved: tuple[float, float] = (0.0, 0.0)  # and the move itself
    _heights: tuple[np.ndarray, np.ndarray] | None = None  # last decision's heights
    _moving: int = -1_000_000  # the last decision on which some sector moved
    _moved_at: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # per sector, last moved
    z: float = 0.0  # the player's height
    _fell: float = 0.0  # how far it dropped in the last decision
    _sector: int = -1  # the sector the player stands in
    top: dict[int, float] = field(default_factory=dict)  # lift sector -> its floor as the map began (its top)
    _unstick: list[Action] = field(default_factory=list)
    _watch: ProgressWatch = field(default_factory=lambda: ProgressWatch(30))
    _still: StillWatch = field(default_factory=StillWatch)
    _pacer: UsePacer = field(default_factory=UsePacer)
    _crushers: CrusherWatch = field(default_factory=CrusherWatch)
    _pushes: tuple[np.ndarray, np.ndarray] | None = None  # the push lines' ends and their door sectors
    # The ground past a lift just called that a walk across it while down reaches, where something is wanted.
    through: Callable[[Interaction, dict[int, float], LiveMap, int], np.ndarray | None] | None = None

    def start(self, goal: Goal) -> None:
        """Walk to a new goal."""
        self.goal = goal
        self._unstick = []

    def fail(self, item: Interaction, why: str) -> None:
        """Give the walk to an interaction up, counting it against the interaction."""
        item.failed += 1
        self.failures.append(f"{item.text}: {why}")
        self.note(f"{item.text}: {why}")
        self.goal = None

    def avoid(self, decision: int) -> np.ndarray | None:
        """Return the mask of cells kept off now (None: none), forgetting those kept off long enough."""
        self.avoid_changed = False
        self._kept_off = {c: until for c, until in self._kept_off.items() if until > decision}
        if not self._kept_off:
            return None
        mask = np.zeros(self.live_grid.n, dtype=bool)
        mask[list(self._kept_off)] = True
        return mask

    def cell(self, here: tuple[float, float]) -> int:
        """Return the standable cell the player stands on (`_footing.standing_cell`), or -1. Its height picks the
        cell, but not in a fall, nor while the floor under it moves (a lift: the walk's floors lag its height), nor
        on a map with winding stairs while any floor moves; then its cell is the one under it."""
        assert self.walk is not None
        own = self._sector < 0 or self._decisions - self._moved_at[self._sector] > STILL
        settled = self._fell < 1 and own and (not self.walk.winding or self._decisions - self._moving > SETTLED)
        return standing_cell(self.live_grid.grid, self.walk, here, self.z if settled else math.inf)

    def clear(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Return True when the straight walk from a to b keeps to standable cells on one floor."""
        return self.walk is not None and straight_clear(self.live_grid.grid, self.walk, a, b)

    # -- each decision ---------------------------------------------------------------------------------------

    def act(self, obs: Observation, live: LiveMap, here: tuple[float, float], decision: int) -> Action:
        """Return the next action toward the goal, or at it."""
        self._decisions = decision
        self._crossed_on_the_way(here)
        if self._last is not None:  # the speed along the view (a slide backward is no run to brake)
            heading = math.radians(obs.angle)
            dx, dy = here[0] - self._last[0], here[1] - self._last[1]
            self._speed, self._moved = dx * math.cos(heading) + dy * math.sin(heading), (dx, dy)
        self._last = here
        if self._heights is not None:
            stirred = (np.abs(live.floors - self._heights[0]) > 0.5) | (np.abs(live.ceilings - self._heights[1]) > 0.5)
            if stirred.any():
                self._moving = decision
                self._moved_at[stirred] = decision
        else:
            self._moved_at = np.full(len(live.floors), -1_000_000)
        self._heights = (live.floors, live.ceilings)
        self._fell, self.z, self._sector = self.z - obs.position[2], obs.position[2], obs.sector
        if not self.top:
            self.top = {int(s): float(live.floors[s]) for s in np.flatnonzero(self.live_grid.lifts)}
        goal = self.goal
        if self._still.still(here):  # whatever it was doing, it has not moved: back off and sidestep
            side = Action.STRAFE_LEFT if decision % 2 else Action.STRAFE_RIGHT
            self._unstick = [*[Action.UP] * 4, *[side] * 6, *[Action.DOWN] * 6]
            if goal is not None:
                goal.stalls += 1
        if self._unstick:
            return self._unstick.pop()
        if goal is None:
            return Action.RIGHT
        goal.decisions += 1
        if goal.what is not None and self._done(goal, live):
            self.goal = None
            return Action.WAIT
        return self._go(obs, live, here, self.goal or goal)

    def _crossed_on_the_way(self, here: tuple[float, float]) -> None:
        """Count a walk over the goal's trigger line on the way to it as its first crossing, against the heights
        before it (the way to the spot beside a line may cross it; else the heights taken there are already the
        moved ones, and the crossings after it move nothing)."""
        goal, last = self.goal, self._last
        item = goal.what if goal is not None else None
        if goal is None or item is None or item.kind != "walk" or goal.presses or last is None or self._heights is None:
            return
        for line in item.lines:
            if on_front(self.room_map, line, *last) != on_front(self.room_map, line, *here) and spans(
                self.room_map, line, last, here
            ):
                goal.heights, goal.presses, goal.side = self._heights, 1, on_front(self.room_map, line, *here)
                item.uses += 1
                return

    def _done(self, goal: Goal, live: LiveMap) -> bool:
        """Return True when the goal's interaction is done (a key held, a switch or trigger that moved its sectors),
        marking it so."""
        item = goal.what
        assert item is not None
        if item.kind == "key":
            if item.key in live.keys:
                item.done = True
                self.note(f"picked up {item.text}")
                return True
            return False
        if goal.presses and goal.heights is not None and item.moves and moved(live, list(item.moves), *goal.heights):
            item.done = not item.repeat
            item.uses += 1
            item.rest_until = self._decisions + REST
            self.note(f"{item.text} set its sectors moving")
            # The lifts it moved (one as low as the floors round it stays put; a block whose top meets its ceiling
            # carries nobody up: a player on it stops it). A lift comes back to where it stood when called (floors moved
            # freedoom2 MAP13's); a floor that moves a lift's sector stays where it went: no ride.
            called = [s for s in item.moves if item.effect == "lift" and self.live_grid.lifts[s]]
            self.top.update({s: float(goal.heights[0][s]) for s in called})
            lifts = [
                s
                for s in called
                if live.floors[s] != goal.heights[0][s] and live.ceilings[s] - self.top[s] >= MIN_HEADROOM
            ]
            if lifts:  # ride it: onto the lift once it is down, then up (or down) with it
                below = self.z < max(self.top[s] for s in lifts) - MAX_STEP
                past = None
                if below and self.through is not None and self._last is not None:
                    past = self.through(item, {s: self.top[s] for s in lifts}, live, self.cell(self._last))
                if past is not None:  # or walk across it while it is down, to what is wanted past it
                    self.note(f"walk across the lift of {item.text}")
                    self.start(Goal(None, past, OPENED, source=item))
                    return False
                # Ridden up from beside it too (a lift strip narrower than a player); ridden down only from on it.
                lg = self.live_grid
                cells = lg.touching(lifts) if below else np.flatnonzero(np.isin(lg.sector, lifts))
                ride = Goal(None, cells, RIDE)
                ride.lifts, ride.below = tuple(lifts), below
                ride.then, ride.source = item.opens, item
                self.start(ride)
                return False
            if item.opens is not None:  # into the ground it opened (once the way is open)
                self.start(Goal(None, item.opens, OPENED, source=item))
                return False
            return True
        return False

    def _go(self, obs: Observation, live: LiveMap, here: tuple[float, float], goal: Goal) -> Action:
        walk = self.walk
        assert walk is not None
        if goal.label == RIDE and goal.below:  # walked as though the lift were down: it is on its way there
            if goal.ride_field is None:
                floors = live.floors.copy()
                floors[list(goal.lifts)] = [self.live_grid.lowest_beside(s, live.floors) for s in goal.lifts]
                goal.ride_field = self.live_grid.build(floors, live.ceilings, live.keys).field_to(goal.cells)
            self._field, self._field_of = goal.ride_field, (-1, -1)
        elif self._field is None or self._field_of != (walk.version, goal.serial):
            self._field, self._field_of = walk.field_to(goal.cells), (walk.version, goal.serial)
        dist, pred = self._field
        start = self.cell(here)
        to_go = float(dist[start]) if start >= 0 else math.inf
        if to_go == 0.0 or self._at(goal, here):
            return self._do(obs, live, here, goal)
        if not math.isfinite(to_go):
            lg = self.live_grid
            back = held_back(lg.grid, walk, here, self.z, dist)  # over a drop, held up by the ledge beside
            if back is not None and self._fell < 1 and self._settled(self._sector, lg.sector[lg.grid.cell_of(*back)]):
                return step_toward(obs, back)  # back onto it before sliding off (not in a fall, nor on a moving floor)
            if self._decisions - self._moving < 8 and goal.waited < MOTION_WAIT:
                goal.waited += 1  # a lift on its way, a door opening: the way may open in a moment
                return Action.WAIT
            if goal.what is not None:
                self.fail(goal.what, "no way there now")
            elif goal.source is not None and goal.label in (OPENED, RIDE):
                if goal.label == RIDE:  # the lift went back up before the walk got onto it: it may be called again
                    goal.source.rest_until = 0
                self.fail(goal.source, "done, but the ground it was to open is out of reach")
            else:
                self.goal = None
            return Action.WAIT
        path = [start]
        while len(path) <= LOOK_AHEAD and pred[path[-1]] >= 0:
            path.append(int(pred[path[-1]]))
        held = self._crushers.hold(self.live_grid, obs, live, self._moved, path)
        if held is not None:  # short of a crusher coming down: no stall while it passes
            return held
        unstick = self._watch.stalled(to_go, (goal.serial, walk.version))
        if unstick:
            goal.stalls += 1
            if goal.stalls >= STALLS:
                self._keep_off(start, pred)
                goal.stalls = 0
            self._unstick = unstick
            return self._unstick.pop()
        return self._step(obs, live, here, path)

    def _settled(self, *sectors: int) -> bool:
        return all(self._decisions - self._moved_at[s] > SETTLED for s in sectors if s >= 0)

    def _at(self, goal: Goal, here: tuple[float, float]) -> bool:
        """Return True where the goal's switch can be used from right here."""
        item = goal.what
        if item is None or not (item.kind == "switch" or (item.kind == "exit" and not self._walked(item))):
            return False
        return any(reaches(self.room_map, line, *here) for line in item.lines)

    def _keep_off(self, start: int, pred: np.ndarray) -> None:
        """Keep the walk off the cell a few steps ahead on its way for a while."""
        cell, ahead = start, -1
        for _ in range(3):
            nxt = int(pred[cell]) if cell >= 0 else -1
            if nxt < 0:
                break
            ahead = cell = nxt
        if ahead >= 0:
            self._kept_off[ahead] = self._decisions + KEEP_OFF
            self.avoid_changed = True
            x, y = self.live_grid.grid.centre(ahead)
            self.note(f"kept off ({x:.0f}, {y:.0f}) for a while (stalled short of it)")

    def _step(self, obs: Observation, live: LiveMap, here: tuple[float, float], path: list[int]) -> Action:
        """Walk along the way (`path`: its cells, the player's first): head for the farthest cell in clear view, push
        doors, take teleporters."""
        grid, lg = self.live_grid.grid, self.live_grid
        target = path[min(1, len(path) - 1)]
        for k in range(1, len(path)):
            a, b = path[k - 1], path[k]
            if math.dist(grid.centre(a), grid.centre(b)) > TELEPORT_JUMP:
                if k == 1:
                    line = next((ln for ln, cells, _dest in lg.teleports if a in cells), None)
                    if line is not None:
                        aim = across(self.room_map, line, *here, inset=0.2)
                        return turn_toward(obs, aim, tolerance=20.0) or Action.UP
                break
            sec = int(lg.sector[b])
            door = self._door_between(grid.centre(a), grid.centre(b), live)  # a door thinner than a cell
            if door is not None or (lg.pushable_door[sec] and live.ceilings[sec] - live.floors[sec] < MIN_HEADROOM):
                door = door or grid.centre(b)
                if math.dist(here, door) < DOOR_REACH or k == 1:
                    return turn_toward(obs, door, tolerance=12.0) or self._pacer.press_or(self._decisions, Action.UP)
                break
            if not self.clear(here, grid.centre(b)):
                break
            target = b
        away = lg.teleport_ahead(here, self._moved, path)
        if away is not None:
            return step_toward(obs, away)
        walk = self.walk
        assert walk is not None
        brake = slide_brake(walk, grid, self.z, here, self._moved, path)
        if brake is not None:
            return step_toward(obs, brake)
        point = up_the_stair(lg.stairs, walk, here, path, live.floors) or grid.centre(target)
        if abs(bearing_off(obs, point)) > BRAKE_TURN and self._speed > BRAKE_SPEED:
            return Action.DOWN
        tolerance = walk_tolerance(here, point)
        if FINE_TOLERANCE < abs(bearing_off(obs, point)) <= tolerance and drop_ahead(
            walk, grid, self.z, obs, here, point
        ):
            tolerance = FINE_TOLERANCE  # off the way within the tolerance, but the view's way runs off a ledge
        return turn_toward(obs, point, tolerance=tolerance) or Action.UP

    def _door_between(self, a: Point, b: Point, live: LiveMap) -> Point | None:
        """Return where the step from a to b crosses a closed door's push line, or None."""
        lg, g = self.live_grid, self.room_map.geometry
        if self._pushes is None:
            lines = list(lg.push_lines)
            ends = g.vertices[g.line_v[lines]].reshape(-1, 4) if lines else np.zeros((0, 4))
            self._pushes = (ends, np.array([lg.push_lines[ln][0] for ln in lines], dtype=np.int64))
        ends, doors = self._pushes
        if not len(doors):
            return None
        hits, along = crossed(a, b, ends)
        hit = np.flatnonzero(hits & (live.ceilings[doors] - live.floors[doors] < MIN_HEADROOM))
        if not len(hit):
            return None
        step = float(along[int(hit[0])])
        return a[0] + step * (b[0] - a[0]), a[1] + step * (b[1] - a[1])

    # -- at the goal -----------------------------------------------------------------------------------------

    def _do(self, obs: Observation, live: LiveMap, here: tuple[float, float], goal: Goal) -> Action:
        """At the goal: press, cross, shoot or touch it (a boss's place: look round for it)."""
        item = goal.what
        if item is None:
            goal.waited += 1
            if goal.label == RIDE:  # on the lift: stay on it until it has taken the walk up (or down)
                ridden = self._ridden(goal, live)
                if not ridden and self._sector not in goal.lifts and goal.stepped < STEP_IN:
                    goal.stepped += 1  # beside it: step into its edge (a wall past a strip stops the step)
                    return step_toward(obs, self._lift_edge(goal, here))
                # A lift whose rise a monster blocked goes back down with the player and rises again after its wait.
                stirred = self._decisions - int(self._moved_at[list(goal.lifts)].max()) < LIFT_PAUSE
                again = self._sector in goal.lifts and stirred
                if ridden or goal.waited > RIDE_WAIT * (3 if again else 1):
                    self.goal = Goal(None, goal.then, OPENED, source=goal.source) if goal.then is not None else None
                    top = max(self.top[s] for s in goal.lifts)
                    missed = self.z < top - MAX_STEP if goal.below else self._sector not in goal.lifts
                    if missed and goal.source is not None:  # it left without the walk
                        goal.source.rest_until = 0
                        self.note(f"missed the lift of {goal.source.text}")
                    else:
                        self.note(
                            f"rode the lift {'up' if goal.below else 'down'} ({goal.decisions} decisions)"
                            + ("" if ridden else ", and it did not get there")
                        )
                return Action.WAIT
            if goal.label != BOSS or goal.waited > BOSS_LOOK:
                self.goal = None
            return Action.RIGHT
        if item.kind != "key" and goal.presses == 0:
            # Before the first press (crossing, shot): wait for what it moves to stand still, and take the heights
            # it stands at; a lift still coming back up is no sign of a press.
            moves = list(item.moves)
            settling = bool(moves) and self._decisions - int(self._moved_at[moves].max()) <= 2
            # A lift is called when it rests at its top: one waiting below goes back up whatever is pressed.
            away = any(
                self.live_grid.lifts[s]
                and live.floors[s] < self.top[s] - 1
                and self._decisions - int(self._moved_at[s]) <= LIFT_PAUSE  # (one long still rests there)
                for s in moves
            )
            if (settling or away) and goal.settle < SETTLE_WAIT:
                goal.settle += 1
                return Action.WAIT
            goal.heights = (live.floors, live.ceilings)
        if item.kind == "key":
            return turn_toward(obs, item.where, tolerance=10.0) or Action.UP
        if item.kind == "walk" or (item.kind == "exit" and self._walked(item)):
            return self._cross(obs, here, goal, item)
        if item.kind == "shoot":
            turn = turn_toward(obs, aim_at_target(self.room_map, item, here), tolerance=4.0)
            if turn is not None:
                return turn
            goal.presses += 1
            if goal.presses > 8 * PRESSES:
                item.uses += 1
                self.fail(item, "shot and nothing moved")
            return Action.FIRE
        return self._press(obs, here, goal, item)

    def _press(self, obs: Observation, here: tuple[float, float], goal: Goal, item: Interaction) -> Action:
        """Face the nearest of the switch's lines within reach and press it; wait for its sectors to move."""
        lines = [line for line in item.lines if reaches(self.room_map, line, *here)] or list(item.lines)
        line = min(lines, key=lambda ln: math.dist(here, nearest_on_line(self.room_map, ln, *here)))
        aim = nearest_on_line(self.room_map, line, *here, inset=AIM_INSET)
        if goal.aims < AIMS:  # a use that would miss is set right first: from in front, then turned finely
            if edge_on(self.room_map, line, *here, aim):
                goal.aims += 1
                return step_toward(obs, in_front(self.room_map, line, aim, STEP_OUT))
            if not use_strikes(self.room_map, line, *here, obs.angle):
                goal.aims += 1
                turn = turn_toward(obs, aim, tolerance=2.0)
                if turn is not None:
                    return turn
        turn = turn_toward(obs, aim, tolerance=10.0)
        if turn is not None:
            return turn
        goal.waited += 1
        if goal.waited % PRESS_WAIT != 1:
            return Action.WAIT if goal.waited % PRESS_WAIT > 2 else Action.UP
        goal.presses += 1
        item.uses += 1
        if goal.presses > PRESSES:
            self.fail(item, f"pressed {PRESSES} times and nothing moved")
        return Action.USE

    def _ridden(self, goal: Goal, live: LiveMap) -> bool:
        """Return True once a lift ridden from below stands at its top, or one ridden from above at its bottom."""
        lifts = list(goal.lifts)
        floor = float(live.floors[lifts].max())
        top = max(self.top[s] for s in lifts)
        if self._decisions - int(self._moved_at[lifts].max()) <= 4:  # still on its way
            return False
        return floor >= top - 1 if goal.below else floor < top - MAX_STEP

    def _lift_edge(self, goal: Goal, here: Point) -> Point:
        """Return the point of the ride's lift nearest to the player."""
        g = self.room_map.geometry
        lines = np.flatnonzero(np.isin(g.line_front, goal.lifts) | np.isin(g.line_back, goal.lifts))
        points = [nearest_on_line(self.room_map, int(line), *here) for line in lines]
        return min(points, key=lambda p: math.dist(p, here), default=here)

    def _walked(self, item: Interaction) -> bool:
        return any(is_walked_exit(int(self.room_map.geometry.line_special[line])) for line in item.lines)

    def _cross(self, obs: Observation, here: tuple[float, float], goal: Goal, item: Interaction) -> Action:
        """Walk over the nearest of the item's lines; a crossing that moved nothing counts like a press."""
        line = min(item.lines, key=lambda ln: math.dist(here, nearest_on_line(self.room_map, ln, *here)))
        side = on_front(self.room_map, line, *here)
        if goal.side is not None and side != goal.side:
            item.uses += 1
            goal.presses += 1
            if not item.moves:
                item.done = not item.repeat
                self.goal = None
                return Action.UP
            if goal.presses > PRESSES:
                self.fail(item, "crossed and nothing moved")
                return Action.UP
        goal.side = side
        aim = across(self.room_map, line, *here, inset=0.15)
        return turn_toward(obs, aim, tolerance=12.0) or Action.UP
