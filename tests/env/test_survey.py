"""`doomagent maps` and the map survey behind it: read from the WAD alone (no engine)."""

import pytest
from typer.testing import CliRunner

from doomagent.cli import app
from doomagent.cli.maps import select_maps
from doomagent.env.geometry import MapGeometry
from doomagent.env.survey import survey_map
from doomagent.errors import ConfigError

runner = CliRunner()
FREEDOOM1 = tuple(f"E{e}M{m}" for e in range(1, 5) for m in range(1, 10))


def test_map_selections_are_ranges_and_lists_in_wad_order():
    assert select_maps("E1M1-E1M3", FREEDOOM1) == ["E1M1", "E1M2", "E1M3"]
    assert select_maps("e2m1, E1M9-E1M8", FREEDOOM1) == ["E1M8", "E1M9", "E2M1"]
    with pytest.raises(ConfigError, match="map 'E1M0' is not in this WAD; did you mean"):
        select_maps("E1M0-E1M3", FREEDOOM1)


@pytest.mark.slow  # plans two whole maps
def test_survey_of_a_key_map_and_of_a_boss_map():
    e1m2 = survey_map(MapGeometry.load("E1M2"))
    assert e1m2.routed and e1m2.route_rooms[0] == "A" and e1m2.route_keys == ("blue", "red", "yellow")
    assert set(e1m2.keys_on_map) == {"blue", "red", "yellow"} and 0 < e1m2.largest_room_share < 1
    assert e1m2.objectives[-1] == "exit" and e1m2.objectives.index("blue key") < e1m2.objectives.index("blue door")
    e1m8 = survey_map(MapGeometry.load("E1M8"))
    assert e1m8.routed and "boss" in e1m8.objectives and e1m8.objectives[-1] == "exit"
    stuck = survey_map(MapGeometry.load("MAP04", "freedoom2.wad"))
    assert not stuck.routed and stuck.route_length is None and "blue-key switch" in stuck.why_no_route


@pytest.mark.slow
def test_maps_lists_every_selected_map_one_line_each():
    result = runner.invoke(app, ["maps", "freedoom2.wad", "--maps", "MAP01-MAP03"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("map ") and [line.split()[0] for line in lines[1:4]] == ["MAP01", "MAP02", "MAP03"]
    assert lines[-1].startswith("freedoom2.wad: a progression plan to the exit on 3 of 3 maps")
    assert "exit" in lines[1] and lines[0].endswith("/ why no plan")
    bad = runner.invoke(app, ["maps", "freedoom2.wad", "--maps", "MAP99"])
    assert bad.exit_code == 2 and "MAP99" in bad.output
