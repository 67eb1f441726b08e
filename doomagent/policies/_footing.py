"""Where a walk on the live grid stands and how it steps on narrow ground: the cell under a player held up by a
ledge beside it (and the step back onto that ledge), the point to head for up a winding stair, and the brake before
a run slides off a ledge.

The grid's cell under a player's centre is not always the ground it stands on: a player's floor is the highest
within its radius, so one over a pit, held up by a stair or a ledge beside it, stands on that and not on the pit
floor under its centre. A way planned from the pit cell leads somewhere else (on freedoom2 MAP25's spiral stair it
turned the walk round, and it slid off the step it stood on).
"""

from __future__ import annotations

import math

import numpy as np

from doomagent.env.geometry import MAX_STEP
from doomagent.env.navgrid import CELL, NavGrid
from doomagent.env.observation import Observation
from doomagent.policies._livegrid import Walk
from doomagent.policies._stairs import Stairs

Point = tuple[float, float]
WAY_AHEAD = 2  # points (4 units apart) past the nearest one that a walk up a winding stair heads for
CLEAR_SIDE = 7.0  # map units either side of a straight walk that must be standable too (the player is off centre)
SLIDE_AHEAD = 3.0  # the last decision's move this many times over: about how far a run goes on that brakes now


def standing_cell(grid: NavGrid, walk: Walk, here: Point, z: float) -> int:
    """Return the standable cell a player at `here`, height `z`, stands on, or the nearest one within a few cells
    (-1: none). Within a cell and a half, a cell whose floor is within a step of z (the ledge holding the player up)
    comes before one under its centre a step or more below it."""
    standable, floor = walk.standable, walk.floor
    cell = grid.cell_of(*here)
    if standable[cell] and floor[cell] >= z - MAX_STEP:
        return cell
    i, j = cell % grid.nx, cell // grid.nx
    ii, jj = np.meshgrid(np.arange(max(0, i - 3), min(grid.nx, i + 4)), np.arange(max(0, j - 3), min(grid.ny, j + 4)))
    near = (jj * grid.nx + ii).ravel()
    near = near[standable[near]]
    far = np.hypot(grid.cx[near] - here[0], grid.cy[near] - here[1])
    held = (far < CELL * 1.5) & (np.abs(floor[near] - z) <= MAX_STEP)
    if held.any():
        return int(near[np.argmin(np.where(held, far, np.inf))])
    if standable[cell]:
        return cell
    return int(near[np.argmin(far)]) if len(near) else -1


def up_the_stair(stairs: Stairs, walk: Walk, here: Point, path: list[int], floors: np.ndarray) -> Point | None:
    """Return the point a little way along the bent way up a winding stair when the walk's next step (path[0] to
    path[1]) is one, else None (the straight line to the next cell's centre is the way)."""
    if len(path) < 2 or (path[0], path[1]) not in walk.winding:
        return None
    way = stairs.way(path[0], path[1], walk.floor, floors)
    if not way:
        return None
    near = min(range(len(way)), key=lambda k: math.dist(here, way[k]))
    return way[min(near + WAY_AHEAD, len(way) - 1)]


def held_back(grid: NavGrid, walk: Walk, here: Point, z: float, dist: np.ndarray) -> Point | None:
    """Return the centre of the cell of the ledge holding up a player whose centre is over ground a step or more below
    it, when the way goes on from the ledge (finite `dist`), else None. A walk that waits there slides off (freedoom1
    E3M3: the corner of a 32-unit bridge over a pit)."""
    cell = grid.cell_of(*here)
    if walk.standable[cell] and walk.floor[cell] >= z - MAX_STEP:
        return None
    held = standing_cell(grid, walk, here, z)
    if held < 0 or abs(float(walk.floor[held]) - z) > MAX_STEP or not math.isfinite(float(dist[held])):
        return None
    return float(grid.cx[held]), float(grid.cy[held])


def drop_ahead(walk: Walk, grid: NavGrid, z: float, obs: Observation, here: Point, point: Point) -> bool:
    """Return True when walking as the view points, as far as the point, crosses ground a step below the player's
    (a walk along a ledge that drifts a few degrees falls off it; one along a wall slides on)."""
    heading = math.radians(obs.angle)
    return _drops_along(walk, grid, z, here, (math.cos(heading), math.sin(heading)), 0.0, math.dist(here, point))


def slide_brake(walk: Walk, grid: NavGrid, z: float, here: Point, moved: Point, path: list[int]) -> Point | None:
    """Return a point behind the player to step toward (a brake) when the way it slides, braking from now, runs over
    ground a step or more below it and the way ahead stays up, else None. A run turns its view at a ledge's corner,
    not its momentum (freedoom1 E3M3: a 32-unit bridge over a pit, bent at 45 degrees)."""
    speed = math.hypot(*moved)
    if speed * SLIDE_AHEAD < CELL or any(walk.floor[c] < z - MAX_STEP for c in path):
        return None
    if _drops_along(walk, grid, z, here, (moved[0] / speed, moved[1] / speed), CELL / 2, speed * SLIDE_AHEAD):
        return here[0] - moved[0], here[1] - moved[1]
    return None


def _drops_along(walk: Walk, grid: NavGrid, z: float, here: Point, way: Point, near: float, far: float) -> bool:
    """Return True when the line from `here` along the unit vector `way`, from `near` to `far` units out (sampled
    about every 8 units), crosses standable ground a step or more below z."""
    steps = np.linspace(near, far, max(2, int(far / 8.0)))
    cells = [grid.cell_of(here[0] + d * way[0], here[1] + d * way[1]) for d in steps]
    return any(walk.standable[c] and walk.floor[c] < z - MAX_STEP for c in cells)


def straight_clear(grid: NavGrid, walk: Walk, a: Point, b: Point) -> bool:
    """Return True when the straight walk from a to b keeps to standable cells on one floor."""
    length = math.dist(a, b)
    n = max(2, int(length / 8.0))
    xs, ys = np.linspace(a[0], b[0], n), np.linspace(a[1], b[1], n)
    if length > 0:  # the player stands anywhere in its cell: the strip half a cell either side must be clear
        nx, ny = (a[1] - b[1]) / length * CLEAR_SIDE, (b[0] - a[0]) / length * CLEAR_SIDE
        xs, ys = np.concatenate([xs - nx, xs, xs + nx]), np.concatenate([ys - ny, ys, ys + ny])
    i = np.clip(((xs - grid.x0) / CELL).astype(int), 0, grid.nx - 1)
    j = np.clip(((ys - grid.y0) / CELL).astype(int), 0, grid.ny - 1)
    cells = j * grid.nx + i
    return bool(walk.standable[cells].all() and np.ptp(walk.floor[cells]) < 1)
