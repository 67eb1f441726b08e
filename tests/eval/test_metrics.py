"""Metrics on synthetic room tracks, every expected figure worked out by hand here."""

import math

import pytest

from doomagent.eval.metrics import (
    TrialRecord,
    pmat_table,
    progress_of,
    room_frames,
    spread,
    summarize,
    usage_by_role,
)

ROOMS = ["A", "B", "C", "D"]


def trial(outcome, frames, *entries, path=0.0, dts=None, decisions=0, waits=0, usage=None):
    return TrialRecord(
        outcome=outcome,
        frames=frames,
        rooms_entered=list(entries),
        path_length=path,
        distance_to_exit=dts,
        decisions=decisions,
        waits=waits,
        usage=usage or {},
    )


def test_room_frames_last_entered_and_furthest():
    entries = [(0, "A"), (100, "B"), (150, "A"), (170, "B"), (200, "C")]
    # A: 0-100 + 150-170 = 120; B: 100-150 + 170-200 = 80; C: 200-260 = 60
    assert room_frames(entries, 260) == {"A": 120, "B": 80, "C": 60}
    # furthest: A 0-100; B 100-200 (backtrack to A still counts to B); C 200-260
    assert room_frames(entries, 260, order=ROOMS, backtrack="furthest") == {"A": 100, "B": 100, "C": 60}


def test_pmat_and_dpmat_by_hand():
    trials = [
        trial("death", 300, (0, "A"), (100, "B")),  # A 100, B 200, died in B
        trial("stuck", 1500, (0, "A")),  # A 1500
        trial("exit", 400, (0, "A"), (50, "B"), (200, "C"), (350, "D")),  # A 50, B 150, C 150, D 50
    ]
    table = pmat_table(trials, ROOMS)
    assert table["A"].pmat == pytest.approx((100 + 1500 + 50) / 3)  # 550
    assert table["A"].dpmat == pytest.approx(550)  # nobody died in A
    assert table["B"].pmat == pytest.approx((200 + 150) / 2)  # 175
    assert table["B"].dpmat == pytest.approx((200 + 1000 + 150) / 2)  # 675
    assert table["C"].text() == "150/150" and table["D"].text() == "50/50"
    assert table["B"].visits == 2


def test_death_scope_trial_charges_every_room_of_a_dead_trial():
    trials = [trial("death", 300, (0, "A"), (100, "B")), trial("exit", 200, (0, "A"), (120, "B"))]
    table = pmat_table(trials, ROOMS, death_scope="trial", lam=500)
    assert table["A"].dpmat == pytest.approx((100 + 500 + 120) / 2)  # 360
    assert table["B"].dpmat == pytest.approx((200 + 500 + 80) / 2)  # 390


def test_unvisited_rooms_are_infinite():
    table = pmat_table([trial("stuck", 1000, (0, "A"))], ROOMS)
    assert table["C"].pmat is None and table["C"].text() == "∞" and table["C"].visits == 0


def test_summary_rates_dts_and_spl():
    trials = [
        trial("death", 300, (0, "A"), (100, "B"), path=900, dts=2000, decisions=150, waits=15),
        trial("stuck", 1500, (0, "A"), path=400, dts=3000, decisions=750, waits=0),
        trial("exit", 400, (0, "A"), (50, "B"), (200, "C"), (350, "D"), path=4000, dts=0, decisions=200, waits=5),
        trial("exit", 380, (0, "A"), (50, "B"), (200, "C"), (350, "D"), path=3000, dts=0, decisions=190, waits=0),
    ]
    s = summarize(trials, ROOMS, route_length=3000)
    assert s.trials == 4 and s.deaths == 0.25 and s.timeouts == 0.25 and s.finishes == 2
    assert s.rooms_reached == pytest.approx((2 + 1 + 4 + 4) / 4)
    assert s.dts == pytest.approx((2000 + 3000 + 0 + 0) / 4)
    # SPL: (0 + 0 + 3000/4000 + 3000/3000) / 4
    assert s.spl == pytest.approx((0.75 + 1.0) / 4)
    assert s.wait_rate == pytest.approx(20 / 1290)


def test_usage_by_role_adds_up():
    u1 = {"agent": {"calls": 10, "errors": 1, "input_tokens": 100, "output_tokens": 20, "cost": 0.5, "latency_s": 2.0}}
    u2 = {
        "agent": {"calls": 30, "errors": 0, "input_tokens": 300, "output_tokens": 60, "cost": 1.5, "latency_s": 6.0},
        "vision": {"calls": 4, "errors": 0, "input_tokens": 40, "output_tokens": 400, "cost": 0.0, "latency_s": 1.0},
    }
    usage = usage_by_role([trial("exit", 1, usage=u1), trial("exit", 1, usage=u2)])
    assert usage["agent"].calls == 40 and usage["agent"].errors == 1 and usage["agent"].cost == pytest.approx(2.0)
    assert usage["agent"].mean_latency_s == pytest.approx(0.2)
    assert usage["vision"].mean_latency_s == pytest.approx(0.25)
    assert math.isnan(usage_by_role([trial("exit", 1, usage={"x": {"calls": 0}})])["x"].mean_latency_s)


def test_spread_by_hand_and_reproducible():
    s = spread([100, 200, 300])
    assert s.mean == 200 and s.sd == pytest.approx(100.0) and s.n == 3  # sample sd: sqrt((100²+0+100²)/2)
    assert 100 <= s.low < 200 < s.high <= 300  # the bootstrap interval of the mean lies within the data's range
    assert spread([100, 200, 300]) == s  # fixed seed: the same trials, the same interval
    one = spread([42])
    assert (one.mean, one.sd, one.low, one.high) == (42, None, 42, 42)
    assert spread([]) is None


