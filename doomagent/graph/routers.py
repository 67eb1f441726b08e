"""Named gates and routers: cadence (every N frames), the WAIT fallback, and the end of the episode."""

from __future__ import annotations

from collections.abc import Callable

from doomagent.graph.state import DoomState

Gate = Callable[[DoomState], bool]


def every_frames(stamp_key: str, period: int, *, name: str) -> Gate:
    """Return a gate that passes once per `period` frames: at the first decision, then whenever the
    frame enters a new period since the node last ran (its frame is kept under `stamp_key`)."""

    def gate(state: DoomState) -> bool:
        last = state.get(stamp_key)  # type: ignore[misc]
        return last is None or state["frame"] // period > int(last) // period

    gate.__name__ = name
    return gate


def needs_wait(state: DoomState) -> bool:
    """Pass when the Agent's answer was not an allowed action (the WAIT fallback)."""
    return not state.get("parse_ok", True)


def episode_over(state: DoomState) -> bool:
    """Pass when the episode has ended (exit, death, stuck, frame cap, budget)."""
    return bool(state.get("done"))
