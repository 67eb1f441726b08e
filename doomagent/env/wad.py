"""Read Doom WAD files: the lump directory and the binary map lumps of a Doom-format map."""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from doomagent.errors import MapNotFoundError, WadFormatError, WadNotFoundError

MAP_NAME = re.compile(r"^(E[1-9]M[1-9]|MAP[0-9][0-9])$")
_MAP_LUMPS = ("THINGS", "LINEDEFS", "SIDEDEFS", "VERTEXES", "SEGS", "SSECTORS", "NODES", "SECTORS")

# Doom (not Hexen, not UDMF) map lump records, little-endian.
THING = np.dtype([("x", "<i2"), ("y", "<i2"), ("angle", "<i2"), ("type", "<i2"), ("flags", "<i2")])
LINEDEF = np.dtype(
    [
        ("v1", "<u2"),
        ("v2", "<u2"),
        ("flags", "<u2"),
        ("special", "<u2"),
        ("tag", "<u2"),
        ("front", "<u2"),
        ("back", "<u2"),
    ]
)
SIDEDEF = np.dtype(
    [("xoff", "<i2"), ("yoff", "<i2"), ("upper", "S8"), ("lower", "S8"), ("middle", "S8"), ("sector", "<u2")]
)
VERTEX = np.dtype([("x", "<i2"), ("y", "<i2")])
SEG = np.dtype([("v1", "<u2"), ("v2", "<u2"), ("angle", "<i2"), ("linedef", "<u2"), ("side", "<i2"), ("offset", "<i2")])
SSECTOR = np.dtype([("count", "<u2"), ("first", "<u2")])
NODE = np.dtype(
    [
        ("x", "<i2"),
        ("y", "<i2"),
        ("dx", "<i2"),
        ("dy", "<i2"),
        ("bbox", "<i2", (2, 4)),
        ("right", "<u2"),
        ("left", "<u2"),
    ]
)
SECTOR = np.dtype(
    [
        ("floor", "<i2"),
        ("ceiling", "<i2"),
        ("floor_tex", "S8"),
        ("ceiling_tex", "S8"),
        ("light", "<i2"),
        ("special", "<i2"),
        ("tag", "<i2"),
    ]
)
NO_SIDE = 0xFFFF


@dataclass(frozen=True)
class Lump:
    """One entry of a WAD directory."""

    name: str
    offset: int
    size: int


@dataclass(frozen=True)
class MapLumps:
    """The raw record arrays of one Doom-format map."""

    name: str
    things: np.ndarray
    linedefs: np.ndarray
    sidedefs: np.ndarray
    vertices: np.ndarray
    segs: np.ndarray
    ssectors: np.ndarray
    nodes: np.ndarray
    sectors: np.ndarray


