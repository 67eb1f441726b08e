"""Planner: walkthrough + history + current view in, a short step-by-step plan out."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from doomagent.graph.context import RunContext
from doomagent.graph.state import DoomState
from doomagent.nodes._call import call_model
from doomagent.nodes.history import HISTORY_SLOT, fill_history
from doomagent.prompts import render
from doomagent.providers.base import ModelRequest, user_message
from doomagent.schemas import Plan, empty_failure, parse_plan, strict_schema


def planner(state: DoomState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Write a fresh plan."""
    ctx = runtime.context
    role = ctx.recipe.roles.planner
    assert role is not None, "the builder adds the planner only when the recipe has one"
    structured = role.structured != "off"
    variables = {
        "level": ctx.level,
        "walkthrough": ctx.walkthrough or "none",
        "vision": state.get("vision", ""),
        "previous_plan": "\n".join(state.get("plan") or []),
        "max_steps": role.max_steps,
        "structured": structured,
    }
    text = fill_history(
        render("planner", ctx.prompts_dir, history=HISTORY_SLOT, **variables),
        state.get("history", []),
        ctx.recipe.context_tokens,
        role.max_tokens,
        ctx.recipe.history_chunk,
    )
    request = ModelRequest(
        role="planner",
        messages=[user_message(text)],
        temperature=role.temperature,
        max_tokens=role.max_tokens,
        schema=strict_schema(Plan) if structured else None,
        schema_name="plan",
        frame=state["frame"],
    )
    response, usage = call_model(ctx, "planner", request, empty_failure)
    update: dict[str, Any] = {"plan_frame": state["frame"], "usage": usage}
    if response is not None:
        steps = parse_plan(response.text).steps[: role.max_steps]
        if steps:
            update["plan"] = steps
    return update
