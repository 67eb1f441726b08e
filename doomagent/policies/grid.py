"""A scripted walker over the map's walkable grid: it follows distance fields to worthwhile items
near the way and then to the exit, cuts corners only where the floor between is walkable, and
pushes doors and the exit switch."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from doomagent.env.actions import Action
from doomagent.env.navgrid import CELL, NavGrid
from doomagent.env.observation import Observation
from doomagent.env.rooms import RoomMap
from doomagent.env.specials import KEY_THINGS, MULTIPLAYER_ONLY, SKILL_FLAG, is_walked_exit
from doomagent.errors import ConfigError
from doomagent.policies._steer import ProgressWatch, UsePacer, turn_toward
from doomagent.policies._use_spot import across

LOOK_AHEAD = 24  # cells along the path the walker may head for directly
NO_PROGRESS = 25  # decisions without getting closer before backing off
USE_RANGE = 60.0
REACHED = 24.0  # map units from an item at which it counts as picked up
CROSS_INSET = 0.1  # an exit line is walked over no nearer its ends than this share of its length
GOAL_PATIENCE = 200  # decisions spent on one item before it is left alone
# Thing type -> the longest detour (map units) worth walking for it.
DETOURS = {
    2018: 1000.0,
    2019: 1200.0,  # green, blue armor
    2001: 1000.0,
    2002: 1000.0,
    2003: 600.0,  # shotgun, chaingun, rocket launcher
    2012: 450.0,
    2011: 250.0,
    2013: 1200.0,  # medikit, stimpack, soul sphere
    8: 500.0,
    2048: 400.0,
    2049: 400.0,  # backpack, ammo box, shell box
}


@dataclass
class Goal:
    """An item on the map worth a detour, and the distance field that leads to it."""

    position: tuple[float, float]
    field: tuple[np.ndarray, np.ndarray]
    tries: int = 0


@dataclass
class GridWalker:
    """Walk distance fields of a NavGrid: to items worth a short detour, then to the exit."""

    room_map: RoomMap
    grid: NavGrid
    goals: list[Goal] = field(default_factory=list)
    _watch: ProgressWatch = field(default_factory=lambda: ProgressWatch(NO_PROGRESS))
    _unstick: list[Action] = field(default_factory=list)
    _decisions: int = 0
    _pacer: UsePacer = field(default_factory=UsePacer)  # USE presses at doors, spaced out
    _exit: tuple[np.ndarray, np.ndarray] | None = None
    _locks: tuple[tuple[str, ...], np.ndarray | None] | None = None  # see _keys_and_avoid

    @property
    def exit_field(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the distance field to the exit (see `field_to`)."""
        if self._exit is None:
            self._exit = self.field_to(self.grid.exit_cells)
        return self._exit

    def field_to(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return the grid's distance field to `cells`, kept off the locked doors whose key the walk does not fetch
        (a shorter way through one ends pushing at it for good: freedoom2 MAP29's yellow door before its exit)."""
        return self.grid.field_to(cells, avoid=self._keys_and_avoid()[1])

    def _keys_needed(self) -> tuple[str, ...]:
        """Return the keys the walk fetches, in order (see _keys_and_avoid)."""
        return self._keys_and_avoid()[0]

    def _keys_and_avoid(self) -> tuple[tuple[str, ...], np.ndarray | None]:
        """Return (the keys the walk fetches, the grid cells its ways keep off or None), worked out once.

        The keys are the route's, and where no way to the exit keeps off the other locked doors, the keys of those
        the grid's way goes through (freedoom1 E3M6's yellow bars, which the route's sector-to-sector walk passes
        between). The cells kept off are those locked doors' where a way does keep off them."""
        if self._locks is None:
            g, grid = self.room_map.geometry, self.grid
            route = self.room_map.route
            keys = tuple(route.keys) if route is not None else ()
            locked = [s for s, door in g.doors.items() if door.key is not None and door.key not in keys]
            avoid = None
            if locked:
                # In a locked door and within a player's radius of its lines: bars with gaps narrower than a player
                # are one door sector in pieces, with walkable cells between them.
                sides = np.isin(g.line_front, locked) | np.isin(g.line_back, locked)
                mask = np.isin(grid.sector, locked) | grid.near_lines(sides)
                sx, sy, _ = g.start
                start = grid.nearest_walkable(sx, sy)
                if start is not None and np.isfinite(grid.field_to(grid.exit_cells, avoid=mask)[0][start]):
                    avoid = mask
                else:
                    crossed = {int(grid.sector[c]) for c in grid.follow(grid.exit_field, sx, sy, limit=100_000)}
                    keys += tuple(sorted({k for s in crossed if s in locked and (k := g.doors[s].key) is not None}))
            self._locks = (keys, avoid)
        return self._locks

    @classmethod
    def for_map(cls, room_map: RoomMap, *, skill: int = 3, detours: bool = True) -> GridWalker:
        """Return a walker for the map (building its grid takes about a second)."""
        if not room_map.geometry.exit_lines:
            raise ConfigError(f"map {room_map.geometry.name} has no exit line to walk to")
        walker = cls(room_map, room_map.navgrid)
        if detours:
            walker.goals = walker._plan_goals(skill)
        return walker

    def _plan_goals(self, skill: int) -> list[Goal]:
        """Return the items whose detour from start to exit is short enough, farthest from the exit first."""
        g, grid = self.room_map.geometry, self.grid
        exit_dist, _ = self.exit_field
        sx, sy, _ = g.start
        start = grid.nearest_walkable(sx, sy)
        if start is None or not np.isfinite(exit_dist[start]):
            return self._key_goals(skill)  # no walkable way to the exit yet: keys (and doors) first
        wanted = []
        for t in g.things:
            budget = DETOURS.get(int(t["type"]))
            if budget is None or not t["flags"] & SKILL_FLAG[skill] or t["flags"] & MULTIPLAYER_ONLY:
                continue
            x, y = float(t["x"]), float(t["y"])
            cell = grid.nearest_walkable(x, y, reach=2)
            if cell is None or grid.hazard[cell] or not np.isfinite(exit_dist[cell]):
                continue
            item_field = self.field_to(np.array([cell]))
            detour = item_field[0][start] + exit_dist[cell] - exit_dist[start]
            if detour <= budget:
                wanted.append((float(exit_dist[cell]), Goal((x, y), item_field)))
        goals = [goal for _, goal in sorted(wanted, key=lambda w: -w[0])]
        return self._key_goals(skill) + goals

    def _key_goals(self, skill: int) -> list[Goal]:
        """Return goals for the keys that the route needs, in the route's order (nearest first per colour)."""
        needed = self._keys_needed()
        if not needed:
            return []
        g, grid = self.room_map.geometry, self.grid
        sx, sy, _ = g.start
        keys = []
        for t in g.things:
            colour = KEY_THINGS.get(int(t["type"]))
            if colour not in needed or not t["flags"] & SKILL_FLAG[skill] or t["flags"] & MULTIPLAYER_ONLY:
                continue
            cell = grid.nearest_walkable(float(t["x"]), float(t["y"]), reach=2)
            if cell is not None:
                keys.append(
                    (
                        # In the order the route picks them up (the progression plan's), nearest first within it.
                        (needed.index(colour), math.dist((sx, sy), (t["x"], t["y"]))),
                        Goal((float(t["x"]), float(t["y"])), self.field_to(np.array([cell]))),
                    )
                )
        return [goal for _, goal in sorted(keys, key=lambda k: k[0])]

    def clear(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Return True if every cell under the straight walk from a to b is walkable."""
        n = max(2, int(math.dist(a, b) / (CELL / 2)))
        xs = np.linspace(a[0], b[0], n)
        ys = np.linspace(a[1], b[1], n)
        g = self.grid
        i = np.clip(((xs - g.x0) / CELL).astype(int), 0, g.nx - 1)
        j = np.clip(((ys - g.y0) / CELL).astype(int), 0, g.ny - 1)
        return bool(g.walkable[j * g.nx + i].all())

    def _goal(self, here: tuple[float, float]) -> Goal | None:
        while self.goals:
            goal = self.goals[0]
            dist, _ = goal.field
            cell = self.grid.nearest_walkable(*here)
            reachable = cell is not None and np.isfinite(dist[cell])
            if math.dist(here, goal.position) < REACHED or goal.tries > GOAL_PATIENCE or not reachable:
                self.goals.pop(0)
                continue
            goal.tries += 1
            return goal
        return None

    def act(self, obs: Observation) -> Action:
        """Return the next action toward the next item worth fetching, or the exit."""
        self._decisions += 1
        x, y, _ = obs.position
        here = (x, y)
        g = self.grid
        if self._unstick:
            return self._unstick.pop()
        goal = self._goal(here)
        goal_field = goal.field if goal is not None else self.exit_field
        start = g.nearest_walkable(x, y)
        unstick = self._watch.stalled(float(goal_field[0][start]) if start is not None else math.inf)
        if unstick:
            self._unstick = unstick
        path = g.follow(goal_field, x, y, limit=LOOK_AHEAD + 1)
        if len(path) <= 1:
            if goal is not None:
                return turn_toward(obs, goal.position) or Action.UP
            # At the end of the exit's field: walk over an exit line taken by walking, else face the switch and
            # press it.
            line = g.exit_line
            assert line is not None
            if is_walked_exit(int(self.room_map.geometry.line_special[line])):
                aim = across(self.room_map, line, x, y, inset=CROSS_INSET)  # straight over, not to its middle
                return turn_toward(obs, aim) or Action.UP
            return turn_toward(obs, self.room_map.geometry.line_midpoint(line)) or Action.USE
        doors = self.room_map.geometry.doors
        target = path[1]
        for cell in path[1:]:
            centre = g.centre(cell)
            if int(g.sector[cell]) in doors:
                target = cell  # walk up to a door and push it before looking past it
                if math.dist(here, centre) < USE_RANGE:
                    return turn_toward(obs, centre) or self._pacer.press_or(self._decisions, Action.UP)
                break
            if not self.clear(here, centre):
                break
            target = cell
        return turn_toward(obs, g.centre(target)) or Action.UP
