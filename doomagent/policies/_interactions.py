"""What a player can do on a map besides walking: press a switch, walk over a trigger line, shoot a target line, pick
up a key, take the exit. Read from the WAD once per map; the explorer (`policies.explorer`) picks among them by what
each would open, judged on the live grid.

Lines with the same special and tag act alike (a trigger line drawn in pieces across a corridor, two switches of one
lift): they are one interaction, done from any of its lines. Two specials on one tag are two interactions, even where
both "open" the way: on freedoom2 MAP20 one switch lowers a floor and another raises the ceiling over it, and the way
is open only once both are pressed.
"""

from __future__ import annotations

import collections
import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from doomagent.env import _triggers, specials
from doomagent.env._plan_world import KEY_NAMES, moved_sectors
from doomagent.env.observation import LiveMap
from doomagent.env.progression import ProgressionPlan
from doomagent.env.rooms import RoomMap
from doomagent.policies._livegrid import LiveGrid, Walk, moved
from doomagent.policies._sight import Sight
from doomagent.policies._use_spot import open_way, shut_ways, use_cells

Kind = Literal["switch", "walk", "shoot", "key", "exit"]
CROSS_DEPTH = 24.0  # cells this close to a walk-over line (on either side) are where it is crossed from
KEY_REACH = 44.0  # cells this close to a key on both axes (the boxes touch within 36; the walk then presses on to it)
SHOOT_RANGE = 768.0  # the farthest a target line is shot at from
SHOT_Z = 36.0  # the height over its floor a player's bullet flies at (half its 56 units, and 8 more)
# Vanilla specials that can be set off again (WR, SR, GR); Boom's generalized ones say so in their lowest bit.
REPEATABLE = frozenset(
    {72, 73, 74, 75, 76, 77, 79, 80, 81, 82, 83, 84, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 105, 106}
    | {107, 120, 126, 128, 129, 42, 43, 45, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 99, 114, 115, 116, 123}
    | {132, 134, 136, 138, 139, 46}
)
# Vanilla specials that take a floor down to the lowest floor beside it (lowers, and lifts, which come back up to
# where they stood): set off while it already lies that low, one moves nothing (`Interaction.usable`).
DOWN_TO_LOWEST = frozenset({23, 38, 60, 82, 10, 21, 62, 88, 120, 121, 122, 123})


@dataclass
class Interaction:
    """One thing to do on the map, the lines (or key) it is done at and the grid cells it is done from."""

    kind: Kind
    effect: str  # _triggers' effect (open, lift, stairs, none, exit) or "key"
    lines: tuple[int, ...]  # its lines (none for a key)
    where: tuple[float, float]  # a point of it (a line's middle, the key)
    cells: np.ndarray  # the grid cells it is done from
    moves: tuple[int, ...] = ()  # the sectors it sets moving
    key: str | None = None  # the key it needs (a locked switch); for a key, the colour it gives
    repeat: bool = False
    text: str = ""
    tries: int = 0  # walks to it begun
    uses: int = 0  # times it was set off
    failed: int = 0  # walks to it given up, or uses that moved nothing
    done: bool = False  # set off and nothing more to gain from it (a key held, a one-shot trigger used)
    rest_until: int = 0  # a repeatable one just set off is not chosen again before this decision
    opens: np.ndarray | None = field(default=None, repr=False)  # cells of new ground it was chosen to open
    beyond: int = 0  # interactions not yet tried that doing it brings within reach (the explorer's what-if)
    claims: tuple[Interaction, ...] = field(default=(), repr=False)  # those of them its what-if counted as ground
    arms: int = 0  # weapons lying on the map that doing it brings within reach (the explorer's what-if)
    behind: tuple[int, ...] = ()  # door sectors its lines face from behind: it is done only while one is open
    shut: tuple[tuple[int, ...], ...] = ()  # a switch reached only once tagged sectors open: the ways (shut_ways)
    sides: tuple[np.ndarray, np.ndarray] = field(default=(np.zeros(0, np.int64), np.zeros(0, np.int64)), repr=False)
    live_cells: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)  # doable from now
    on_mover: int = -1  # a key on a sector that moves: that sector
    mover_cells: np.ndarray | None = field(default=None, repr=False)  # and where it is taken from, its floor anywhere
    down_to_lowest: bool = False  # it takes its floors down to the lowest floor beside them (DOWN_TO_LOWEST)
    shot_from: tuple[int, np.ndarray] | None = field(default=None, repr=False)  # a target's: (heights, cells) kept

    def usable(
        self, room_map: RoomMap, floors: np.ndarray, ceilings: np.ndarray, first: np.ndarray | None = None
    ) -> bool:
        """Return False while every door it stands behind is shut, while a use cannot reach it yet (shut), or while
        setting it off would move nothing: the floors it takes down lie no higher than any beside them (freedoom1
        E4M2's tag-10 switches, pressed in vain until a trigger line raises their floors; a lift judged at its top,
        the higher of its floor now and `first`, its floor as the map began: one down for a while comes back up)."""
        if self.behind and (ceilings[list(self.behind)] <= floors[list(self.behind)]).all():
            return False
        if self.down_to_lowest and self.moves:
            g = room_map.geometry
            top = np.maximum(floors, first) if first is not None and self.effect == "lift" else floors
            if all(floors[g.neighbours(s)].min(initial=math.inf) >= top[s] - 0.5 for s in self.moves):
                return False
        return not self.shut or open_way(room_map, self.shut, floors, ceilings)