def test_frame_cap_trials_have_a_column_of_their_own():
    trials = [trial("max_frames", 1000, (0, "A")), trial("stuck", 1500, (0, "A")), trial("exit", 400, (0, "A"))]
    s = summarize(trials, ROOMS, route_length=0.0)
    assert (s.frame_cap, s.timeouts, s.finishes) == (1, pytest.approx(1 / 3), 1)
    assert s.frames_spread.mean == pytest.approx(2900 / 3)
    cells = pmat_table(trials, ROOMS)
    assert cells["A"].pmat_spread.n == 3 and cells["B"].pmat_spread is None


def test_progress_is_the_share_of_the_way_covered_at_the_nearest_point_to_the_exit():
    # the exit is 1000 away at the start; the trial got to 250 away, then walked back to 900 away
    assert progress_of([1000, 600, 250, 700, 900], 1000, finished=False) == pytest.approx(0.75)
    # two trials ending in the same room, one nearer the exit: they rank apart
    assert progress_of([1000, 800], 1000, finished=False) < progress_of([1000, 400], 1000, finished=False)
    assert progress_of([1000, 1200], 1000, finished=False) == 0.0  # never nearer than the start: 0, not negative
    assert progress_of([1000, math.inf, 500], 1000, finished=False) == pytest.approx(0.5)  # unknown cells skipped
    assert progress_of([1000, 300], 1000, finished=True) == 1.0
    assert progress_of([5.0], math.inf, finished=False) is None  # a map whose exit distance is unknown


def test_summary_progress_is_the_mean_over_trials_that_have_one():
    trials = [trial("max_frames", 100, (0, "A")), trial("exit", 100, (0, "A")), trial("stuck", 100, (0, "A"))]
    trials = [t.model_copy(update={"progress": p}) for t, p in zip(trials, (0.25, 1.0, None), strict=True)]
    s = summarize(trials, ROOMS, route_length=0.0)
    assert s.progress == pytest.approx(0.625) and s.progress_spread.n == 2


def test_plan_progress_counts_done_legs_whole_and_the_walked_part_of_the_next():
    from doomagent.eval.metrics import plan_progress

    legs = [400.0, 100.0, 500.0]  # start -> key, key -> door, door -> exit: 1000 in all
    # Halfway to the key: 200 of 1000.
    assert plan_progress(legs, [(0, 400.0), (0, 200.0)], finished=False) == pytest.approx(0.2)
    # Key fetched, then 50 short of the door: 400 + 50 = 450; wandering off later does not take it back.
    assert plan_progress(legs, [(0, 300.0), (1, 50.0), (1, 400.0)], finished=False) == pytest.approx(0.45)
    # Door passed, 100 walked toward the exit: 400 + 100 + 100.
    assert plan_progress(legs, [(2, 400.0)], finished=False) == pytest.approx(0.6)
    # Two trials ending in the same place before the key differ by how near to it they came.
    near, far = [(0, 100.0), (0, 390.0)], [(0, 300.0)]
    assert plan_progress(legs, near, finished=False) > plan_progress(legs, far, finished=False)
    assert plan_progress(legs, [(1, math.inf)], finished=False) == pytest.approx(0.4)  # unknown distance: legs done
    assert plan_progress(legs, [(0, 900.0)], finished=False) == 0.0  # never nearer than the start
    assert plan_progress(legs, [], finished=True) == 1.0
    assert plan_progress([], [], finished=False) is None


def test_plan_progress_along_e1m4_credits_the_yellow_key():
    """On E1M4 a path to the yellow keycard and back scores the first leg whole; the same path stopping
    short of the key scores less; the exit counts only as a finish."""
    from doomagent.env.geometry import MapGeometry
    from doomagent.env.progression import plan_for
    from doomagent.env.rooms import build_rooms
    from doomagent.eval.progress import PlanProgress

    rooms = build_rooms(MapGeometry.load("E1M4"))
    plan = plan_for(rooms.geometry)
    along = PlanProgress(plan, rooms.navgrid)
    start = rooms.geometry.start[:2]
    key = plan.objectives[0].where
    total = sum(along.legs)
    to_key = [start, key, start]
    assert along.track(to_key)[1][0] == 1  # the key counts as reached
    assert along.of(to_key, finished=False) == pytest.approx(along.legs[0] / total, abs=0.01)
    short = [start, ((start[0] + key[0]) / 2, (start[1] + key[1]) / 2)]
    assert 0 <= along.of(short, finished=False) < along.of(to_key, finished=False)
    exit_ = plan.objectives[-1].where
    assert along.of([start, exit_], finished=False) < 1.0 and along.of([start], finished=True) == 1.0


def test_replay_captions_skip_a_line_a_crash_cut_short(tmp_path):
    from doomagent.eval.replay import _captions

    whole = '{"frame": 2, "room": "A", "action": "UP", "reason": "go"}\n{"frame": 4, "room": "B", "action": "FIRE"}\n'
    (tmp_path / "steps.jsonl").write_text(whole + '{"frame": 6, "room": "B", "act')
    captions = _captions(tmp_path)
    assert sorted(captions) == [2, 4] and captions[2].endswith("UP: go") and "FIRE" in captions[4]
