import pytest

from doomagent.env.tracker import RoomTracker


def _sector_of(rooms, label):
    return min(rooms.room(label).sectors)


def test_frames_go_to_the_last_room_entered(e1m1_rooms):
    a, b, c = (_sector_of(e1m1_rooms, x) for x in "ABC")
    door = 10  # a door sector belongs to no room
    t = RoomTracker(e1m1_rooms)
    t.reset(0, -416, 256)
    for frame, sector in [(100, a), (120, door), (130, b), (200, b), (220, a), (260, b), (300, c), (310, c)]:
        t.update_sector(frame, sector)
    assert t.entries == [(0, "A"), (130, "B"), (220, "A"), (260, "B"), (300, "C")]
    assert t.first_entry == {"A": 0, "B": 130, "C": 300}
    # A: 0-130 (door frames stay with A) + 220-260; B: 130-220 + 260-300; C: 300-310.
    assert t.frames == {"A": 170, "B": 130, "C": 10}
    assert sum(t.frames.values()) == 310


def test_furthest_policy_keeps_backtracking_frames_on_the_furthest_room(e1m1_rooms):
    a, b = (_sector_of(e1m1_rooms, x) for x in "AB")
    t = RoomTracker(e1m1_rooms, backtrack="furthest")
    t.reset(0, -416, 256)
    for frame, sector in [(100, b), (150, a), (200, a), (250, b)]:
        t.update_sector(frame, sector)
    assert t.frames == {"A": 100, "B": 150}


def test_update_by_position_uses_the_bsp(e1m1_rooms):
    t = RoomTracker(e1m1_rooms)
    assert t.reset(0, -416, 256) == "A"
    assert t.update(20, -380, 1296) == "D"  # just in front of the exit switch
    assert t.frames == {"A": 20}


@pytest.mark.parametrize("backtrack", ["last_entered", "furthest"])
def test_the_tracker_and_the_report_credit_rooms_alike(backtrack):
    """The room-crediting rule lives in the tracker (while playing) and in metrics (reading logs): walked
    over the same sector sequence, both give the same frames per room."""
    import random

    from doomagent.env.geometry import MapGeometry
    from doomagent.env.rooms import build_rooms
    from doomagent.env.tracker import RoomTracker
    from doomagent.eval.metrics import room_frames

    rooms = build_rooms(MapGeometry.load("E1M1"))
    rng = random.Random(7)
    sectors = [s for room in rooms.rooms[:5] for s in sorted(room.sectors)] + sorted(rooms.geometry.doors)
    x, y, _ = rooms.geometry.start
    tracker = RoomTracker(rooms, backtrack=backtrack)
    tracker.reset(0, x, y)
    frame = 0
    for _ in range(400):
        frame += rng.choice((1, 2, 3, 5))
        tracker.update_sector(frame, rng.choice(sectors))
    end = frame + 4
    tracker.update_sector(end, rooms.geometry.sector_at(x, y))
    order = [r.label for r in rooms.rooms]
    expected = {k: v for k, v in tracker.frames.items() if v}
    got = {k: v for k, v in room_frames(tracker.entries, end, order=order, backtrack=backtrack).items() if v}
    assert got == expected and sum(got.values()) == end