def interactions(room_map: RoomMap, *, skill: int = 3) -> list[Interaction]:
    """Return every interaction of the map: switches, trigger and target lines grouped by what they do, keys, exits
    (teleporters and doors a player pushes are part of the live grid, not interactions)."""
    g = room_map.geometry
    tagged: dict[int, list[int]] = {}
    for sec, tag in enumerate(g.sector_tag.tolist()):
        if tag:
            tagged.setdefault(tag, []).append(sec)
    groups: dict[tuple[object, ...], list[int]] = {}
    for line, special in enumerate(g.line_special.tolist()):
        kind = _triggers.classify(special)
        if kind is None or kind.trigger == "push" or kind.effect in ("teleport", "line_teleport", "none"):
            continue
        if kind.effect in ("exit", "secret_exit"):
            key: tuple[object, ...] = ("exit", kind.effect, kind.trigger, line)
        else:
            tag = int(g.line_tag[line])
            if not tag:
                continue  # a tagless switch or trigger acts on nothing a player needs
            key = (special, tag, special in REPEATABLE or _generalized_repeat(special))
        groups.setdefault(key, []).append(line)
    out: list[Interaction] = []
    for key, lines in groups.items():
        first = lines[0]
        kind = _triggers.classify(int(g.line_special[first]))
        assert kind is not None
        if key[0] == "exit":
            if kind.effect == "secret_exit":
                continue
            trigger: Kind = "exit"
        else:
            trigger = {"switch": "switch", "walk": "walk", "shoot": "shoot"}[kind.trigger]  # type: ignore[assignment]
        tag = int(g.line_tag[first])
        moves = () if trigger == "exit" else tuple(moved_sectors(g, kind.effect, tagged.get(tag, [])))
        item = Interaction(
            trigger,
            kind.effect,
            tuple(lines),
            g.line_midpoint(first),
            np.zeros(0, dtype=np.int64),
            moves,
            kind.key,
            bool(key[-1]) if trigger != "exit" else False,
            _text(trigger, kind, tag),
        )
        item.down_to_lowest = trigger != "exit" and key[0] in DOWN_TO_LOWEST
        _place(room_map, item, kind.trigger)
        if trigger == "switch":  # a switch on the back wall of a door (freedoom1 E2M1's, behind its yellow-key doors)
            item.behind = tuple(sorted({int(g.line_front[ln]) for ln in lines} & g.door_targets))
        if len(item.cells):
            out.append(item)
    out.extend(_keys(room_map, skill))
    return out


def _generalized_repeat(special: int) -> bool:
    return 0x2F80 <= special < 0x8000 and bool(special & 1)


def _text(trigger: Kind, kind: _triggers.Special, tag: int) -> str:
    if trigger == "exit":
        return "the exit line" if kind.trigger == "walk" else "the exit switch"
    what = {
        "open": "opens a door" if kind.door else "moves a floor",
        "stairs": "raises stairs",
        "lift": "lowers a lift",
    }
    locked = f"{kind.key}-key " if kind.key else ""
    noun = {"switch": "switch", "walk": "trigger line", "shoot": "target"}[trigger]
    return f"{locked}{noun} (tag {tag}) that {what.get(kind.effect, 'does nothing a player needs')}"


