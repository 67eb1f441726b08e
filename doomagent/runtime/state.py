"""The graph's state: small, JSON-friendly, no images (the screen lives in the run context).

A graph may carry keys of its own: subclass `DoomState` (reducers allowed with `Annotated`) and give the
class to `GraphBuilder(state=...)`. `state_keys` and `state_reducers` read any such class.
"""

from __future__ import annotations

import contextlib
import functools
import typing
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

HISTORY_CAP = 400  # entries kept in state; prompts clip further by tokens
DECISION_END = "act"  # the node that ends every decision (it steps the engine)


def append_history(left: list[dict[str, Any]] | None, right: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Reduce history updates by appending, keeping the newest HISTORY_CAP entries."""
    merged = (left or []) + (right or [])
    return merged[-HISTORY_CAP:]


def add_counts(left: dict[str, int] | None, right: dict[str, int] | None) -> dict[str, int]:
    """Reduce counter updates by adding them key by key."""
    out = dict(left or {})
    for key, value in (right or {}).items():
        out[key] = out.get(key, 0) + value
    return out


def add_trace(left: list[str] | None, right: list[str] | None) -> list[str]:
    """Reduce node names into this decision's trace: a trace that ended with the act node starts over."""
    base = left if left and left[-1] != DECISION_END else []
    return [*base, *(right or [])]


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
    audit: Annotated[dict[str, int], add_counts]  # Vision audit: calls scored, hallucinated
    trace: Annotated[list[str], add_trace]  # the nodes that ran in this decision, in order


def initial_state(obs: Any) -> dict[str, Any]:
    """Return the state a trial starts from, given the engine's first observation (DoomState's keys)."""
    return {
        "frame": 0,
        "decision": 0,
        "room": obs.room,
        "health": obs.hud.health,
        "position": obs.position,
        "angle": obs.angle,
        "outcome": None,
        "done": False,
        "waits": 0,
        "history": [],
        "audit": {},
        "trace": [],
        "plan_frame": None,
        "experts_frame": None,
    }


Reducer = Callable[[Any, Any], Any]


@functools.cache
def _resolved(schema: type) -> tuple[tuple[str, Any], ...]:
    try:
        return tuple(typing.get_type_hints(schema, include_extras=True).items())
    except Exception:  # an annotation that does not resolve at run time still names a key
        return tuple(getattr(schema, "__annotations__", {}).items())


def _hints(schema: type) -> dict[str, Any]:
    """Return a state class's keys and their types (resolved once per class)."""
    return dict(_resolved(schema))


def state_keys(schema: type) -> frozenset[str]:
    """Return every key a state class declares (its own and inherited)."""
    return frozenset(_hints(schema))


def declared_keys(schema: type) -> tuple[str, ...]:
    """Return every key a state class declares, in declaration order (inherited keys first)."""
    return tuple(_hints(schema))


def _starting(reducer: Reducer, hint: Any) -> Reducer:
    """Return `reducer` fed the type's empty value (list(), dict(), 0...) for a key not yet set, as
    LangGraph does for a reducer channel."""
    origin = typing.get_origin(hint.__origin__) or hint.__origin__

    def reduce(left: Any, right: Any) -> Any:
        if left is None and isinstance(origin, type):
            with contextlib.suppress(TypeError):  # a type with no empty value: the reducer gets None
                left = origin()
        return reducer(left, right)

    return reduce


def state_reducers(schema: type) -> dict[str, Reducer]:
    """Return the reducer of each key declared as `Annotated[type, reducer]`."""
    out: dict[str, Reducer] = {}
    for key, hint in _hints(schema).items():
        for meta in getattr(hint, "__metadata__", ()):
            if callable(meta):
                out[key] = meta if key in BASE_KEYS else _starting(meta, hint)
    return out


BASE_KEYS = state_keys(DoomState)


def merge_update(state: dict[str, Any], update: dict[str, Any], reducers: dict[str, Reducer]) -> None:
    """Apply a node's update to a local copy of the state, with the same reducers as the graph."""
    for key, value in update.items():
        reducer = reducers.get(key)
        state[key] = reducer(state.get(key), value) if reducer else value
