"""A scripted walker over the map's walkable grid: it follows the distance field to the exit, cuts
corners only where the floor between is walkable, and pushes doors and the exit switch."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from doomagent.env.actions import Action
from doomagent.env.navgrid import CELL, NavGrid
from doomagent.env.observation import Observation
from doomagent.env.rooms import RoomMap
from doomagent.errors import ConfigError
from doomagent.policies._steer import ProgressWatch, turn_toward

LOOK_AHEAD = 24  # cells along the path the walker may head for directly
NO_PROGRESS = 25  # decisions without getting closer to the exit before backing off
USE_RANGE = 60.0


@dataclass
class GridWalker:
    """Walk the distance field of a NavGrid to the exit; USE doors on the way and the exit switch."""

    room_map: RoomMap
    grid: NavGrid
    _watch: ProgressWatch = field(default_factory=lambda: ProgressWatch(NO_PROGRESS))
    _unstick: list[Action] = field(default_factory=list)
    _decisions: int = 0

    @classmethod
    def for_map(cls, room_map: RoomMap) -> GridWalker:
        """Return a walker for the map (building its grid takes about a second)."""
        if not room_map.geometry.exit_lines:
            raise ConfigError(f"map {room_map.geometry.name} has no exit line to walk to")
        return cls(room_map, room_map.navgrid)

    def clear(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Return True if every cell under the straight walk from a to b is walkable."""
        n = max(2, int(math.dist(a, b) / (CELL / 2)))
        xs = np.linspace(a[0], b[0], n)
        ys = np.linspace(a[1], b[1], n)
        g = self.grid
        i = np.clip(((xs - g.x0) / CELL).astype(int), 0, g.nx - 1)
        j = np.clip(((ys - g.y0) / CELL).astype(int), 0, g.ny - 1)
        return bool(g.walkable[j * g.nx + i].all())

    def act(self, obs: Observation) -> Action:
        """Return the next action toward the exit."""
        self._decisions += 1
        x, y, _ = obs.position
        here = (x, y)
        g = self.grid
        if self._unstick:
            return self._unstick.pop()
        unstick = self._watch.stalled(g.distance_to_exit(x, y))
        if unstick:
            self._unstick = unstick
        path = g.path_to_exit(x, y, limit=LOOK_AHEAD + 1)
        doors = self.room_map.geometry.doors
        exit_line = g.exit_line
        if len(path) <= 1:
            # At the end of the field: face the exit switch and press it.
            assert exit_line is not None
            return self._face_then(obs, self.room_map.geometry.line_midpoint(exit_line), Action.USE)
        target = path[1]
        for cell in path[1:]:
            centre = g.centre(cell)
            if int(g.sector[cell]) in doors:
                target = cell  # walk up to a door and push it before looking past it
                if math.dist(here, centre) < USE_RANGE:
                    return self._face_then(obs, centre, Action.USE if self._decisions % 2 else Action.UP)
                break
            if not self.clear(here, centre):
                break
            target = cell
        return self._face_then(obs, g.centre(target), Action.UP)

    def _face_then(self, obs: Observation, point: tuple[float, float], action: Action) -> Action:
        return turn_toward(obs, point) or action
