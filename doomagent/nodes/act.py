"""Act: apply the chosen action to DoomEnv with its frame semantics, and record the decision."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from doomagent.nodes.history import CHARS_PER_TOKEN, history_line
from doomagent.runtime.context import RunContext


def act(state: Mapping[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Step the environment once, write the decision to steps.jsonl, and advance the decision counter.

    The step record holds the nodes that ran in this decision, in order, and the values of the graph's
    custom state keys.
    """
    ctx = runtime.context
    before = ctx.observation
    assert before is not None
    lag = realtime_lag(ctx)
    obs, _, terminated, truncated, info = ctx.env.step(state["action"], lag=lag)
    ctx.remember_screen(before, state["action"])
    ctx.observation = obs
    ctx.wait_frames += lag
    ctx.think_s = 0.0
    ctx.decision_started = time.perf_counter()
    entry = {
        "frame": before.frame,
        "room": before.room,
        "health": before.hud.health,
        "action": state["action"],
        "reason": state.get("reason", ""),
        "parse_ok": state.get("parse_ok", True),
    }
    record = {
        **entry,
        "decision": state.get("decision", 0),
        "x": round(before.position[0], 2),
        "y": round(before.position[1], 2),
        "angle": round(before.angle, 2),
        "raw": state.get("raw"),
        "nodes": [*(state.get("trace") or []), "act"],
    }
    if ctx.env.config.realtime:
        record["lag"] = lag  # frames the game ran while the model thought, before the action
    if ctx.custom_keys:
        record["state"] = {key: state.get(key) for key in ctx.custom_keys}
    ctx.log.step(record)
    entry["line"] = history_line(entry)
    entry["tokens"] = len(entry["line"]) // CHARS_PER_TOKEN + 1
    return {
        "frame": obs.frame,
        "decision": state.get("decision", 0) + 1,
        "room": obs.room,
        "health": obs.hud.health,
        "position": obs.position,
        "angle": obs.angle,
        "outcome": info["outcome"],
        "done": bool(terminated or truncated),
        "history": [entry],
        "parse_ok": True,
        # What was said to the Agent within this decision (a critic's objection) is spent once the move is
        # played; only the WAIT fallback's word is for the next decision.
        "feedback": state.get("feedback") if not state.get("parse_ok", True) else None,
    }


TICS_PER_SECOND = 35


def realtime_lag(ctx: RunContext) -> int:
    """Return the tics the game runs before this decision's action under the real-time protocol (0 when
    paused): the decision's model time at 35 tics/s, less the tics the action itself lasts."""
    config = ctx.env.config
    if not config.realtime:
        return 0
    think = ctx.think_s if config.realtime_clock == "latency" else time.perf_counter() - ctx.decision_started
    return max(0, round(think * TICS_PER_SECOND) - config.decision_frames)
