"""Score how far a trial got along its map's progression plan (see `metrics.plan_progress`).

Distances are walked on the map's NavGrid: one distance field per objective (its key, door, switch, trigger
line, teleporter, bosses or exit), so a trial that fetched the key and then stalled ranks above one that never
left the start. An objective counts as reached when the trial came within its reach: USE range of a switch,
door or exit; touching range of a key or a trigger line; sight of the bosses.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import cached_property

import numpy as np

from doomagent.env.navgrid import NavGrid
from doomagent.env.progression import Objective, ProgressionPlan
from doomagent.eval.metrics import plan_progress

REACH = {"key": 40.0, "walk": 40.0, "teleport": 40.0, "door": 64.0, "switch": 64.0, "exit": 64.0, "shoot": 512.0}
BOSS_REACH = 384.0


class PlanProgress:
    """The plan's objectives as distance fields on the grid, and the progress of a path along them."""

    def __init__(self, plan: ProgressionPlan, grid: NavGrid) -> None:
        self.plan = plan
        self.grid = grid

    @cached_property
    def fields(self) -> list[np.ndarray]:
        """Return, per objective, the walking distance from every cell to it."""
        return [self.grid.field_to(self.grid.cells_near(*o.where))[0] for o in self.plan.objectives]

    @cached_property
    def legs(self) -> list[float]:
        """Return the grid's walking distance of each leg (the plan's own length where the grid has none)."""
        out = []
        here = self.grid.geometry.start[:2]
        for field, objective, leg in zip(self.fields, self.plan.objectives, self.plan.legs, strict=True):
            d = self._distance(field, here)
            out.append(d if math.isfinite(d) else leg.length)
            here = objective.where
        return out

    def _distance(self, field: np.ndarray, point: Sequence[float]) -> float:
        cell = self.grid.nearest_walkable(float(point[0]), float(point[1]))
        return float(field[cell]) if cell is not None else math.inf

    def track(self, path: Iterable[tuple[float, float]]) -> list[tuple[int, float]]:
        """Return (objectives reached, distance to the next) for each position of a path, in order."""
        objectives = self.plan.objectives
        done, out = 0, []
        for x, y in path:
            while done < len(objectives) and self._reached(done, x, y):
                done += 1
            out.append((done, self._distance(self.fields[done], (x, y)) if done < len(objectives) else 0.0))
        return out

    def _reached(self, index: int, x: float, y: float) -> bool:
        if index == len(self.plan.objectives) - 1:
            return False  # the exit counts only as a finish
        o: Objective = self.plan.objectives[index]
        reach = BOSS_REACH if o.kind == "boss" else REACH.get(o.kind, 64.0)
        return math.dist((x, y), o.where) <= reach or self._distance(self.fields[index], (x, y)) <= reach / 2

    def of(self, path: Iterable[tuple[float, float]], *, finished: bool) -> float | None:
        """Return the trial's progress (0-1) along the plan; 1 for a finish."""
        return plan_progress(self.legs, self.track(path), finished=finished)
