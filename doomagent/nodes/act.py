"""Act: apply the chosen action to DoomEnv with its frame semantics, and record the decision."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from doomagent.core.context import RunContext
from doomagent.nodes.history import CHARS_PER_TOKEN, history_line


def act(state: Mapping[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Step the environment once, write the decision to steps.jsonl, and advance the decision counter.

    The step record holds the nodes that ran in this decision, in order, and the values of the graph's
    custom state keys.
    """
    ctx = runtime.context
    before = ctx.observation
    assert before is not None
    obs, _, terminated, truncated, info = ctx.env.step(state["action"])
    ctx.observation = obs
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
    }
