import struct

import numpy as np
import pytest

from doomagent.env import MapGeometry, Wad, shipped_wad
from doomagent.errors import MapNotFoundError, WadFormatError, WadNotFoundError


def test_freedoom_maps_are_listed():
    names = Wad(shipped_wad()).map_names
    assert names[0] == "E1M1" and len(names) == 36
    assert Wad(shipped_wad("freedoom2.wad")).map_names[0] == "MAP01"


def test_start_exit_and_doors_of_e1m1(e1m1):
    assert e1m1.start == (-416.0, 256.0, 0.0)
    assert e1m1.sector_at(-416, 256) == 140
    (exit_line,) = e1m1.exit_lines
    assert e1m1.line_special[exit_line] == 11
    assert e1m1.line_front[exit_line] == 67
    assert {d.key for d in e1m1.doors.values()} == {None, "blue"}


def test_bsp_lookup_matches_its_vectorised_form(e1m1):
    rng = np.random.default_rng(0)
    x0, y0, x1, y1 = e1m1.bounds
    xs, ys = rng.uniform(x0, x1, 2000), rng.uniform(y0, y1, 2000)
    assert e1m1.sectors_at(xs, ys).tolist() == [e1m1.sector_at(x, y) for x, y in zip(xs, ys)]


def test_neighbours_are_the_sectors_across_two_sided_lines(e1m1):
    for sector in (0, 67, 140):
        lines = (e1m1.line_front == sector) | (e1m1.line_back == sector)
        others = set(e1m1.line_front[lines].tolist()) | set(e1m1.line_back[lines].tolist())
        assert e1m1.neighbours(sector).tolist() == sorted(others - {sector, -1})
    assert e1m1.neighbours(67).tolist() == [66]  # the exit room opens onto one sector only


def test_lookup_accepts_numpy_integers(e1m1):
    start = e1m1.things[e1m1.things["type"] == 1][0]
    assert e1m1.sector_at(start["x"], start["y"]) == 140


def test_missing_wad(tmp_path):
    with pytest.raises(WadNotFoundError, match="not found"):
        MapGeometry.load("E1M1", tmp_path / "doom.wad")


def test_not_a_wad(tmp_path):
    bad = tmp_path / "bad.wad"
    bad.write_bytes(b"PK\x03\x04" + b"\0" * 64)
    with pytest.raises(WadFormatError, match="not a WAD"):
        Wad(bad)


def test_truncated_wad(tmp_path):
    data = shipped_wad().read_bytes()
    cut = tmp_path / "cut.wad"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(WadFormatError, match="truncated or corrupt"):
        Wad(cut)


def test_corrupt_map_lump(tmp_path):
    wad = Wad(shipped_wad())
    lump = next(lump for lump in wad.lumps if lump.name == "LINEDEFS")
    data = bytearray(shipped_wad().read_bytes())
    struct.pack_into("<H", data, lump.offset, 60000)  # first linedef's v1 far past the vertices
    bad = tmp_path / "corrupt.wad"
    bad.write_bytes(bytes(data))
    with pytest.raises(WadFormatError, match="vertex that does not exist"):
        MapGeometry.load("E1M1", bad)


def test_unknown_map_names_the_maps_that_exist():
    with pytest.raises(MapNotFoundError) as info:
        MapGeometry.load("MAP01")
    assert "E1M1" in info.value.hint


def test_a_map_without_a_player_start_is_a_typed_error(tmp_path):
    from typer.testing import CliRunner

    from doomagent.cli import app

    wad = Wad(shipped_wad())
    things = next(lump for lump in wad.lumps if lump.name == "THINGS")  # E1M1's: the first map
    data = bytearray(shipped_wad().read_bytes())
    for offset in range(things.offset, things.offset + things.size, 10):  # x, y, angle, type, flags
        if struct.unpack_from("<H", data, offset + 6)[0] == 1:
            struct.pack_into("<H", data, offset + 6, 2)  # player 1 start -> player 2 start
    bad = tmp_path / "nostart.wad"
    bad.write_bytes(bytes(data))
    with pytest.raises(WadFormatError, match="no player 1 start"):
        MapGeometry.load("E1M1", bad).start  # noqa: B018 - reading it is the test
    result = CliRunner().invoke(app, ["map", "E1M1", "--wad", str(bad), "--out", str(tmp_path / "m.png")])
    assert result.exit_code == 2 and "no player 1 start" in result.output and "Traceback" not in result.output
