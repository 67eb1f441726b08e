"""Navigator: the reference strategy's only decision node; a scripted player, no model."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from doomagent.graph.context import RunContext
from doomagent.graph.state import DoomState
from doomagent.policies.reference import ReferenceNavigator


def navigator(state: DoomState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Pick the reference navigator's action for the current observation."""
    ctx = runtime.context
    nav = ctx.scratch.get("navigator")
    if not isinstance(nav, ReferenceNavigator):
        nav = ctx.scratch["navigator"] = ReferenceNavigator.for_map(
            ctx.env.rooms, screen_width=ctx.env.config.width, skill=ctx.env.config.skill
        )
    assert ctx.observation is not None
    action = nav.act(ctx.observation)
    return {"action": action.value, "reason": "reference navigator", "parse_ok": True, "raw": action.value}