class Wad:
    """Read a WAD file's directory and its maps; the file is read once, on open."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        if not self.path.is_file():
            raise WadNotFoundError(
                f"WAD file not found: {self.path}",
                hint="pass the path of an existing IWAD such as doom.wad or freedoom1.wad, "
                "or omit --wad to use the freedoom1.wad that the vizdoom package ships",
            )
        self._data = self.path.read_bytes()
        if len(self._data) < 12:
            raise WadFormatError(f"{self.path} is not a WAD: only {len(self._data)} bytes")
        ident, count, table = struct.unpack_from("<4sii", self._data, 0)
        if ident not in (b"IWAD", b"PWAD"):
            raise WadFormatError(
                f"{self.path} is not a WAD: it starts with {ident!r}, not IWAD or PWAD",
                hint="check the file; a WAD inside a .zip must be extracted first",
            )
        if count < 0 or table < 12 or table + 16 * count > len(self._data):
            raise WadFormatError(
                f"{self.path} is truncated or corrupt: its directory of {count} lumps at byte "
                f"{table} runs past the end of the file ({len(self._data)} bytes)",
                hint="download or copy the WAD again",
            )
        self.kind = ident.decode()
        lumps = []
        for i in range(count):
            offset, size, raw = struct.unpack_from("<ii8s", self._data, table + 16 * i)
            name = raw.split(b"\0", 1)[0].decode("ascii", "replace").upper()
            if offset < 0 or size < 0 or offset + size > len(self._data):
                raise WadFormatError(
                    f"{self.path} is corrupt: lump {name!r} lies outside the file",
                    hint="download or copy the WAD again",
                )
            lumps.append(Lump(name, offset, size))
        self.lumps: tuple[Lump, ...] = tuple(lumps)

    @cached_property
    def map_names(self) -> tuple[str, ...]:
        """Return the names of the maps this WAD holds, in directory order."""
        return tuple(
            lump.name
            for i, lump in enumerate(self.lumps)
            if MAP_NAME.match(lump.name) and self._map_kind(i) is not None
        )

    def _map_kind(self, index: int) -> str | None:
        following = [lump.name for lump in self.lumps[index + 1 : index + 13]]
        if following[:1] == ["TEXTMAP"]:
            return "udmf"
        if following[:1] != ["THINGS"]:
            return None
        return "hexen" if "BEHAVIOR" in following else "doom"

    def lump_bytes(self, lump: Lump) -> bytes:
        """Return a lump's bytes."""
        return self._data[lump.offset : lump.offset + lump.size]

    def read_map(self, name: str) -> MapLumps:
        """Return the records of map `name` (E1M1 or MAP01 style); raise a typed error if absent."""
        key = name.strip().upper()
        if key not in self.map_names:
            known = ", ".join(self.map_names) or "none"
            raise MapNotFoundError(
                f"map {name!r} is not in {self.path.name}",
                hint=f"this WAD has these maps: {known}",
            )
        index = next(i for i, lump in enumerate(self.lumps) if lump.name == key and self._map_kind(i))
        kind = self._map_kind(index)
        if kind != "doom":
            raise WadFormatError(
                f"map {key} in {self.path.name} is in {str(kind).upper()} format; doomagent reads Doom maps only",
                hint="use a vanilla or Boom map (any map of doom.wad, doom2.wad, freedoom1/2.wad)",
            )
        found: dict[str, Lump] = {}
        for lump in self.lumps[index + 1 : index + 12]:
            if lump.name in _MAP_LUMPS and lump.name not in found:
                found[lump.name] = lump
        missing = [n for n in _MAP_LUMPS if n not in found]
        if missing:
            raise WadFormatError(
                f"map {key} in {self.path.name} lacks lumps {', '.join(missing)}",
                hint="build the map's nodes with a node builder (zdbsp, ajbsp) and save it again",
            )
        nodes_raw = self.lump_bytes(found["NODES"])
        if nodes_raw[:4] in (b"ZNOD", b"XNOD", b"ZGLN", b"XGLN", b"ZGL2", b"XGL2"):
            raise WadFormatError(
                f"map {key} in {self.path.name} stores ZDoom extended nodes, which doomagent does not read",
                hint="rebuild the map with standard nodes (ajbsp or zdbsp -X off)",
            )
        arrays = {
            n: self._records(found[n], dtype, key)
            for n, dtype in (
                ("THINGS", THING),
                ("LINEDEFS", LINEDEF),
                ("SIDEDEFS", SIDEDEF),
                ("VERTEXES", VERTEX),
                ("SEGS", SEG),
                ("SSECTORS", SSECTOR),
                ("NODES", NODE),
                ("SECTORS", SECTOR),
            )
        }
        lumps = MapLumps(
            key,
            arrays["THINGS"],
            arrays["LINEDEFS"],
            arrays["SIDEDEFS"],
            arrays["VERTEXES"],
            arrays["SEGS"],
            arrays["SSECTORS"],
            arrays["NODES"],
            arrays["SECTORS"],
        )
        _check_references(lumps, self.path.name)
        return lumps

    def _records(self, lump: Lump, dtype: np.dtype, map_name: str) -> np.ndarray:
        if lump.size % dtype.itemsize:
            raise WadFormatError(
                f"map {map_name}: lump {lump.name} has {lump.size} bytes, not a multiple of its "
                f"{dtype.itemsize}-byte record; the WAD is corrupt or not in Doom format",
            )
        return np.frombuffer(self._data, dtype=dtype, count=lump.size // dtype.itemsize, offset=lump.offset).copy()


def _check_references(m: MapLumps, wad_name: str) -> None:
    """Reject maps whose records point past the arrays they index."""

    def bad(what: str) -> WadFormatError:
        return WadFormatError(f"map {m.name} in {wad_name} is corrupt: {what}", hint="download or copy the WAD again")

    nv, ns, nsec = len(m.vertices), len(m.sidedefs), len(m.sectors)
    if len(m.linedefs) == 0 or nv == 0 or nsec == 0:
        raise bad("it has no linedefs, vertices or sectors")
    if max(m.linedefs["v1"].max(), m.linedefs["v2"].max()) >= nv:
        raise bad("a linedef names a vertex that does not exist")
    for side in ("front", "back"):
        refs = m.linedefs[side][m.linedefs[side] != NO_SIDE]
        if len(refs) and refs.max() >= ns:
            raise bad("a linedef names a sidedef that does not exist")
    if len(m.sidedefs) and m.sidedefs["sector"].max() >= nsec:
        raise bad("a sidedef names a sector that does not exist")
    if len(m.segs) and m.segs["linedef"].max() >= len(m.linedefs):
        raise bad("a seg names a linedef that does not exist")
    if len(m.ssectors) and (m.ssectors["first"].astype(int) + m.ssectors["count"]).max() > len(m.segs):
        raise bad("a subsector names segs that do not exist")
