"""The walkable grid of a map as it stands now: built from the live sector heights (EnvConfig.live_map) and the keys
held, so a door a switch opened, a floor that was lowered or stairs that rose are walkable the moment they are, and a
lift that is up is a step too high until it comes down (its switch or trigger line is what the explorer goes for).

A cell is standable where a player centred on it fits (Doom's P_CheckPosition): 56 units of headroom, no floor
within a player's radius more than 24 units above its own, no wall or impassable line within that radius. A step
between neighbouring cells climbs at most 24 units, or more where stairs narrower than a cell climb it 24 at a time
on the way (`_stairs`; a winding stair's bent way only where it is the one way up, out of a pit); drops are free.
Doors a player pushes open (with the key their line needs) count as open, but are entered only from a cell that can push
them: on the front side of one of their push lines and within use range (a door pushed from one face only is no way
through from the other). Teleport lines lead from the cells on their front side to their destination, where a player
there could step into the sector past the line (freedoom1 E4M9's tag-19 pad stands 120 units up until a switch lowers
it); a step over a repeatable one from its front is no step at all (it teleports: freedoom1 E3M5's tag-6 lift is a
teleport pad, never ridden).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import connected_components

from doomagent.env import _triggers, specials
from doomagent.env.geometry import MAX_STEP, MIN_HEADROOM, MapGeometry
from doomagent.env.navgrid import CELL, HAZARD_COST, RADIUS, NavGrid
from doomagent.env.observation import LiveMap
from doomagent.env.rooms import RoomMap
from doomagent.policies._obstacles import SOLID_THINGS
from doomagent.policies._stairs import RISE as STAIR_RISE
from doomagent.policies._stairs import Stairs

PUSH_REACH = 60.0  # map units from a cell's centre to a door's push line within which it pushes it (use range 64)
TELEPORT_DEPTH = 24.0  # cells this close to a teleport line's front side step over it
MOVED = 2.0  # map units a sector must move to count as moved
REPEAT_TELEPORTS = frozenset({97, 208})  # teleport lines that teleport at every crossing (W1 ones only the first)
COAST = 3.0  # decisions a player's run is taken to carry it on (Doom's friction takes about ten tics to stop a run)
TELEPORT_JUMP = 40.0  # map units between two cells of a way that only a teleporter explains
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


@dataclass(frozen=True)
class Walk:
    """One build of the live grid: which cells a player can stand on, their floors, and the ways between them."""

    standable: np.ndarray  # (cells,) bool
    floor: np.ndarray  # (cells,) floor height under each cell
    graph: csr_matrix  # from -> to, weights in map units
    version: int
    hazard: np.ndarray  # (cells,) bool: a hurting floor (a step onto one weighs HAZARD_COST steps)
    winding: frozenset[tuple[int, int]] = frozenset()  # steps (from, to) up winding stairs: a bent way only (`_stairs`)

    @cached_property
    def lengths(self) -> csr_matrix:
        """Return the ways with each step at its length (a step onto a hurting floor too): how far things are."""
        plain = self.graph.copy()
        plain.data = np.where(self.hazard[plain.indices], plain.data / HAZARD_COST, plain.data)
        return plain

    def reach(self, cell: int) -> np.ndarray:
        """Return a mask of the cells reachable from `cell`."""
        from scipy.sparse.csgraph import breadth_first_order

        out = np.zeros(self.graph.shape[0], dtype=bool)
        if cell < 0 or not self.standable[cell]:
            return out
        out[breadth_first_order(self.graph, cell, directed=True, return_predecessors=False)] = True
        return out

    def field_to(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return (walk from every cell to the nearest of `cells`, the next cell on that walk)."""
        from scipy.sparse.csgraph import dijkstra

        if not len(cells):
            n = self.graph.shape[0]
            return np.full(n, np.inf), np.full(n, -9999, dtype=np.int32)
        dist, pred, _ = dijkstra(self.graph.T.tocsr(), indices=cells, min_only=True, return_predecessors=True)
        return dist, pred


