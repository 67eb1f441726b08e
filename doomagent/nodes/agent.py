"""Agent: history + what it sees (+ walkthrough, plan, expert moves) in, one action and a reason out."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from doomagent.env.actions import Action
from doomagent.errors import ActionParseError
from doomagent.graph.context import RunContext
from doomagent.graph.state import DoomState
from doomagent.nodes._call import call_model
from doomagent.nodes.history import HISTORY_SLOT, fill_history
from doomagent.prompts import render
from doomagent.providers.base import ModelRequest, user_message
from doomagent.providers.settings import RoleSettings
from doomagent.schemas import (
    JSON_FRAME_TOKENS,
    TEXT_FRAME_TOKENS,
    decision_failure,
    decision_grammar,
    decision_schema,
    parse_decision,
    reason_chars,
)


def agent_request(
    state: DoomState, ctx: RunContext, role: RoleSettings, *, name: str, use_plan: bool, experts: bool
) -> ModelRequest:
    """Return the Agent prompt as a request; Experts use it too, on the plan variant."""
    strategy = ctx.recipe.strategy
    structured = role.structured not in ("off", "grammar")  # grammar: the two-line text answer, enforced
    plan = state.get("plan") or []
    variables = {
        "level": ctx.level,
        "actions": [a.value for a in Action if a in ctx.allowed],
        "vision": state.get("vision", "(nothing yet)"),
        "walkthrough": ctx.walkthrough if strategy != "naive" else None,
        "plan": "\n".join(f"{i + 1}. {s}" for i, s in enumerate(plan)) if use_plan and plan else None,
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
    return ModelRequest(
        role=name,
        messages=[user_message(text)],
        temperature=role.temperature,
        max_tokens=role.max_tokens,
        schema=_schema(ctx, role) if structured else None,
        schema_name="decision",
        grammar=_grammar(ctx, role),
        frame=state["frame"],
    )


def _grammar(ctx: RunContext, role: RoleSettings) -> str | None:
    if role.structured != "grammar":
        return None
    return decision_grammar(ctx.allowed, reason_chars(role.max_tokens, TEXT_FRAME_TOKENS))


def _schema(ctx: RunContext, role: RoleSettings) -> dict[str, Any]:
    # Only llama.cpp-style json_object grammars are sure to honour maxLength; hosted strict modes may refuse it.
    cap = reason_chars(role.max_tokens, JSON_FRAME_TOKENS) if role.structured == "json_object" else None
    return decision_schema(ctx.allowed, cap)


def agent(state: DoomState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Pick one action; an answer outside the action set is flagged for the WAIT fallback."""
    ctx = runtime.context
    strategy = ctx.recipe.strategy
    request = agent_request(
        state,
        ctx,
        ctx.recipe.roles.agent,
        name="agent",
        use_plan=strategy in ("plan", "k-levels"),
        experts=strategy == "k-levels",
    )
    response, usage = call_model(ctx, "agent", request, decision_failure(ctx.allowed))
    raw = response.text if response is not None else ""
    try:
        action, reason = parse_decision(raw, ctx.allowed)
    except ActionParseError:
        return {"parse_ok": False, "raw": raw, "action": Action.WAIT.value, "reason": "", "usage": usage}
    return {"parse_ok": True, "raw": raw, "action": action.value, "reason": reason, "usage": usage, "feedback": None}
