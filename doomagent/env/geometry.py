"""Map geometry from the WAD: lines, sectors, things, start, exit, doors, and BSP point location."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from doomagent.env import specials
from doomagent.env.wad import NO_SIDE, Wad
from doomagent.errors import WadFormatError, WadNotFoundError

ML_BLOCKING = 0x0001
MAX_STEP = 24  # the highest floor step a player climbs
MIN_HEADROOM = 56  # the player's height
ML_TWO_SIDED = 0x0004
ML_SECRET = 0x0020
_SUBSECTOR = 0x8000


def shipped_wad(name: str = "freedoom1.wad") -> Path:
    """Return the path of a WAD that the vizdoom package ships, without importing the engine."""
    spec = importlib.util.find_spec("vizdoom")
    if spec is None or not spec.submodule_search_locations:
        raise WadNotFoundError(
            "the vizdoom package is not installed, so its bundled WADs cannot be found",
            hint="pip install vizdoom, or pass --wad PATH to your own IWAD",
        )
    path = Path(next(iter(spec.submodule_search_locations))) / name
    if not path.is_file():
        raise WadNotFoundError(
            f"{name} is not in the installed vizdoom package ({path.parent})",
            hint="reinstall vizdoom, or pass --wad PATH",
        )
    return path


def resolve_wad(wad: str | Path | None) -> Path:
    """Return the WAD path to use: the given one, or freedoom1.wad from vizdoom."""
    if wad is None:
        return shipped_wad()
    path = Path(wad).expanduser()
    if not path.exists() and path.name in ("freedoom1.wad", "freedoom2.wad") and path.parent == Path():
        return shipped_wad(path.name)
    return path


@dataclass(frozen=True)
class Door:
    """A door sector, the lines that open it, and the key it needs (None for none)."""

    sector: int
    key: specials.Key | None
    lines: tuple[int, ...]


class MapGeometry:
    """Hold one map's geometry as arrays and answer where a point lies."""

    def __init__(self, wad: Wad, map_name: str) -> None:
        m = wad.read_map(map_name)
        self.wad_path = wad.path
        self.name = m.name
        self.vertices = np.stack([m.vertices["x"], m.vertices["y"]], axis=1).astype(np.float64)
        ld = m.linedefs
        self.line_v = np.stack([ld["v1"], ld["v2"]], axis=1).astype(np.int64)
        self.line_flags = ld["flags"].astype(np.int64)
        self.line_special = ld["special"].astype(np.int64)
        self.line_tag = ld["tag"].astype(np.int64)
        side_sector = m.sidedefs["sector"].astype(np.int64)
        last = len(side_sector) - 1
        self.line_front = np.where(ld["front"] != NO_SIDE, side_sector[np.minimum(ld["front"], last)], -1)
        self.line_back = np.where(ld["back"] != NO_SIDE, side_sector[np.minimum(ld["back"], last)], -1)
        self.sector_floor = m.sectors["floor"].astype(np.int64)
        self.sector_ceiling = m.sectors["ceiling"].astype(np.int64)
        self.sector_tag = m.sectors["tag"].astype(np.int64)
        self.sector_special = m.sectors["special"].astype(np.int64)
        self.sector_floor_tex = [bytes(t).rstrip(b"\0").decode("ascii", "replace") for t in m.sectors["floor_tex"]]
        self.things = m.things
        self._nodes = m.nodes
        self._node_list = [
            (int(n["x"]), int(n["y"]), int(n["dx"]), int(n["dy"]), int(n["right"]), int(n["left"])) for n in m.nodes
        ]
        seg_line = m.segs["linedef"].astype(np.int64)
        seg_side = m.segs["side"].astype(np.int64)
        first = m.ssectors["first"].astype(np.int64)
        line = seg_line[first]
        self.subsector_sector = np.where(seg_side[first] == 0, self.line_front[line], self.line_back[line])
        self._subsector_list = self.subsector_sector.tolist()
        self._neighbours: dict[int, np.ndarray] = {}

    @classmethod
    def load(cls, map_name: str = "E1M1", wad: str | Path | None = None) -> MapGeometry:
        """Read map `map_name` from `wad` (default: vizdoom's freedoom1.wad)."""
        return cls(Wad(resolve_wad(wad)), map_name)

    @property
    def n_sectors(self) -> int:
        """Return the number of sectors."""
        return len(self.sector_floor)

    def opening(self, a: int, b: int) -> int:
        """Return the height of the gap between two sectors as the map starts (0 or less: shut)."""
        return int(
            min(self.sector_ceiling[a], self.sector_ceiling[b]) - max(self.sector_floor[a], self.sector_floor[b])
        )

    def neighbours(self, sector: int) -> np.ndarray:
        """Return the sectors across a two-sided line from `sector` (sorted, without itself)."""
        found = self._neighbours.get(sector)
        if found is None:
            f, b = self.line_front, self.line_back
            both = np.concatenate([b[(f == sector) & (b >= 0)], f[(b == sector) & (f >= 0)]])
            found = self._neighbours[sector] = np.unique(both[both != sector]).astype(np.int64)
        return found

    @cached_property
    def start(self) -> tuple[float, float, float]:
        """Return player 1's start as (x, y, angle in degrees)."""
        rows = self.things[self.things["type"] == specials.PLAYER_START]
        if not len(rows):
            raise WadFormatError(
                f"map {self.name} in {self.wad_path.name} has no player 1 start, so no one can play it",
                hint="pick another map, or add a player 1 start (thing type 1) in a map editor",
            )
        t = rows[0]
        return float(t["x"]), float(t["y"]), float(t["angle"])

    @cached_property
    def exit_lines(self) -> tuple[int, ...]:
        """Return the lines that end the level, normal exits before secret ones."""
        normal = [i for i, s in enumerate(self.line_special.tolist()) if specials.is_exit(s)]
        secret = [i for i, s in enumerate(self.line_special.tolist()) if specials.is_secret_exit(s)]
        return tuple(normal + secret)

    def line_midpoint(self, line: int) -> tuple[float, float]:
        """Return the midpoint of a line."""
        a, b = self.vertices[self.line_v[line]]
        return float(a[0] + b[0]) / 2, float(a[1] + b[1]) / 2

    @cached_property
    def doors(self) -> dict[int, Door]:
        """Return every door sector keyed by sector index (a door that never opens a player's height is none: see
        `opens_wide`)."""
        return {s: Door(s, k, tuple(lines)) for s, (k, lines) in self._door_specials.items() if self.opens_wide(s)}

    @cached_property
    def _door_specials(self) -> dict[int, tuple[specials.Key | None, list[int]]]:
        """Return, per sector a door special acts on, the key it needs and the lines that open it."""
        found: dict[int, tuple[specials.Key | None, list[int]]] = {}
        tagged: dict[int, list[int]] = {}
        for tag, sec in zip(self.sector_tag.tolist(), range(self.n_sectors)):
            if tag:
                tagged.setdefault(tag, []).append(sec)
        for i, special in enumerate(self.line_special.tolist()):
            action = specials.door_action(special)
            if action is None:
                continue
            how, key = action
            if how == "manual":
                targets = [int(self.line_back[i])] if self.line_back[i] >= 0 else []
            else:
                targets = tagged.get(int(self.line_tag[i]), [])
            for sec in targets:
                old_key, lines = found.setdefault(sec, (key, []))
                lines.append(i)
                if key and not old_key:
                    found[sec] = (key, lines)
        return dict(sorted(found.items()))

    @cached_property
    def door_targets(self) -> frozenset[int]:
        """Return every sector a door special acts on, those that never open a player's height among them (a use
        still reaches through such a door once it is open a crack)."""
        return frozenset(self._door_specials)

    def opens_wide(self, sector: int) -> bool:
        """Return False for a door sector that never opens high enough to walk through: a door rises to 4 units
        under the lowest ceiling around it (freedoom2 MAP22's door sector 266 touches a nook 24 units tall and opens 20
        units). Where that lowest ceiling may move itself (a tagged sector, or a door), the door counts as opening."""
        f, b = self.line_front, self.line_back
        others = np.concatenate([b[(f == sector) & (b >= 0)], f[(b == sector) & (f >= 0)]])
        others = others[others != sector]
        if not len(others):
            return True
        lowest = int(others[np.argmin(self.sector_ceiling[others])])
        if self.sector_tag[lowest] or lowest in self._door_specials:
            return True
        top = max(int(self.sector_ceiling[sector]), int(self.sector_ceiling[lowest]) - 4)
        return top - int(self.sector_floor[sector]) >= MIN_HEADROOM

    @cached_property
    def impassable(self) -> np.ndarray:
        """Return, per line, whether a player never passes it: one-sided, or flagged as blocking."""
        return (self.line_front < 0) | (self.line_back < 0) | (self.line_flags & ML_BLOCKING).astype(bool)

    @cached_property
    def lifts(self) -> frozenset[int]:
        """Return the sectors that lift specials lower."""
        out: set[int] = set()
        for i, special in enumerate(self.line_special.tolist()):
            if specials.is_lift(special):
                tag = int(self.line_tag[i])
                if tag:
                    out.update(np.flatnonzero(self.sector_tag == tag).tolist())
                elif self.line_back[i] >= 0:
                    out.add(int(self.line_back[i]))
        return frozenset(out)

    @cached_property
    def crushers(self) -> frozenset[int]:
        """Return the sectors that perpetual crushers (crush-and-raise specials) set moving."""
        pairs = zip(self.line_special.tolist(), self.line_tag.tolist(), strict=True)
        tags = {int(t) for s, t in pairs if t and specials.is_crush_and_raise(s)}
        return frozenset(np.flatnonzero(np.isin(self.sector_tag, list(tags))).tolist()) if tags else frozenset()

    def sector_at(self, x: float, y: float) -> int:
        """Return the sector containing point (x, y) by walking the BSP tree."""
        x, y = float(x), float(y)  # int16 inputs would overflow the cross product
        nodes = self._node_list
        child = len(nodes) - 1
        if child < 0:
            return self._subsector_list[0]
        while not child & _SUBSECTOR:
            nx, ny, ndx, ndy, right, left = nodes[child]
            child = left if _on_back_side(x, y, nx, ny, ndx, ndy) else right
        return self._subsector_list[child & ~_SUBSECTOR]

    def sectors_at(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Return the sector of every point, vectorised over arrays of coordinates."""
        n = self._nodes
        nx, ny = n["x"].astype(np.float64), n["y"].astype(np.float64)
        ndx, ndy = n["dx"].astype(np.float64), n["dy"].astype(np.float64)
        right, left = n["right"].astype(np.int64), n["left"].astype(np.int64)
        xs = np.asarray(xs, dtype=np.float64)
        ys = np.asarray(ys, dtype=np.float64)
        child = np.full(xs.shape, len(n) - 1, dtype=np.int64)
        active = (child & _SUBSECTOR) == 0
        while active.any():
            c = child[active]
            px, py = xs[active], ys[active]
            back = _on_back_side_array(px, py, nx[c], ny[c], ndx[c], ndy[c])
            child[active] = np.where(back, left[c], right[c])
            active = (child & _SUBSECTOR) == 0
        return self.subsector_sector[child & ~_SUBSECTOR]

    @cached_property
    def bounds(self) -> tuple[float, float, float, float]:
        """Return (min x, min y, max x, max y) over the vertices that lines use."""
        used = self.vertices[np.unique(self.line_v)]
        return (float(used[:, 0].min()), float(used[:, 1].min()), float(used[:, 0].max()), float(used[:, 1].max()))

    def inside_map(self, xs: np.ndarray, ys: np.ndarray, sectors: np.ndarray) -> np.ndarray:
        """Return which points lie inside the sector given for them (even-odd rule on its lines)."""
        inside = np.zeros(np.shape(xs), dtype=bool)
        a = self.vertices[self.line_v[:, 0]]
        b = self.vertices[self.line_v[:, 1]]
        for sec in np.unique(sectors):
            pick = sectors == sec
            lines = np.flatnonzero((self.line_front == sec) ^ (self.line_back == sec))
            px, py = xs[pick][:, None], ys[pick][:, None]
            ax, ay, bx, by = a[lines, 0], a[lines, 1], b[lines, 0], b[lines, 1]
            crosses = (ay > py) != (by > py)
            with np.errstate(divide="ignore", invalid="ignore"):
                xcross = ax + (py - ay) * (bx - ax) / (by - ay)
            inside[pick] = (crosses & (px < xcross)).sum(axis=1) % 2 == 1
        return inside


def _on_back_side(x: float, y: float, nx: int, ny: int, ndx: int, ndy: int) -> bool:
    # Doom's R_PointOnSide: the back (left) child holds points left of the partition line.
    if ndx == 0:
        return (ndy < 0) if x > nx else (ndy > 0)
    if ndy == 0:
        return (ndx > 0) if y > ny else (ndx < 0)
    return (y - ny) * ndx >= (x - nx) * ndy


def _on_back_side_array(
    x: np.ndarray, y: np.ndarray, nx: np.ndarray, ny: np.ndarray, ndx: np.ndarray, ndy: np.ndarray
) -> np.ndarray:
    general = (y - ny) * ndx >= (x - nx) * ndy
    vertical = np.where(x > nx, ndy < 0, ndy > 0)
    horizontal = np.where(y > ny, ndx > 0, ndx < 0)
    return np.where(ndx == 0, vertical, np.where(ndy == 0, horizontal, general))
