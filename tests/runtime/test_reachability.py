"""Reachability counts, per model, the decisions in a row whose calls all failed to reach it (no engine)."""

import pytest

from doomagent.cli._closing import calls_line, never_answered
from doomagent.errors import ProviderUnreachableError
from doomagent.rundir.usage import RoleUsage, Usage
from doomagent.runtime.calls import Reachability

DOWN = {"type": "connection", "message": "refused"}
BUSY = {"type": "server", "status": 503, "message": "busy"}


def test_it_ends_after_n_decisions_of_failures_of_one_model():
    reach = Reachability(3)
    reach.decision([("vision", "test", None), ("agent", "openai/x", DOWN)])
    reach.decision([("vision", "test", None), ("agent", "openai/x", BUSY)])
    with pytest.raises(ProviderUnreachableError, match=r"openai/x \(role agent\) failed every call of 3 decisions"):
        reach.decision([("vision", "test", None), ("agent", "openai/x", DOWN)])


def test_an_answer_or_another_kind_of_failure_starts_the_count_again():
    reach = Reachability(3)
    for calls in (
        [("agent", "m", DOWN)],
        [("agent", "m", DOWN)],
        [("agent", "m", None)],  # back
        [("agent", "m", DOWN)],
        [("agent", "m", DOWN)],
        [("agent", "m", {"type": "garbage", "message": "?"})],  # it answered, badly
        [("agent", "m", DOWN)],
        [],  # no call this decision: neither counts nor breaks the run
        [("agent", "m", DOWN)],
    ):
        reach.decision(calls)
    assert reach.streaks["m"] == 2


def test_a_decision_with_one_answer_among_failures_of_the_same_model_is_not_unreachable():
    reach = Reachability(1)
    reach.decision([("expert", "m", DOWN), ("expert", "m", None)])
    assert reach.streaks["m"] == 0
    Reachability(None).decision([("agent", "m", DOWN)] * 5)  # null: never ends a trial


def test_closing_lines_count_failed_and_unusable_calls_per_role():
    usage = Usage(
        roles={"agent": RoleUsage(calls=10, errors=3, failed=1), "vision": RoleUsage(calls=10, errors=10, failed=10)}
    )
    assert calls_line(usage) == "calls: agent 10 (1 failed, 2 unusable), vision 10 (10 failed)"
    assert never_answered(usage) == ["vision"]
    assert calls_line(Usage()) == "no model calls" and never_answered(Usage()) == []
