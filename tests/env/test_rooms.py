import pytest

from doomagent.env.rooms import build_rooms, label_for
from doomagent.errors import ConfigError


def test_labels_run_like_spreadsheet_columns():
    assert [label_for(i) for i in (0, 1, 25, 26, 27, 51, 52)] == ["A", "B", "Z", "AA", "AB", "AZ", "BA"]


def test_start_and_exit_lie_in_different_rooms(e1m1, e1m1_rooms):
    start_room = e1m1_rooms.room_at(*e1m1.start[:2])
    exit_room = e1m1_rooms.room_of_sector(int(e1m1.line_front[e1m1.exit_lines[0]]))
    assert start_room == "A"
    assert exit_room is not None and exit_room != start_room


def test_rooms_are_lettered_in_route_order(e1m1_rooms):
    route = e1m1_rooms.route
    assert route is not None and route.strict and route.keys == ()
    visited = []
    for sector in route.sectors:
        room = e1m1_rooms.room_of_sector(sector)
        if room is not None and room not in visited:
            visited.append(room)
    assert visited == list(e1m1_rooms.labels[: len(visited)])
    assert visited == ["A", "B", "C", "D"]
    assert [r.label for r in e1m1_rooms.rooms if r.on_route] == visited


def test_route_starts_at_the_start_and_crosses_no_key_door(e1m1, e1m1_rooms):
    route = e1m1_rooms.route
    assert route.sectors[0] == 140 and route.sectors[-1] == 67
    assert route.points[0] == e1m1.start[:2]
    assert not any(e1m1.doors[s].key for s in route.sectors if s in e1m1.doors)
    assert 2500 < route.length < 4500


def test_doors_split_rooms_and_belong_to_none(e1m1, e1m1_rooms):
    for sector in e1m1.doors:
        assert e1m1_rooms.room_of_sector(sector) is None
    covered = set().union(*(r.sectors for r in e1m1_rooms.rooms))
    assert covered | set(e1m1.doors) == set(range(e1m1.n_sectors))


def test_profile_overrides_the_automatic_split(e1m1, tmp_path):
    profile = tmp_path / "p.yaml"
    profile.write_text("rooms:\n  hangar: [140, 141, 99]\n  exit room: [66, 67, 68]\n")
    rooms = build_rooms(e1m1, profile)
    assert rooms.labels == ("A", "B")
    assert rooms.room("A").name == "hangar" and rooms.room("B").name == "exit room"
    assert rooms.room_at(*e1m1.start[:2]) == "A"
    assert rooms.room_of_sector(10) is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rooms: {}\n", "no 'rooms'"),
        ("rooms:\n  a: [1, 2]\n  b: [2]\n", "both"),
        ("rooms:\n  a: [99999]\n", "names sector 99999"),
        ("rooms:\n  a: hello\n", "must list sector numbers"),
        ("rooms: [unclosed\n", "cannot read"),
    ],
)
def test_bad_profiles_give_typed_errors(e1m1, tmp_path, text, message):
    profile = tmp_path / "p.yaml"
    profile.write_text(text)
    with pytest.raises(ConfigError, match=message):
        build_rooms(e1m1, profile)


def test_other_maps_get_rooms_and_a_route():
    from doomagent.env import MapGeometry

    rooms = build_rooms(MapGeometry.load("MAP01", "freedoom2.wad"))
    assert rooms.route is not None and len(rooms.rooms) >= 3
