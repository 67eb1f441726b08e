"""The closing lines of `run` and `eval`: how each trial ended and how its models did, role by role."""

from __future__ import annotations

from collections.abc import Iterable

from doomagent.rundir.summary import TrialResult
from doomagent.rundir.usage import RoleUsage, Usage


def calls_line(usage: Usage) -> str:
    """Return `calls: agent 120 (0 failed, 2 unusable), vision 120 (0 failed)`, or `no model calls`."""
    if not usage.roles:
        return "no model calls"
    parts = [f"{role} {_role(u)}" for role, u in sorted(usage.roles.items())]
    return "calls: " + ", ".join(parts)


def _role(u: RoleUsage) -> str:
    unusable = u.errors - u.failed
    return f"{u.calls} ({u.failed} failed" + (f", {unusable} unusable)" if unusable else ")")


def trial_lines(r: TrialResult) -> list[str]:
    """Return the closing lines of one trial: outcome, decisions, moves the model chose, WAITs, calls."""
    rooms = ", ".join(f"{room}@{f}" for f, room in r.rooms_entered)
    return [
        f"trial {r.trial}: {r.outcome} after {r.frames} frames, {r.decisions} decisions: "
        f"{r.decisions - r.waits} moves chosen, {r.waits} WAIT fallbacks; rooms {rooms}",
        f"  {calls_line(r.usage)}",
    ]


def never_answered(usage: Usage) -> list[str]:
    """Return the roles whose model was called and never answered once (every call failed)."""
    return sorted(role for role, u in usage.roles.items() if u.calls > 0 and u.failed == u.calls)


def group_lines(name: str, trials: Iterable[TrialResult]) -> list[str]:
    """Return an eval group's closing lines: its trials' decisions, moves, WAITs and calls added up."""
    played = list(trials)
    decisions = sum(t.decisions for t in played)
    waits = sum(t.waits for t in played)
    usage = Usage.total(t.usage for t in played)
    outcomes: dict[str, int] = {}
    for t in played:
        outcomes[t.outcome.value] = outcomes.get(t.outcome.value, 0) + 1
    ended = ", ".join(f"{n} {outcome}" for outcome, n in sorted(outcomes.items()))
    return [
        f"{name}: {len(played)} trials ({ended}), {decisions} decisions: {decisions - waits} moves chosen, "
        f"{waits} WAIT fallbacks",
        f"  {calls_line(usage)}",
    ]
