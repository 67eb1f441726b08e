"""Maps and their rooms, read once per process: the trials of an eval worker share them."""

from __future__ import annotations

import functools
from pathlib import Path

from doomagent.env.geometry import MapGeometry
from doomagent.env.rooms import RoomMap, build_rooms
from doomagent.env.wad import Wad


def map_and_rooms(wad: Path, name: str, profile: Path | None) -> tuple[MapGeometry, RoomMap]:
    """Return a map's geometry and rooms; without a profile of the user's they are read once per process
    (the trials of an eval worker share them; a changed WAD file is read again)."""
    if profile is not None:
        geometry = MapGeometry(Wad(wad), name)
        return geometry, build_rooms(geometry, profile)
    try:
        stat = wad.stat()
    except OSError:  # no such file: Wad says so with its typed error
        return _read(wad, name)
    return _shared_map(wad.resolve(), stat.st_mtime_ns, stat.st_size, name)


def _read(wad: Path, name: str) -> tuple[MapGeometry, RoomMap]:
    geometry = MapGeometry(Wad(wad), name)
    return geometry, build_rooms(geometry)


@functools.lru_cache(maxsize=8)
def _shared_map(wad: Path, _mtime: int, _size: int, name: str) -> tuple[MapGeometry, RoomMap]:
    return _read(wad, name)
