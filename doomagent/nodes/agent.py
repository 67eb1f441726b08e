"""Agent: history + what it sees (+ walkthrough, plan, expert moves) in, one action and a reason out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from langgraph.runtime import Runtime

from doomagent.answers.schemas import (
    JSON_FRAME_TOKENS,
    TEXT_FRAME_TOKENS,
    decision_failure,
    decision_grammar,
    decision_schema,
    parse_decision,
    reason_chars,
)
from doomagent.env.actions import Action
from doomagent.errors import ActionParseError
from doomagent.nodes._base import RoleNode
from doomagent.nodes.history import HISTORY_SLOT, fill_history
from doomagent.prompts import render
from doomagent.providers.base import ModelRequest
from doomagent.providers.settings import RoleSettings
from doomagent.runtime.context import RunContext


def agent_request(
    state: Mapping[str, Any],
    ctx: RunContext,
    role: RoleSettings,
    *,
    name: str,
    walkthrough: bool,
    plan: bool,
    experts: bool,
) -> ModelRequest:
    """Return the Agent prompt as a request; Experts use it too, on the plan variant.

    `walkthrough`, `plan` and `experts` say which of those the prompt shows; the builder decides.
    """
    structured = role.structured not in ("off", "grammar")  # grammar: the two-line text answer, enforced
    steps = state.get("plan") or []
    variables = {
        "level": ctx.level,
        "actions": [a.value for a in Action if a in ctx.allowed],
        "vision": state.get("vision", "(nothing yet)"),
        "walkthrough": ctx.walkthrough if walkthrough else None,
        "plan": "\n".join(f"{i + 1}. {s}" for i, s in enumerate(steps)) if plan and steps else None,
        "expert_moves": "\n".join(state.get("expert_moves") or []) if experts else None,
        "feedback": state.get("feedback"),
        "structured": structured,
        "constrained": role.structured == "grammar",
    }
    text = fill_history(
        render("agent", ctx.prompts_dir, history=HISTORY_SLOT, **variables),
        state.get("history", []),
        ctx.recipe.context_tokens,
        role.max_tokens,
        ctx.recipe.history_chunk,
    )
    schema = _schema(ctx, role) if structured else None
    return ctx.request(
        name, text, schema=schema, schema_name="decision", grammar=_grammar(ctx, role), frame=state["frame"]
    )


def _grammar(ctx: RunContext, role: RoleSettings) -> str | None:
    if role.structured != "grammar":
        return None
    return decision_grammar(ctx.allowed, reason_chars(role.max_tokens, TEXT_FRAME_TOKENS))


def _schema(ctx: RunContext, role: RoleSettings) -> dict[str, Any]:
    # Only llama.cpp-style json_object grammars are sure to honour maxLength; hosted strict modes may refuse it.
    cap = reason_chars(role.max_tokens, JSON_FRAME_TOKENS) if role.structured == "json_object" else None
    return decision_schema(ctx.allowed, cap)


@dataclass(frozen=True)
class AgentNode(RoleNode):
    """The Agent node, configured by the builder: which role plays it and what its prompt shows.

    `plan` and `experts` left as None follow the graph: the plan is shown when a planner node is in it,
    expert moves when an experts node is.
    """

    role: str = "agent"
    walkthrough: bool = True
    plan: bool | None = None
    experts: bool | None = None

    def bind(self, nodes: frozenset[str]) -> AgentNode:
        """Return this node with its open choices settled by the graph's node names."""
        return replace(
            self,
            plan="planner" in nodes if self.plan is None else self.plan,
            experts="experts" in nodes if self.experts is None else self.experts,
        )

    def __call__(self, state: Mapping[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
        """Pick one action; an answer outside the action set is flagged for the WAIT fallback."""
        ctx = runtime.context
        request = agent_request(
            state,
            ctx,
            ctx.role(self.role),
            name=self.role,
            walkthrough=self.walkthrough,
            plan=bool(self.plan),
            experts=bool(self.experts),
        )
        response = ctx.call(self.role, request, decision_failure(ctx.allowed))
        raw = response.text if response is not None else ""
        try:
            action, reason = parse_decision(raw, ctx.allowed)
        except ActionParseError:
            return {"parse_ok": False, "raw": raw, "action": Action.WAIT.value, "reason": ""}
        return {"parse_ok": True, "raw": raw, "action": action.value, "reason": reason, "feedback": None}


agent = AgentNode()
