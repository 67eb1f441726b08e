"""The map as the progression planner sees it: portals between sectors with their step and headroom,
what sets each moving sector off (a door's key, a switch's or trigger's tag, a boss death), the actions
(keys, switches, triggers, bosses) and exits, teleporters, reachability and walking distances per state.

A state is the set of tokens gained so far: `key:blue`, `tag:7`, `exit`.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from doomagent.env import _plan_gates, _triggers, specials
from doomagent.env._plan_gates import segment_distance as _segment_distance
from doomagent.env.geometry import MAX_STEP, MIN_HEADROOM, ML_BLOCKING, MapGeometry
from doomagent.env.specials import Key

PICKUP_HEIGHT = 56  # a thing this far above the player's feet is still touched (P_TouchSpecialThing)
PICKUP_REACH = 36  # player radius 16 + a key's radius 20
FROM = "from:"  # an opener's token naming the sector a door is pushed from (not a token a state gains)
USE_RANGE = 64  # how far a player reaches to use a line

_Dest = tuple[int, tuple[float, float]]  # a teleport's destination: sector and point
ObjectiveKind = Literal["key", "switch", "walk", "shoot", "boss", "door", "teleport", "exit"]
KEY_NAMES = {5: "blue keycard", 6: "yellow keycard", 13: "red keycard", 40: "blue skull key", 39: "yellow skull key"}
KEY_NAMES[38] = "red skull key"


@dataclass(frozen=True)
class _Action:
    kind: ObjectiveKind
    sites: tuple[int, ...]  # sectors it can be done from
    where: tuple[float, float]
    gives: frozenset[str]
    needs: frozenset[str] = frozenset()
    text: str = ""
    key: Key | None = None
    tag: int | None = None
    line: int | None = None
    moves: tuple[int, ...] = ()
    crossings: tuple[tuple[int, int, bool], ...] = ()  # a walk-over's (from, to, ok as the map starts)


@dataclass
class _World:
    """The map as the planner sees it: portals, what opens each moving sector, the actions and exits."""

    g: MapGeometry
    strict: bool = True  # False: any step can be climbed (for lifts and raised floors no special shows)
    portals: dict[int, list[tuple[int, int, bool]]] = field(default_factory=dict)  # sector -> (line, other, ok)
    adjacent: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # sector -> (line, other), all
    openers: dict[int, list[frozenset[str]]] = field(default_factory=dict)  # sector -> alternative needs
    teleports: dict[int, list[tuple[int, int, tuple[float, float]]]] = field(default_factory=dict)
    actions: list[_Action] = field(default_factory=list)
    exits: list[_Action] = field(default_factory=list)
    secret_exits: list[_Action] = field(default_factory=list)
    needed: set[str] = field(default_factory=set)  # tokens something needs (keys worth fetching)
    gates: dict[int, _plan_gates.Gate] = field(default_factory=dict)  # opening -> its barred rows, see _plan_gates

    def __post_init__(self) -> None:
        g = self.g
        tagged: dict[int, list[int]] = {}
        for sec, tag in enumerate(g.sector_tag.tolist()):
            if tag:
                tagged.setdefault(tag, []).append(sec)
        mids = {}
        for line in range(len(g.line_v)):
            f, b = int(g.line_front[line]), int(g.line_back[line])
            if f >= 0 and b >= 0 and f != b:  # a use reaches across lines that block walking
                self.adjacent.setdefault(f, []).append((line, b))
                self.adjacent.setdefault(b, []).append((line, f))
            if f >= 0 and b >= 0 and f != b and not g.line_flags[line] & ML_BLOCKING:
                self.portals.setdefault(f, []).append((line, b, self._static_ok(f, b)))
                self.portals.setdefault(b, []).append((line, f, self._static_ok(b, f)))
            mids[line] = g.line_midpoint(line)
        dests = self._destinations(tagged)
        for line, special in enumerate(g.line_special.tolist()):
            kind = _triggers.classify(special)
            if kind is None:
                continue
            self._add_line(line, kind, tagged, dests, mids[line])
        self._add_things()
        self._add_bosses(tagged)
        self.gates = _plan_gates.gates(g, set(g.doors) | set(g.lifts))

    def _static_ok(self, src: int, dst: int, *, strict: bool | None = None) -> bool:
        g = self.g
        up = g.sector_floor[dst] - g.sector_floor[src] if (self.strict if strict is None else strict) else 0
        return bool(
            up <= MAX_STEP and g.opening(src, dst) >= MIN_HEADROOM and g.sector_ceiling[dst] - g.sector_floor[dst] >= 56
        )

    def _may_move(self, *sectors: int) -> bool:
        """Return True if any of the sectors can move (a door, even one that opens a crack only; a lift; a tagged
        sector)."""
        g = self.g
        return any(s in g.door_targets or s in g.lifts or g.sector_tag[s] != 0 for s in sectors)

    def _destinations(self, tagged: dict[int, list[int]]) -> dict[int, tuple[int, tuple[float, float]]]:
        """Return, per tag, the sector and point of the teleport destination in a sector with that tag."""
        g = self.g
        out: dict[int, tuple[int, tuple[float, float]]] = {}
        secs_tag = {s: t for t, ss in tagged.items() for s in ss}
        for t in g.things[g.things["type"] == _triggers.TELEPORT_DESTINATION]:
            x, y = float(t["x"]), float(t["y"])
            sec = g.sector_at(x, y)
            tag = secs_tag.get(sec)
            if tag is not None and tag not in out:
                out[tag] = (sec, (x, y))
        return out

    def _add_line(
        self,
        line: int,
        kind: _triggers.Special,
        tagged: dict[int, list[int]],
        dests: dict[int, tuple[int, tuple[float, float]]],
        mid: tuple[float, float],
    ) -> None:
        g = self.g
        front, back = int(g.line_front[line]), int(g.line_back[line])
        tag = int(g.line_tag[line])
        needs = frozenset({f"key:{kind.key}"}) if kind.key else frozenset()
        if kind.key:
            self.needed.add(f"key:{kind.key}")
        if kind.effect in ("teleport", "line_teleport"):
            self._add_teleport(line, kind, dests)
            return
        sites = self._sites(line, kind.trigger, front, back)
        crossings = self._crossings(line) if kind.trigger == "walk" else ()
        if kind.trigger == "walk" and not crossings:
            sites = ()  # a blocking line is never walked over
        if kind.effect in ("exit", "secret_exit"):
            if sites:
                name = "the exit line" if kind.trigger == "walk" else "the exit switch"
                act = _Action("exit", sites, mid, frozenset({"exit"}), needs, name, line=line, crossings=crossings)
                (self.exits if kind.effect == "exit" else self.secret_exits).append(act)
            return
        if kind.effect == "none":
            return
        if kind.manual or (tag == 0 and back >= 0):
            if back >= 0 and (not kind.door or g.opens_wide(back)):  # pushed by a player standing on its front side
                self.openers.setdefault(back, []).append(needs | {f"{FROM}{front}"})
            return
        moves = self._moved(kind.effect, tagged.get(tag, []))
        if kind.door:  # a door that never opens a player's height opens no way
            moves = [sec for sec in moves if g.opens_wide(sec)]
        if not moves or not sites:
            return
        token = frozenset({f"tag:{tag}"})
        for sec in moves:
            self.openers.setdefault(sec, []).append(token)
        what = {"open": "opens a door" if kind.door else "moves a floor", "stairs": "raises stairs"}
        noun = {"switch": "switch", "walk": "trigger line", "shoot": "target", "push": "switch"}[kind.trigger]
        text = f"{kind.key + '-key ' if kind.key else ''}{noun}"
        self.actions.append(
            _Action(
                kind.trigger if kind.trigger != "push" else "switch",
                sites,
                mid,
                token,
                needs,
                f"{text} that {what.get(kind.effect, 'lowers a lift')}",
                kind.key,
                tag,
                line,
                tuple(moves),
                crossings,
            )
        )

    def _add_teleport(self, line: int, kind: _triggers.Special, dests: dict[int, _Dest]) -> None:
        g = self.g
        front, tag = int(g.line_front[line]), int(g.line_tag[line])
        if kind.effect == "teleport" and kind.trigger == "walk" and front >= 0 and tag in dests:
            self.teleports.setdefault(front, []).append((line, *dests[tag]))
        others = [o for o in np.flatnonzero(g.line_tag == tag).tolist() if o != line]
        if kind.effect == "line_teleport" and front >= 0 and others and g.line_front[others[0]] >= 0:
            o = others[0]
            self.teleports.setdefault(front, []).append((line, int(g.line_front[o]), g.line_midpoint(o)))

    def _crossings(self, line: int) -> tuple[tuple[int, int, bool], ...]:
        """Return the ways over a walk-over line: (from, to, crossable as the map starts); none when it blocks."""
        g = self.g
        front, back = int(g.line_front[line]), int(g.line_back[line])
        if front < 0 or back < 0 or g.line_flags[line] & ML_BLOCKING:
            return ()
        if front == back:  # a line drawn across the floor of one sector
            return ((front, front, True),)
        return ((front, back, self._static_ok(front, back)), (back, front, self._static_ok(back, front)))

    def _sites(self, line: int, trigger: _triggers.Trigger, front: int, back: int) -> tuple[int, ...]:
        """Return the sectors a line can be set off from: either side for a walk-over (which side can be crossed
        from depends on the state: see _World.sites), else its front sector and the sectors next to it within USE
        range of the line through openings (switches sit in shallow, low alcoves; a gap shut for good, where nothing
        moves, is no opening, and the switch's own line is used from its front alone)."""
        if trigger == "walk":
            return tuple(x for x in (front, back) if x >= 0)
        if front < 0:
            return ()
        g = self.g
        mid = g.line_midpoint(line)
        out, todo = [front], [front]
        while todo:  # a use reaches through openings: every sector within range of the line counts
            here = todo.pop()
            for portal, other in self.adjacent.get(here, ()):
                if portal == line or (g.opening(here, other) <= 0 and not self._may_move(here, other)):
                    continue  # never from behind the switch's own line, nor through a gap shut for good
                a, b = g.vertices[g.line_v[portal]]
                if other not in out and _segment_distance(mid, a, b) <= USE_RANGE:
                    out.append(other)
                    todo.append(other)
        return tuple(out)

    def _moved(self, effect: str, sectors: list[int]) -> list[int]:
        """Return the sectors an effect moves (see moved_sectors)."""
        return moved_sectors(self.g, effect, sectors)

    def _add_things(self) -> None:
        g = self.g
        for t in g.things:
            ttype, flags = int(t["type"]), int(t["flags"])
            if ttype in specials.KEY_THINGS and not flags & specials.MULTIPLAYER_ONLY:
                x, y = float(t["x"]), float(t["y"])
                colour = specials.KEY_THINGS[ttype]
                self.actions.append(
                    _Action(
                        "key",
                        self._pickup_sites(x, y),
                        (x, y),
                        frozenset({f"key:{colour}"}),
                        text=f"the {KEY_NAMES[ttype]}",
                        key=colour,
                    )
                )

    def _pickup_sites(self, x: float, y: float) -> tuple[int, ...]:
        """Return the sectors a thing at (x, y) can be picked up from: its own, and a neighbour it stands
        next to when its floor is at most 56 units above the neighbour's (Doom touches things that high)."""
        g = self.g
        sec = g.sector_at(x, y)
        out = [sec]
        for line, other, _ok in self.portals.get(sec, ()):
            a, b = g.vertices[g.line_v[line]]
            rise = g.sector_floor[sec] - g.sector_floor[other]
            if other not in out and -8 <= rise <= PICKUP_HEIGHT and _segment_distance((x, y), a, b) <= PICKUP_REACH:
                out.append(other)
        return tuple(out)

    def _add_bosses(self, tagged: dict[int, list[int]]) -> None:
        g = self.g
        types = g.things["type"].tolist()
        for pattern, ttype, name, tag in _triggers.BOSS_DEATHS:
            if g.name.upper() != pattern or ttype not in types:
                continue
            rows = g.things[g.things["type"] == ttype]
            where = (float(rows[0]["x"]), float(rows[0]["y"]))
            sites = tuple(dict.fromkeys(g.sector_at(float(r["x"]), float(r["y"])) for r in rows))
            plural = f"every {name}" if len(rows) > 1 else f"the {name}"
            if tag is None:
                self.exits.append(_Action("boss", sites, where, frozenset({"exit"}), text=f"kill {plural}"))
                continue
            moves = tuple(tagged.get(tag, []))
            for sec in moves:
                self.openers.setdefault(sec, []).append(frozenset({f"tag:{tag}"}))
            self.actions.append(
                _Action("boss", sites, where, frozenset({f"tag:{tag}"}), text=f"kill {plural}", tag=tag, moves=moves)
            )
        if _triggers.BOSS_BRAIN in types:
            row = g.things[g.things["type"] == _triggers.BOSS_BRAIN][0]
            where = (float(row["x"]), float(row["y"]))
            sec = g.sector_at(*where)
            near = {sec} | {o for _line, o, _ok in self.portals.get(sec, [])}
            self.exits.append(
                _Action("boss", tuple(sorted(near)), where, frozenset({"exit"}), text="kill the Icon of Sin")
            )

    # --- search -------------------------------------------------------------------------------------------

    def openers_from(self, sec: int, side: int | None) -> list[frozenset[str]]:
        """Return what sets this sector moving, less its side tokens: with `side`, only the ways that work for a
        player coming from that sector (a door locked on one side and plain on the other opens from the plain
        side alone)."""
        out = []
        for need in self.openers.get(sec, ()):
            sides = {t for t in need if t.startswith(FROM)}
            if side is None or not sides or f"{FROM}{side}" in sides:
                out.append(need - sides)
        return out

    def active(self, sec: int, state: frozenset[str], side: int | None = None) -> bool:
        """Return True when something has set this sector moving (or it needs nothing: a plain door); with
        `side`, something that works from that sector (see openers_from)."""
        return any(need <= state for need in self.openers_from(sec, side))

    def sites(self, act: _Action, state: frozenset[str]) -> tuple[int, ...]:
        """Return the sectors an action can be done from in this state: a walk-over line from the sides it can be
        crossed from now (a trigger behind a door opened from the far side alone, or on the lip of a floor that
        a switch lowers, is crossed only once that is done); any other action from its sites."""
        if not act.crossings:
            return act.sites
        return tuple(dict.fromkeys(s for s, o, ok in act.crossings if self.crossable(ok, s, o, state)))

    def crossable(self, line_ok: bool, src: int, dst: int, state: frozenset[str], line: int | None = None) -> bool:
        """Return True when a player can cross from src to dst in this state (over `line`: not while closed
        doors bar it, see _plan_gates)."""
        rows = self.gates.get(line) if line is not None else None
        if rows and not all(any(all(self.active(d, state) for d in doors) for doors in row) for row in rows):
            return False  # a row of posts with no point freed yet
        if dst in self.openers:
            if self.active(dst, state, side=src):
                return True
            # A mover not yet set off keeps its start heights (a closed door stays closed), its steps too when any
            # step may be climbed: a floor a known special lowers is no lift the specials do not show (freedoom1
            # E2M6's blue key stands 128 units up on sector 3 until switch 1040 lowers it).
            return line_ok and (self.strict or self._static_ok(src, dst, strict=True))
        return line_ok or self.active(src, state)

    def reach(self, start: Iterable[int], state: frozenset[str]) -> set[int]:
        """Return the sectors reachable from `start` in this state (teleporters included)."""
        seen = set(start)
        todo = list(seen)
        while todo:
            sec = todo.pop()
            for line, other, ok in self.portals.get(sec, ()):
                if other not in seen and self.crossable(ok, sec, other, state, line):
                    seen.add(other)
                    todo.append(other)
            for _line, dest, _pt in self.teleports.get(sec, ()):
                if dest not in seen:
                    seen.add(dest)
                    todo.append(dest)
        return seen

    def walk(self, point: tuple[float, float], sec: int, state: frozenset[str]) -> _Walk:
        """Return walking distances from `point` (in sector `sec`) to everywhere reachable in this state."""
        g = self.g
        dist: dict[object, float] = {}
        prev: dict[object, object] = {}
        pos: dict[object, tuple[float, float]] = {"src": point}
        node_sector: dict[object, int] = {"src": sec}
        heap: list[tuple[float, int, object]] = [(0.0, 0, "src")]
        best: dict[object, float] = {"src": 0.0}
        counter = 1
        by_sector: dict[int, list[object]] = {}
        while heap:
            d, _, node = heapq.heappop(heap)
            if node in dist:
                continue
            dist[node] = d
            here, s = pos[node], node_sector[node]
            by_sector.setdefault(s, []).append(node)
            steps: list[tuple[object, tuple[float, float], int]] = []
            for line, other, ok in self.portals.get(s, ()):
                if self.crossable(ok, s, other, state, line):
                    steps.append(((line, other), g.line_midpoint(line), other))
            for line, dest, pt in self.teleports.get(s, ()):
                steps.append((("T", line), pt, dest))
            for nxt, p, o in steps:
                if nxt in dist:
                    continue
                if isinstance(nxt, tuple) and nxt[0] == "T":
                    cost = math.dist(here, g.line_midpoint(nxt[1]))  # walk to the teleporter; arriving is free
                else:
                    cost = math.dist(here, p)
                nd = d + cost
                if nd < best.get(nxt, math.inf):
                    best[nxt] = nd
                    prev[nxt] = node
                    pos[nxt] = p
                    node_sector[nxt] = o
                    heapq.heappush(heap, (nd, counter, nxt))
                    counter += 1
        return _Walk(dist, prev, pos, node_sector, by_sector)


@dataclass
class _Walk:
    dist: dict[object, float]
    prev: dict[object, object]
    pos: dict[object, tuple[float, float]]
    sector: dict[object, int]
    by_sector: dict[int, list[object]]

    def to(self, sites: Iterable[int], where: tuple[float, float]) -> tuple[float, object | None, int | None]:
        """Return (distance, last node, sector) of the nearest way to `where` through one of `sites`."""
        best: tuple[float, object | None, int | None] = (math.inf, None, None)
        for sec in sites:
            for node in self.by_sector.get(sec, ()):
                d = self.dist[node] + math.dist(self.pos[node], where)
                if d < best[0]:
                    best = (d, node, sec)
        return best


def moved_sectors(g: MapGeometry, effect: str, sectors: list[int]) -> list[int]:
    """Return the sectors an effect moves: the tagged ones, and for stairs each step built on from them (the next
    sector through a line of the last one, with the first one's floor texture)."""
    if effect != "stairs":
        return sectors
    out = list(sectors)
    for first in sectors:
        sec, seen = first, {first}
        while True:
            nxt = None
            for line in np.flatnonzero(g.line_front == sec).tolist():
                b = int(g.line_back[line])
                if b >= 0 and b not in seen and g.sector_floor_tex[b] == g.sector_floor_tex[first]:
                    nxt = b
                    break
            if nxt is None:
                break
            seen.add(nxt)
            out.append(nxt)
            sec = nxt
    return out