class LiveGrid:
    """The static parts of a map's live grid (cells, which sectors each cell's player would touch, doors, teleports),
    and `build`, which makes a `Walk` from the heights now."""

    def __init__(self, room_map: RoomMap, skill: int = 3) -> None:
        grid, g = room_map.navgrid, room_map.geometry
        self.room_map, self.grid, self.geometry = room_map, grid, g
        self.n = len(grid.cx)
        self.sector = grid.sector
        self.inside = grid.sector >= 0
        self._sec = np.maximum(grid.sector, 0)
        self.hard, self._rows, self._touched, near = _touches(grid, g)
        self.stairs = Stairs(grid, g, *near)
        self._starts = np.flatnonzero(np.diff(np.concatenate([[-1], self._rows])) != 0)  # first entry of each row
        self._row_cells = self._rows[self._starts]
        self.things = _things_mask(room_map, skill)
        self.lifts = np.zeros(g.n_sectors, dtype=bool)
        self.lifts[list(g.lifts)] = True
        self.crushers = np.zeros(g.n_sectors, dtype=bool)
        self.crushers[list(g.crushers)] = True
        self.push_lines = _push_lines(g)  # line -> (door sector, key)
        self.pushable_door = np.zeros(g.n_sectors, dtype=bool)
        self.pushable_door[[d for d, _k in self.push_lines.values()]] = True
        self._entries = {line: _entry_cells(grid, g, line, door) for line, (door, _k) in self.push_lines.items()}
        # door sector -> the sectors round it
        self._door_sides = {door: g.neighbours(door) for door in np.flatnonzero(self.pushable_door).tolist()}
        self.teleports = _teleports(grid, g)
        self._pairs = _neighbour_pairs(grid.nx, grid.ny)
        self._teleported = [_teleported(grid, g, src, dst) for (src, dst), _step in self._pairs]
        self._repeat_teleports = [ln for ln, sp in enumerate(g.line_special.tolist()) if sp in REPEAT_TELEPORTS]
        ends = g.vertices[g.line_v[self._repeat_teleports]].reshape(-1, 2, 2).astype(np.float64)
        self._teleport_mid, self._teleport_half = ends.mean(axis=1), np.hypot(*(ends[:, 1] - ends[:, 0]).T) / 2
        self._version = 0

    def teleport_ahead(
        self, here: tuple[float, float], moved: tuple[float, float], way: list[int]
    ) -> tuple[float, float] | None:
        """Return a point back on the front side of the repeatable teleport line that the player's run (`moved`, its
        last decision's move, kept up COAST decisions) would carry it over, unless the way's teleport is that line's;
        None when none would. A walk round a teleport pad that cuts its corner is sent away (freedoom2 MAP19's
        tag-12 pad beside the way to the tag-14 lift)."""
        g, a = self.geometry, np.array([here])
        b = a + COAST * np.array([moved])
        # Only a line whose middle lies within half its length and the run's of `here` can be crossed (most decisions
        # none is: this runs every decision).
        near = np.hypot(*(self._teleport_mid - a).T) <= self._teleport_half + COAST * math.hypot(*moved)
        lines = [self._repeat_teleports[i] for i in np.flatnonzero(near)]
        line = next((ln for ln in lines if _over_from_front(g, [ln], a, b) is not None), None)
        if line is None:
            return None
        for k in range(1, len(way)):
            if math.dist(self.grid.centre(way[k - 1]), self.grid.centre(way[k])) > TELEPORT_JUMP:
                if any(ln == line and way[k - 1] in cells for ln, cells, _dest in self.teleports):
                    return None  # the way takes it
                break
        (lx, ly), (mx, my) = g.vertices[g.line_v[line]]
        length = max(math.hypot(mx - lx, my - ly), 1e-9)
        return here[0] + 32.0 * (my - ly) / length, here[1] - 32.0 * (mx - lx) / length

    def lowest_beside(self, sector: int, floors: np.ndarray) -> float:
        """Return the lowest floor next to a sector (where a lift goes down to), its own when none is lower."""
        others = self.geometry.neighbours(sector)
        return float(min(floors[sector], floors[others].min())) if len(others) else float(floors[sector])

    def lift_floors(
        self, floors: np.ndarray, lifts: list[int], first: np.ndarray | dict[int, float]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Return the floors with the lifts at their tops (the higher of their floor now and `first`, as the map
        began) and with them at their bottoms (the lowest floor beside each)."""
        top, bottom = floors.copy(), floors.copy()
        for sec in lifts:
            top[sec] = max(float(floors[sec]), float(first[sec]))
            bottom[sec] = self.lowest_beside(sec, floors)
        return top, bottom

    def reach_after(
        self,
        live: LiveMap,
        keys: frozenset[str],
        movers: frozenset[int],
        start: int,
        first_floors: np.ndarray,
        avoid: np.ndarray | None,
    ) -> np.ndarray:
        """Return the cells reachable from `start` were the sectors `movers` set moving (with `keys` held). A lift
        stops at two heights only, its top (its floor now, or as the map began: `first_floors`) and the lowest floor
        beside it: the ground reachable with it at either, and from it at either (it is ridden between them); anything
        else it moves is taken to move out of the way (a door up, a floor to where it is needed)."""
        lifts = [s for s in movers if self.lifts[s]]
        if not lifts:
            return self.build(live.floors, live.ceilings, keys, movers=movers, avoid=avoid).reach(start)
        others = movers.difference(lifts)
        top, bottom = self.lift_floors(live.floors, lifts, first_floors)
        walks = [self.build(f, live.ceilings, keys, movers=others, avoid=avoid) for f in (top, bottom)]
        after = walks[0].reach(start) | walks[1].reach(start)
        on_lift = np.flatnonzero(np.isin(self.sector, lifts) & after)
        for walk in walks:
            aboard = on_lift[walk.standable[on_lift]]
            if len(aboard):
                after |= walk.reach(int(aboard[0]))
        return after

    def next_to(self, sectors: list[int], reach: np.ndarray) -> bool:
        """Return True when one of the sectors lies next to reachable ground: only then can moving it open any (a
        cheap test before a what-if build)."""
        if not sectors:
            return False
        grown = dilate(reach, self.grid.nx, self.grid.ny, 2)  # a door thinner than a cell holds none: those touching
        return bool(grown[self.touching(sectors)].any())

    def touching(self, sectors: list[int]) -> np.ndarray:
        """Return the cells a player centred on would touch one of the sectors from: inside them, or within a
        player's radius of them (Doom carries a player whose box overlaps a rising floor up with it, so a lift
        narrower than a player is ridden from beside it)."""
        mask = np.isin(self.sector, sectors)
        mask[self._rows[np.isin(self._touched, sectors)]] = True
        return np.flatnonzero(mask)

    def door_open_ceiling(self, ceilings: np.ndarray) -> np.ndarray:
        """Return each sector's ceiling with the pushable doors open: 4 under the lowest ceiling round them."""
        out = ceilings.copy()
        for door, others in self._door_sides.items():
            if len(others):
                out[door] = max(out[door], float(ceilings[others].min()) - 4.0)
        return out

    def build(
        self,
        floors: np.ndarray,
        ceilings: np.ndarray,
        keys: frozenset[str],
        *,
        movers: frozenset[int] = frozenset(),
        avoid: np.ndarray | None = None,
    ) -> Walk:
        """Return the grid as it stands with these heights and keys; `movers`: sectors taken to move out of the way
        (what a trigger not yet set off would do), `avoid`: cells kept off."""
        pushable = np.zeros_like(self.pushable_door)
        entry = np.full(self.n, -1, dtype=np.int64)
        for line, (door, key) in self.push_lines.items():
            if key is None or key in keys:
                pushable[door] = True
                entry[self._entries[line]] = door
        # A perpetual crusher's ceiling is planned at its top, where it comes back once a cycle (_crusher.py).
        ceilings = np.where(self.crushers, np.maximum(ceilings, self.geometry.sector_ceiling), ceilings)
        closed_push = pushable & (ceilings - floors < MIN_HEADROOM)
        soft = np.zeros_like(self.lifts)
        soft[list(movers)] = True
        ceil = np.where(closed_push, self.door_open_ceiling(ceilings), ceilings)
        sec = self._sec
        # What a player centred on each cell stands on and under: the highest floor and lowest ceiling of the
        # sectors within its radius (a mover's are left out: it moves out of the way).
        touched = self._touched
        mover = soft[touched]
        top = np.maximum.reduceat(np.where(mover, -np.inf, floors[touched]), self._starts)
        low = np.minimum.reduceat(np.where(mover, np.inf, ceil[touched]), self._starts)
        floor = floors[sec].astype(np.float64)
        roof = ceil[sec].astype(np.float64)
        floor[self._row_cells] = np.maximum(floor[self._row_cells], top)
        roof[self._row_cells] = np.minimum(roof[self._row_cells], low)
        mover_cell = soft[sec]
        standable = self.inside & ~self.hard & ~self.things & ((roof - floor >= MIN_HEADROOM) | mover_cell)
        if avoid is not None:
            standable &= ~avoid
        # A closed door's region: its cells, and the cells touching it that do not push it (the strips round a door
        # in pieces are no way past it while it is shut). It is entered only from a cell that pushes it.
        door_cell = np.where(closed_push[sec] & self.inside, sec, -1)
        shut = closed_push[touched]
        cells_t, doors_t = self._rows[shut], touched[shut]
        beside = entry[cells_t] != doors_t
        door_cell[cells_t[beside]] = doors_t[beside]
        rows, cols, weights = [], [], []
        winding: list[tuple[np.ndarray, np.ndarray, float]] = []  # steps up a winding stair (a bent way only)
        hazard = self.grid.hazard
        for ((src, dst), step), teleported in zip(self._pairs, self._teleported, strict=True):
            ok = standable[src] & standable[dst]
            s, d = src[ok], dst[ok]
            for (a, b), away in zip(((s, d), (d, s)), teleported, strict=True):
                rise = floor[b] - floor[a]
                fine = (rise <= MAX_STEP) | mover_cell[a] | mover_cell[b]
                steep = np.flatnonzero(~fine & (rise <= STAIR_RISE))
                bent = np.zeros_like(fine)
                if len(steep):  # stairs narrower than a cell, climbed on the way
                    fine[steep], bent[steep] = self.stairs.climbable(a[steep], b[steep], floor, floors)
                passable = np.ones_like(fine) if away is None else ~away[ok]
                # Into a closed door from outside it: only from a cell that pushes it.
                into = door_cell[b] >= 0
                passable &= ~into | (door_cell[a] == door_cell[b]) | (entry[a] == door_cell[b])
                fine &= passable
                rows.append(a[fine])
                cols.append(b[fine])
                weights.append(np.where(hazard[b[fine]], step * HAZARD_COST, step))
                bent &= passable
                winding.append((a[bent], b[bent], step))
        for line, src_cells, dest in self.teleports:
            src_ok = src_cells[standable[src_cells]]
            beyond = int(self.geometry.line_back[line])
            if not soft[beyond]:  # the player's centre crosses the line only where it may step into the sector past it
                room = np.minimum(roof[src_ok], ceil[beyond]) - np.maximum(floor[src_ok], floors[beyond])
                src_ok = src_ok[(floors[beyond] - floor[src_ok] <= MAX_STEP) & (room >= MIN_HEADROOM)]
            if standable[dest] and len(src_ok):
                rows.append(src_ok)
                cols.append(np.full(len(src_ok), dest))
                weights.append(np.full(len(src_ok), CELL))
        self._version += 1
        graph = coo_matrix(
            (np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))), shape=(self.n, self.n)
        ).tocsr()
        graph, bent = _with_winding(graph, winding, hazard)
        return Walk(standable, floor, graph, self._version, hazard, bent)


