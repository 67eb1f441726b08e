"""The plan walker on freedoom1 E1M1's real geometry with small hand-made plans: it walks a leg, presses a switch
(and then goes on), picks up a key, notices a teleporter by the jump to its destination, and gives an objective up
after its cap with the reason. (WAD reading only: the fast tier.)"""

from __future__ import annotations

import numpy as np
import pytest

from doomagent.env.actions import Action
from doomagent.env.observation import Hud, Observation
from doomagent.env.progression import Leg, Objective, ProgressionPlan
from doomagent.policies import plan_walker
from doomagent.policies.plan_walker import PlanWalker

START = (-416.0, 256.0)  # E1M1's player start (sector 140); 256 units east is clear floor (sector 91)
EAST = (-160.0, 256.0)
NORTH = (-416.0, 384.0)


def _obs(x: float, y: float, angle: float = 0.0) -> Observation:
    hud = Hud(health=100, armor=0, ammo={"bullets": 50}, weapon=2, weapon_ammo=50, weapons=(1, 2))
    screen = np.zeros((4, 4, 3), np.uint8)
    return Observation(screen, hud, (x, y, 0.0), angle, 0, "A", 140, (), False)


def _plan(e1m1, *objectives: tuple[str, tuple[float, float]]) -> ProgressionPlan:
    legs, objs, here = [], [], START
    for kind, where in objectives:
        points = (here, where)
        sectors = tuple(e1m1.sector_at(*p) for p in points)
        legs.append(Leg(points, (), sectors, float(np.hypot(where[0] - here[0], where[1] - here[1]))))
        objs.append(Objective(kind, where, sectors[-1], f"a {kind}"))  # type: ignore[arg-type]
        here = where
    return ProgressionPlan("E1M1", tuple(objs), tuple(legs))


@pytest.fixture
def walker(e1m1_rooms):
    def make(*objectives: tuple[str, tuple[float, float]]) -> PlanWalker:
        return PlanWalker(e1m1_rooms, _plan(e1m1_rooms.geometry, *objectives))

    return make


def test_it_walks_toward_the_leg_turning_first(walker):
    w = walker(("switch", EAST), ("exit", NORTH))
    assert w.act(_obs(*START, angle=0.0)) is Action.UP  # facing east, the way is clear
    assert w.act(_obs(*START, angle=180.0)) in (Action.LEFT, Action.RIGHT)


def test_at_a_switch_it_presses_use_then_goes_on(walker):
    w = walker(("switch", EAST), ("exit", NORTH))
    near = (EAST[0] - 30.0, EAST[1])
    actions = [w.act(_obs(*near, angle=0.0)) for _ in range(2 * plan_walker.PRESSES)]
    assert actions.count(Action.USE) == plan_walker.PRESSES and set(actions) == {Action.USE, Action.WAIT}
    assert w.objective == 1 and w.current.kind == "exit" and w.gave_up == []


def test_a_key_counts_once_walked_onto_and_the_exit_is_pressed_for_good(walker):
    w = walker(("key", EAST), ("exit", NORTH))
    assert w.act(_obs(EAST[0] - 40.0, EAST[1])) is Action.UP and w.objective == 0  # not there yet
    w.act(_obs(EAST[0] - 5.0, EAST[1]))
    assert w.objective == 1
    near_exit = (NORTH[0], NORTH[1] - 30.0)
    presses = [w.act(_obs(*near_exit, angle=90.0)) for _ in range(12)]
    assert Action.USE in presses and w.objective == 1  # the exit stays the objective until the level ends


def test_a_teleporter_is_taken_when_the_player_jumps_to_where_it_leads(walker):
    w = walker(("teleport", EAST), ("exit", NORTH))  # the next leg starts at EAST: where this teleporter leads
    w.act(_obs(*START))
    w.act(_obs(NORTH[0], NORTH[1] - 10.0))  # 128 units in one decision would be a run; this is further
    assert w.objective == 0
    w.act(_obs(NORTH[0] - 300.0, NORTH[1]))  # a jump no walk makes, but elsewhere: another teleporter's doing
    assert w.objective == 0
    w.act(_obs(EAST[0] + 20.0, EAST[1]))  # a jump to this teleporter's destination
    assert w.objective == 1


def test_an_objective_not_done_in_its_cap_is_given_up_with_the_reason(walker, monkeypatch):
    monkeypatch.setattr(plan_walker, "OBJECTIVE_CAP", 5)
    w = walker(("switch", EAST), ("exit", NORTH))
    for _ in range(7):
        w.act(_obs(*START, angle=180.0))  # never gets there
    assert w.objective == 1 and w.gave_up == ["a switch: not done in 5 decisions"]


def test_supplies_are_fetched_away_from_the_objective_within_a_budget_never_beside_it(walker):
    # The shotgun in hand has 4 shells, and shells lie at (416, 864), 96 units from where the walk stands. freedoom2
    # MAP22's walk stood at its lift switch and turned away for shells, one supply after another, until the switch's
    # cap ran out.
    here = (416.0, 960.0)
    hud = Hud(health=100, armor=0, ammo={"bullets": 50, "shells": 4}, weapon=3, weapon_ammo=4, weapons=(1, 2, 3))

    def looks(switch: tuple[float, float], fetched: int = 0) -> bool:
        w = walker(("switch", switch), ("exit", NORTH))
        w._decisions, w._fetched = plan_walker.FETCH_EVERY - 1, fetched  # the next decision looks for supplies
        w.act(Observation(np.zeros((4, 4, 3), np.uint8), hud, (*here, 0.0), 0.0, 0, "A", 140, (), False))
        return w._supplies is not None and w._supplies.target is not None

    assert looks(EAST)  # far from the switch: the shotgun is worth the walk
    assert not looks((here[0], here[1] - 100.0))  # beside the switch: press it first
    assert not looks(EAST, fetched=plan_walker.FETCH_BUDGET)  # this objective's fetching is spent


def test_use_is_pressed_at_a_door_once_per_door_opening_time():
    from doomagent.policies._steer import USE_EVERY, UsePacer

    # A second press on an opening door sends it back down: the grid walker pressed every other decision and stood
    # at freedoom1 E1M1's secret door (sector 48) for 9,000 decisions (seed 3020).
    pacer = UsePacer()
    actions = [pacer.press_or(d, Action.UP) for d in range(1, 2 * USE_EVERY + 2)]
    assert [d for d, a in enumerate(actions, 1) if a is Action.USE] == [1, USE_EVERY + 1, 2 * USE_EVERY + 1]
    assert set(actions) == {Action.USE, Action.UP}


def test_a_walk_that_stands_still_backs_off_and_gives_the_objective_up_the_third_time(walker):
    from doomagent.policies._steer import StillWatch

    # Whatever holds the walk (a door that never opens, a wall it presses on), 150 decisions within 48 units of one
    # place set it moving again; the third time on one objective gives that objective up, with the reason.
    w = walker(("key", EAST), ("exit", NORTH))
    patience = StillWatch().patience
    for _ in range(patience):
        w.act(_obs(*START, angle=180.0))
    assert w._stood == 0
    backs = w.act(_obs(*START, angle=180.0))  # patience decisions after the first one in this place
    assert w._stood == 1 and [backs, *w._unstick[-5:]] == [Action.DOWN] * 6 and w.gave_up == []  # backs off first
    for _ in range(2 * (patience + 1)):
        w.act(_obs(*START, angle=180.0))
    assert w.gave_up == [f"a key: stood still {plan_walker.STOOD} times"] and w.current.kind == "exit"
