"""Named gates: cadence (every N frames), the WAIT fallback, and the end of the episode.

A gate is a function of the state that says whether a node runs this decision; it reads any key,
custom ones included.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Gate = Callable[[Mapping[str, Any]], bool]


def every_frames(stamp_key: str, period: int, *, name: str | None = None) -> Gate:
    """Return a gate that passes once per `period` frames: at the first decision, then whenever the
    frame enters a new period since the node last ran.

    The node must return its frame under `stamp_key` (a key of the state, custom keys included).
    """
    if period < 1:
        raise ValueError(f"every_frames period must be at least 1, not {period}")

    def gate(state: Mapping[str, Any]) -> bool:
        last = state.get(stamp_key)
        return last is None or int(state["frame"]) // period > int(last) // period

    gate.__name__ = name or f"every_{period}_frames"
    return gate


def needs_wait(state: Mapping[str, Any]) -> bool:
    """Pass when the Agent's answer was not an allowed action (the WAIT fallback)."""
    return not state.get("parse_ok", True)


def episode_over(state: Mapping[str, Any]) -> bool:
    """Pass when the episode has ended (exit, death, stuck, frame cap, budget)."""
    return bool(state.get("done"))


def runs_this_decision(state: Mapping[str, Any], node: str) -> int:
    """Return how many times `node` has run in the current decision (from the state's trace)."""
    trace = state.get("trace") or []
    if trace and trace[-1] == "act":
        return 0
    return sum(1 for name in trace if name == node)
