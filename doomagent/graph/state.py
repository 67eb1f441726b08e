"""The graph's state: small, JSON-friendly, no images (the screen lives in the run context)."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

HISTORY_CAP = 400  # entries kept in state; prompts clip further by tokens


def append_history(left: list[dict[str, Any]] | None, right: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Reduce history updates by appending, keeping the newest HISTORY_CAP entries."""
    merged = (left or []) + (right or [])
    return merged[-HISTORY_CAP:]


def add_usage(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reduce usage updates by adding calls, tokens and cost per role."""
    out: dict[str, Any] = {role: dict(v) for role, v in (left or {}).items()}
    for role, delta in (right or {}).items():
        slot = out.setdefault(
            role, {"calls": 0, "errors": 0, "input_tokens": 0, "output_tokens": 0, "cost": 0.0, "latency_s": 0.0}
        )
        for key, value in delta.items():
            slot[key] = slot.get(key, 0) + (value or 0)
    return out


def add_counts(left: dict[str, int] | None, right: dict[str, int] | None) -> dict[str, int]:
    """Reduce counter updates by adding them key by key."""
    out = dict(left or {})
    for key, value in (right or {}).items():
        out[key] = out.get(key, 0) + value
    return out


class DoomState(TypedDict, total=False):
    """What flows between nodes each decision."""

    frame: int
    decision: int
    room: str | None
    health: int
    position: tuple[float, float, float]
    angle: float
    outcome: str | None
    done: bool
    vision: str  # the Vision report as prompt text
    plan: list[str]
    plan_frame: int | None
    expert_moves: list[str]
    experts_frame: int | None
    action: str
    reason: str
    parse_ok: bool
    raw: str  # the Agent's last raw answer
    feedback: str | None  # said to the Agent in its next prompt (e.g. that its answer became WAIT)
    waits: int  # decisions that fell back to WAIT
    history: Annotated[list[dict[str, Any]], append_history]
    usage: Annotated[dict[str, Any], add_usage]
    audit: Annotated[dict[str, int], add_counts]  # Vision audit: calls scored, hallucinated


REDUCERS = {"history": append_history, "usage": add_usage, "audit": add_counts}


def merge_update(state: DoomState, update: dict[str, Any]) -> None:
    """Apply a node's update to a local copy of the state, with the same reducers as the graph."""
    for key, value in update.items():
        reducer = REDUCERS.get(key)
        state[key] = reducer(state.get(key), value) if reducer else value  # type: ignore[literal-required]
