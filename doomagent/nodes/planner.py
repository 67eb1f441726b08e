"""Planner: walkthrough + history + current view in, a short step-by-step plan out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langgraph.runtime import Runtime

from doomagent.answers.schemas import Plan, empty_failure, parse_plan, strict_schema
from doomagent.nodes._base import RoleNode
from doomagent.nodes.history import HISTORY_SLOT, fill_history
from doomagent.prompts import render
from doomagent.recipes import PlannerRole
from doomagent.runtime.context import RunContext


@dataclass(frozen=True)
class PlannerNode(RoleNode):
    """The Planner node: writes a fresh plan (stamped with its frame under `plan_frame` for the cadence gate)."""

    role: str = "planner"

    def __call__(self, state: Mapping[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
        """Write a fresh plan."""
        ctx = runtime.context
        settings = ctx.role(self.role)
        max_steps = settings.max_steps if isinstance(settings, PlannerRole) else 5
        structured = settings.structured != "off"
        variables = {
            "level": ctx.level,
            "walkthrough": ctx.walkthrough or "none",
            "vision": state.get("vision", ""),
            "previous_plan": "\n".join(state.get("plan") or []),
            "max_steps": max_steps,
            "structured": structured,
        }
        text = fill_history(
            render("planner", ctx.prompts_dir, history=HISTORY_SLOT, **variables),
            state.get("history", []),
            ctx.recipe.context_tokens,
            settings.max_tokens,
            ctx.recipe.history_chunk,
        )
        schema = strict_schema(Plan) if structured else None
        request = ctx.request(self.role, text, schema=schema, schema_name="plan", frame=state["frame"])
        response = ctx.call(self.role, request, empty_failure)
        update: dict[str, Any] = {"plan_frame": state["frame"]}
        if response is not None:
            steps = parse_plan(response.text).steps[:max_steps]
            if steps:
                update["plan"] = steps
        return update


planner = PlannerNode()