def _place(room_map: RoomMap, item: Interaction, trigger: str) -> None:
    """Fill in the cells an interaction is done from: within use range in front of a switch, either side of a trigger
    line, in clear view in front of a target line."""
    grid = room_map.navgrid
    if trigger == "switch":
        item.cells = np.unique(np.concatenate([use_cells(room_map, line) for line in item.lines]))
        if not len(item.cells):  # used from nowhere as the map begins: from where a floor moved out of the way
            placed = [use_cells(room_map, line, moved=True) for line in item.lines]
            item.cells = np.unique(np.concatenate(placed))
            ways = {way for line, at in zip(item.lines, placed, strict=True) for way in shut_ways(room_map, line, at)}
            item.shut = () if () in ways else tuple(sorted(ways))
        return
    if trigger == "walk":
        front, back = [], []
        for line in item.lines:
            f, b = _line_sides(room_map, line, CROSS_DEPTH, anywhere=True)
            front.append(f)
            back.append(b)
        item.sides = (np.unique(np.concatenate(front)), np.unique(np.concatenate(back)))
        item.cells = np.union1d(*item.sides)
        return
    cells = []
    for line in item.lines:  # shoot: from in front of it, with nothing shut between (a shot flies as a use reaches)
        aim = target_point(room_map, line)
        ahead, _ = _line_sides(room_map, line, SHOOT_RANGE)
        for c in ahead[:: max(1, len(ahead) // 400)]:
            if room_map.clear_use(grid.centre(int(c)), aim):
                cells.append(int(c))
    item.cells = np.array(sorted(set(cells)), dtype=np.int64)


def target_point(room_map: RoomMap, line: int) -> tuple[float, float]:
    """Return the point a shot at a target line aims for: 2 units in front of its middle (the line is itself a wall,
    one-sided or the face of a shut sector, and a sight line ending on it counts as blocked: freedoom2 MAP20's target,
    every one of MAP11's)."""
    g = room_map.geometry
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    length = max(math.hypot(bx - ax, by - ay), 1e-9)
    mx, my = g.line_midpoint(line)
    return mx + 2.0 * (by - ay) / length, my - 2.0 * (bx - ax) / length


def aim_at_target(room_map: RoomMap, item: Interaction, here: tuple[float, float]) -> tuple[float, float]:
    """Return where to shoot a target from here: the nearest of its lines in clear view (one interaction may be several
    lines far apart: freedoom1 E2M8's tag-3 targets open three closets across the map), else its first line."""
    points = [target_point(room_map, line) for line in item.lines]
    seen = [p for p in points if room_map.clear_use(here, p)]
    return min(seen, key=lambda p: math.dist(here, p)) if seen else points[0]


def shot_cells(item: Interaction, live_grid: LiveGrid, sight: Sight, live: LiveMap) -> np.ndarray:
    """Return the cells of a target's (`item.cells`, in view in front of its lines) from which a level shot gets to one
    of its lines at the heights now (`sight`: the map's sight lines; the explorer shares its bosses'): freedoom2
    MAP11's targets are the back walls of windows 88 to 120 units up, shot only from floors 52 to 84 up; from the floor
    below, every shot hit the wall under them and moved nothing."""
    key = hash((live.floors.tobytes(), live.ceilings.tobytes()))
    if item.shot_from is not None and item.shot_from[0] == key:
        return item.shot_from[1]
    grid, sector = live_grid.grid, live_grid.sector
    points = [target_point(live_grid.room_map, line) for line in item.lines]
    cells = [
        int(c)
        for c in item.cells.tolist()
        if any(
            sight.level_shot(live, grid.centre(c), float(live.floors[sector[c]]) + SHOT_Z, p)
            for p in points
            if math.dist(grid.centre(c), p) <= SHOOT_RANGE + 8.0
        )
    ]
    item.shot_from = (key, np.array(cells, dtype=np.int64))
    return item.shot_from[1]


def walked_over(room_map: RoomMap, item: Interaction) -> bool:
    """Return True for an interaction done by walking over its line (a trigger, a walked exit)."""
    g = room_map.geometry
    return item.kind == "walk" or (item.kind == "exit" and specials.is_walked_exit(int(g.line_special[item.lines[0]])))


def crossing_cells(item: Interaction, walk: Walk) -> np.ndarray:
    """Return the cells a line walked over is crossed from now: beside it, with a step over it to a cell on its
    other side (a trigger on the edge of a ledge is crossed from the top only)."""
    front, back = item.sides
    out = []
    for a, b in ((front, back), (back, front)):
        if len(a) and len(b):
            steps = walk.graph[a][:, b]
            out.append(a[np.diff(steps.indptr) > 0])
    return np.unique(np.concatenate(out)) if out else np.zeros(0, dtype=np.int64)


def _line_sides(room_map: RoomMap, line: int, depth: float, anywhere: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Return the walkable cells within `depth` of a line, beside its length, on its front side and on its back
    (`anywhere`: any cell of a sector, walkable as the map begins or not; the live grid tells which are now: freedoom2
    MAP03's exit line runs along a platform's edge, a wall until a switch lowers the platform)."""
    g, grid = room_map.geometry, room_map.navgrid
    (ax, ay), (bx, by) = g.vertices[g.line_v[line]]
    dx, dy = bx - ax, by - ay
    length = max(math.hypot(dx, dy), 1e-9)
    px, py = grid.cx + 0.37, grid.cy + 0.29  # where each cell's sector was read (a centre may lie on the line)
    t = ((px - ax) * dx + (py - ay) * dy) / (length * length)
    side = ((px - ax) * dy - (py - ay) * dx) / length  # positive on the front side
    beside = (t >= 0) & (t <= 1) & (np.abs(side) <= depth) & ((grid.sector >= 0) if anywhere else grid.walkable)
    return np.flatnonzero(beside & (side > 0)), np.flatnonzero(beside & (side < 0))


def _keys(room_map: RoomMap, skill: int) -> list[Interaction]:
    g, grid = room_map.geometry, room_map.navgrid
    flag = specials.SKILL_FLAG.get(skill, specials.SKILL_FLAG[3])
    out = []
    for t in g.things:
        ttype, flags = int(t["type"]), int(t["flags"])
        colour = specials.KEY_THINGS.get(ttype)
        if colour is None or not flags & flag or flags & specials.MULTIPLAYER_ONLY:
            continue
        x, y = float(t["x"]), float(t["y"])
        # Doom picks a thing up when the player's box touches its box (16 + 20 units on each axis) from a floor at
        # most 56 units under it or 8 over it: a key on a ledge is taken from the floor below (freedoom1 E1M2's red
        # key, 32 units up in an alcove).
        # A key on a floor that moves is taken from wherever that floor can come to rest beside (freedoom2 MAP20's
        # blue keycard: 1,624 units up on a pillar until a switch lowers it to the floor beside); the explorer keeps
        # those of the cells its floor stands at now.
        # (The what-if judges it by the cells with its floor as the map begins.)
        sector = g.sector_at(x, y)
        near = (np.abs(grid.cx - x) <= KEY_REACH) & (np.abs(grid.cy - y) <= KEY_REACH) & (grid.sector >= 0)
        cells = np.flatnonzero(near & key_takes(float(g.sector_floor[sector]) - grid.floor))
        moving = None
        if sector in g.lifts or g.sector_tag[sector]:
            floors = [float(f) for f in g.sector_floor[[sector, *g.neighbours(sector).tolist()]]]
            moving = np.flatnonzero(near & np.any([key_takes(f - grid.floor) for f in floors], axis=0))
        if len(cells) or (moving is not None and len(moving)):
            item = Interaction("key", "key", (), (x, y), cells, key=colour, text=f"the {KEY_NAMES[ttype]}")
            if moving is not None:
                item.on_mover, item.mover_cells = sector, moving
            out.append(item)
    return out


def key_takes(rise: np.ndarray) -> np.ndarray:
    """Return where a key this far above the floor (per cell) is taken from."""
    return (rise <= 56) & (rise >= -8)


def plan_steps(plan: ProgressionPlan, items: list[Interaction]) -> list[Interaction]:
    """Return the interactions the plan's objectives are, in its order (its doors, teleporters and bosses are the
    grid's and the fight's)."""
    out: list[Interaction] = []
    for objective in plan.objectives:
        if objective.kind == "key":
            match = [i for i in items if i.kind == "key" and math.dist(i.where, objective.where) < 1.0]
        elif objective.line is not None and objective.kind in ("switch", "walk", "shoot", "exit"):
            match = [i for i in items if objective.line in i.lines]
        else:
            match = []
        out.extend(m for m in match[:1] if m not in out)
    return out


def set_off_already(
    items: list[Interaction], live: LiveMap, floors: np.ndarray, ceilings: np.ndarray
) -> list[Interaction]:
    """Mark done, and return, the one-shot interactions whose sectors have moved since the map began (`floors`,
    `ceilings`): a trigger line crossed on the way somewhere else, which moves nothing when crossed again. Only where
    no other of `items` moves the same sectors (that one may have moved them)."""
    movers = collections.Counter(item.moves for item in items)
    out = []
    for item in items:
        if item.done or item.repeat or not item.moves or movers[item.moves] > 1:
            continue
        if moved(live, list(item.moves), floors, ceilings):
            item.done = True
            out.append(item)
    return out
