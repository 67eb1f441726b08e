"""Shared rate limits and the eval-wide budget, on a clock the test moves (no sleeping, no timing)."""

from __future__ import annotations

import random

import pytest

from doomagent.errors import ConfigError
from doomagent.eval.jobs import EvalLimits
from doomagent.eval.runner import rate_limits_of
from doomagent.providers.limits import Coordinator, RateLimit
from doomagent.providers.settings import RoleSettings
from doomagent.recipes import load_recipe


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("spec", "requests", "tokens", "window"),
    [
        ("500/min", 500, None, 60.0),
        ("30000tok/min", None, 30000, 60.0),
        ("500/min,30000tok/min", 500, 30000, 60.0),
        ("5/2s", 5, None, 2.0),
        ("10 / 1h", 10, None, 3600.0),
    ],
)
def test_rate_limits_read_as_written(spec: str, requests: int | None, tokens: int | None, window: float) -> None:
    limit = RateLimit.parse(spec)
    assert (limit.requests, limit.tokens, limit.window_s) == (requests, tokens, window)
    assert RateLimit.parse(limit.describe()) == limit


@pytest.mark.parametrize("spec", ["", "fast", "5", "5/min,10tok/s", "0/min", "5/0s", "5/fortnight"])
def test_an_unreadable_rate_limit_says_how_to_write_one(spec: str) -> None:
    with pytest.raises(ConfigError) as caught:
        RateLimit.parse(spec)
    assert caught.value.hint


def test_no_window_at_the_provider_holds_more_than_the_limit_however_late_requests_leave() -> None:
    clock = Clock()
    coordinator = Coordinator({"m": RateLimit(requests=3, window_s=10.0)}, clock=clock)
    rng = random.Random(0)
    arrived: list[float] = []
    events = [(clock.now, worker, "ask", 0) for worker in range(8)]  # eight workers, one request at a time
    while events and len(arrived) < 200:
        events.sort()
        at, worker, kind, ticket = events.pop(0)
        clock.now = at
        if kind == "ask":
            wait, ticket = coordinator.reserve("m", 100)
            if wait > 0:
                events.append((at + wait, worker, "ask", 0))
                continue
            # It leaves up to 3 s after its grant (a busy worker), and is answered 0-2 s after it arrives.
            arrival = at + rng.uniform(0, 3)
            arrived.append(arrival)
            events.append((arrival + rng.uniform(0, 2), worker, "answer", ticket))
        else:
            coordinator.release("m", ticket)
            events.append((at + rng.uniform(0, 1), worker, "ask", 0))
    arrived.sort()
    assert len(arrived) == 200
    assert max(sum(start <= t < start + 10.0 for t in arrived) for start in arrived) <= 3
    assert coordinator.waits > 0


def test_tokens_per_window_hold_too() -> None:
    clock = Clock()
    coordinator = Coordinator({"m": RateLimit(tokens=1000, window_s=60.0)}, clock=clock)
    wait, first = coordinator.reserve("m", 600)
    assert wait == 0 and first > 0
    assert coordinator.reserve("m", 600) == (pytest.approx(0.5), -1)  # in flight: ask again soon
    coordinator.release("m", first)
    assert coordinator.reserve("m", 600)[0] == pytest.approx(60.0)
    assert coordinator.reserve("other-model", 10**6) == (0.0, 0)  # no limit for it
    clock.now += 60.0
    assert coordinator.reserve("m", 600)[0] == 0


def test_a_request_whose_worker_died_stops_counting_after_a_while() -> None:
    clock = Clock()
    coordinator = Coordinator({"m": RateLimit(requests=1, window_s=1.0)}, stale_s=30.0, clock=clock)
    assert coordinator.reserve("m", 1)[0] == 0  # never released
    assert coordinator.reserve("m", 1)[0] > 0
    clock.now += 31.0
    assert coordinator.reserve("m", 1)[0] == 0


def test_the_budget_is_spent_once_calls_or_cost_reach_the_cap() -> None:
    coordinator = Coordinator(max_calls=3, max_cost=1.0)
    coordinator.charge(2, 0.5)
    assert not coordinator.exhausted()
    coordinator.charge(1, 0.1)
    assert coordinator.exhausted()
    by_cost = Coordinator(max_cost=1.0)
    by_cost.charge(1, 1.25)
    assert by_cost.exhausted() and by_cost.spent()["cost"] == 1.25


def test_recipes_declare_rate_limits_and_the_command_line_wins() -> None:
    recipe, _ = load_recipe("plan", model="test", overrides=["agent.rate_limit=60/min", "vision.rate_limit=5/s"])
    assert recipe.roles is not None and recipe.roles.agent.rate_limit == RateLimit(requests=60, window_s=60.0)
    found = rate_limits_of([recipe], {"test": RateLimit(requests=1, window_s=1.0)})
    assert found["test"].requests == 1
    assert not EvalLimits().active and EvalLimits(max_calls=1).active
    with pytest.raises(ValueError, match="rate limit"):
        RoleSettings(model="x", rate_limit="lots")