def _with_winding(
    graph: csr_matrix, winding: list[tuple[np.ndarray, np.ndarray, float]], hazard: np.ndarray
) -> tuple[csr_matrix, frozenset[tuple[int, int]]]:
    """Return the graph with the steps up winding stairs that lead where the walk has no other way to: from one
    part of the grid to another that cannot be walked to and back (out of a pit), and those steps. Elsewhere
    the grid's own steps already climb the stair, and a bent way would only cut a corner the walk then has to steer
    round."""
    a = np.concatenate([w[0] for w in winding])
    if not len(a):
        return graph, frozenset()
    b = np.concatenate([w[1] for w in winding])
    step = np.concatenate([np.full(len(w[0]), w[2]) for w in winding])
    _n, part = connected_components(graph, directed=True, connection="strong")
    new = part[a] != part[b]
    if not new.any():
        return graph, frozenset()
    extra = coo_matrix(
        (np.where(hazard[b[new]], step[new] * HAZARD_COST, step[new]), (a[new], b[new])), shape=graph.shape
    )
    return (graph + extra.tocsr()).tocsr(), frozenset(zip(a[new].tolist(), b[new].tolist(), strict=True))


def _touches(grid: NavGrid, g: MapGeometry) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Return (per cell: a wall or impassable line lies within a player's radius of its centre; then, sorted by
    cell, the cells and the sectors across the two-sided lines within that radius: what a player there touches;
    and, sorted by cell, the cells and every line within that radius)."""
    hard = np.zeros(len(grid.cx), dtype=bool)
    rows, touched, near_rows, near_lines = [], [], [], []
    ends = zip(g.vertices[g.line_v[:, 0]], g.vertices[g.line_v[:, 1]], strict=True)
    front, back = g.line_front, g.line_back
    for line, ((ax, ay), (bx, by)) in enumerate(ends):
        span = grid.index_box(ax, ay, bx, by)
        if span is None:
            continue
        i0, i1, j0, j1 = span
        cells = (np.arange(j0, j1 + 1)[:, None] * grid.nx + np.arange(i0, i1 + 1)[None, :]).ravel()
        px, py = grid.cx[cells], grid.cy[cells]
        dx, dy = bx - ax, by - ay
        t = np.clip(((px - ax) * dx + (py - ay) * dy) / max(dx * dx + dy * dy, 1e-9), 0, 1)
        near = cells[np.hypot(ax + t * dx - px, ay + t * dy - py) < RADIUS]
        near_rows.append(near)
        near_lines.append(np.full(len(near), line))
        if g.impassable[line]:
            hard[near] = True
            continue
        rows += [near, near]
        touched += [np.full(len(near), int(front[line])), np.full(len(near), int(back[line]))]
    r = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    s = np.concatenate(touched) if touched else np.zeros(0, dtype=np.int64)
    order = np.argsort(r, kind="stable")
    nr, nl = np.concatenate(near_rows), np.concatenate(near_lines)
    by_cell = np.argsort(nr, kind="stable")
    return hard, r[order], s[order], (nr[by_cell], nl[by_cell])


def _things_mask(room_map: RoomMap, skill: int) -> np.ndarray:
    """Return the cells a solid thing (barrel, pillar, tree) stands too close to for a player."""
    g, grid = room_map.geometry, room_map.navgrid
    flag = specials.SKILL_FLAG.get(skill, specials.SKILL_FLAG[3])
    rows = [
        t
        for t in g.things
        if int(t["type"]) in SOLID_THINGS and t["flags"] & flag and not t["flags"] & specials.MULTIPLAYER_ONLY
    ]
    if not rows:
        return np.zeros(len(grid.cx), dtype=bool)
    centres = np.array([(float(t["x"]), float(t["y"])) for t in rows])
    radii = np.array([SOLID_THINGS[int(t["type"])] for t in rows])
    return grid.things_mask(centres, radii)


def _push_lines(g: MapGeometry) -> dict[int, tuple[int, str | None]]:
    """Return the lines a player pushes to open the door behind them: line -> (door sector, key it needs)."""
    out: dict[int, tuple[int, str | None]] = {}
    for line, special in enumerate(g.line_special.tolist()):
        action = specials.door_action(special)
        if action is not None and action[0] == "manual" and g.line_back[line] >= 0:
            out[line] = (int(g.line_back[line]), action[1])
    return out


def _entry_cells(grid: NavGrid, g: MapGeometry, line: int, door: int) -> np.ndarray:
    """Return the cells that push the door of `line`: on its front side, within reach, not in the door."""
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    box = (
        (grid.cx >= min(ax, bx) - PUSH_REACH)
        & (grid.cx <= max(ax, bx) + PUSH_REACH)
        & (grid.cy >= min(ay, by) - PUSH_REACH)
        & (grid.cy <= max(ay, by) + PUSH_REACH)
        & (grid.sector != door)
    )
    cells = np.flatnonzero(box)
    # The point each cell's sector was read at (a hair off its centre, see NavGrid): a centre on the line itself
    # is on the side its sector is.
    px, py = grid.cx[cells] + 0.37, grid.cy[cells] + 0.29
    dx, dy = bx - ax, by - ay
    t = np.clip(((px - ax) * dx + (py - ay) * dy) / max(dx * dx + dy * dy, 1e-9), 0, 1)
    near = np.hypot(ax + t * dx - px, ay + t * dy - py) <= PUSH_REACH
    front = (px - ax) * dy - (py - ay) * dx > 0
    return cells[near & front]


def _teleports(grid: NavGrid, g: MapGeometry) -> list[tuple[int, np.ndarray, int]]:
    """Return, per teleport line: the line, the cells on its front side that step over it, the destination's cell."""
    tagged: dict[int, int] = {}
    for t in g.things[g.things["type"] == _triggers.TELEPORT_DESTINATION]:
        x, y = float(t["x"]), float(t["y"])
        tag = int(g.sector_tag[g.sector_at(x, y)])
        if tag and tag not in tagged:
            cell = grid.nearest_walkable(x, y, reach=2)
            tagged[tag] = -1 if cell is None else int(cell)
    out = []
    for line, special in enumerate(g.line_special.tolist()):
        kind = _triggers.classify(special)
        if kind is None or kind.effect != "teleport" or kind.trigger != "walk" or g.line_back[line] < 0:
            continue  # (a one-sided line is never crossed)
        dest = tagged.get(int(g.line_tag[line]), -1)
        if dest < 0:
            continue
        (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
        dx, dy = bx - ax, by - ay
        length2 = max(dx * dx + dy * dy, 1e-9)
        px, py = grid.cx, grid.cy
        t = ((px - ax) * dx + (py - ay) * dy) / length2
        side = ((px - ax) * dy - (py - ay) * dx) / math.sqrt(length2)  # distance, positive on the front side
        cells = np.flatnonzero((t > 0.05) & (t < 0.95) & (side > 0) & (side <= TELEPORT_DEPTH))
        if len(cells):
            out.append((line, cells, dest))
    return out


def _teleported(
    grid: NavGrid, g: MapGeometry, src: np.ndarray, dst: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Return, for the steps src -> dst and dst -> src, which cross a repeatable teleport line from its front side
    (None: none do)."""
    lines = [ln for ln, special in enumerate(g.line_special.tolist()) if special in REPEAT_TELEPORTS]
    # Sampled a hair off the centres, as the grid's sectors are: map lines sit on the centres' 8-unit lattice.
    a = np.stack([grid.cx[src] + 0.37, grid.cy[src] + 0.29], axis=1)
    b = np.stack([grid.cx[dst] + 0.37, grid.cy[dst] + 0.29], axis=1)
    return _over_from_front(g, lines, a, b), _over_from_front(g, lines, b, a)


def _over_from_front(g: MapGeometry, lines: list[int], a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """Return which steps a -> b ((N, 2) points each) cross one of the lines from its front side (None: none do)."""
    hit = np.zeros(len(a), dtype=bool)
    for line in lines:
        (lx, ly), (mx, my) = g.vertices[g.line_v[line]]
        ex, ey = mx - lx, my - ly
        side_a = (a[:, 0] - lx) * ey - (a[:, 1] - ly) * ex  # positive on the front side
        side_b = (b[:, 0] - lx) * ey - (b[:, 1] - ly) * ex
        over = np.flatnonzero((side_a > 0) & (side_b < 0))
        if not len(over):
            continue
        t = side_a[over] / (side_a[over] - side_b[over])  # where the step meets the line's infinite extension
        at = a[over] + t[:, None] * (b[over] - a[over])
        u = ((at[:, 0] - lx) * ex + (at[:, 1] - ly) * ey) / max(ex * ex + ey * ey, 1e-9)
        hit[over[(u >= 0) & (u <= 1)]] = True
    return hit if hit.any() else None


def _neighbour_pairs(nx: int, ny: int) -> list[tuple[tuple[np.ndarray, np.ndarray], float]]:
    """Return each direction's (cells, their neighbours) arrays and the step's length."""
    idx = np.arange(nx * ny).reshape(ny, nx)
    out = []
    for dj, di in _DIRECTIONS:
        src = idx[max(0, -dj) : ny - max(0, dj), max(0, -di) : nx - max(0, di)].ravel()
        dst = idx[max(0, dj) : ny + min(0, dj) or None, max(0, di) : nx + min(0, di) or None].ravel()
        out.append(((src, dst), CELL * math.hypot(di, dj)))
    return out


def dilate(mask: np.ndarray, nx: int, ny: int, steps: int) -> np.ndarray:
    """Return the mask grown by `steps` cells in every direction."""
    m = mask.reshape(ny, nx).copy()
    for _ in range(steps):
        g = m.copy()
        g[1:, :] |= m[:-1, :]
        g[:-1, :] |= m[1:, :]
        g[:, 1:] |= m[:, :-1]
        g[:, :-1] |= m[:, 1:]
        m = g
    return m.ravel()


def moved(live: LiveMap, sectors: list[int] | None, floors: np.ndarray, ceilings: np.ndarray) -> bool:
    """Return True when any of the sectors (None: any at all) stands more than MOVED from the given heights."""
    if sectors is None:
        return bool((np.abs(live.floors - floors) > 0.5).any() or (np.abs(live.ceilings - ceilings) > 0.5).any())
    return bool(
        (np.abs(live.floors[sectors] - floors[sectors]) > MOVED).any()
        or (np.abs(live.ceilings[sectors] - ceilings[sectors]) > MOVED).any()
    )
