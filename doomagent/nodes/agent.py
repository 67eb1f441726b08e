"""Agent: history + what it sees (+ walkthrough, plan, expert moves) in, one action and a reason out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from langgraph.runtime import Runtime

from doomagent.answers.perception import engine_report
from doomagent.answers.schemas import (
    JSON_FRAME_TOKENS,
    TEXT_FRAME_TOKENS,
    decision_failure,
    decision_grammar,
    decision_schema,
    direct_schema,
    parse_decision,
    reason_chars,
    seen_line,
)
from doomagent.answers.tools import ToolDecision, decision_tools, raw_reply, read_tool_calls, tool_failure
from doomagent.env.actions import Action
from doomagent.errors import ActionParseError
from doomagent.nodes._base import RoleNode
from doomagent.nodes.history import HISTORY_SLOT, fill_history
from doomagent.prompts import render
from doomagent.providers.base import CallsTools, ModelRequest, ModelResponse
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
    tools = uses_tools(ctx, name, role, direct=False)
    structured = not tools and role.structured not in ("off", "grammar")  # grammar: the two-line answer, enforced
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
        "tools": tools,
        "aim": ctx.aim,
    }
    text = fill_history(
        render("agent", ctx.prompts_dir, history=HISTORY_SLOT, **variables),
        state.get("history", []),
        ctx.recipe.context_tokens,
        role.max_tokens,
        ctx.recipe.history_chunk,
    )
    return ctx.request(
        name,
        text,
        schema=_schema(ctx, role) if structured else None,
        schema_name="decision",
        grammar=_grammar(ctx, role),
        tools=decision_tools(ctx.allowed, ctx.aim) if tools else None,
        frame=state["frame"],
    )


def uses_tools(ctx: RunContext, name: str, role: RoleSettings, *, direct: bool) -> bool:
    """Return True when this role answers by calling the press tool: `structured: tools`, or (direct strategies
    only, so the paper's recipes keep their JSON answers) `auto` on a model that supports function calling."""
    if role.structured == "tools":
        return True
    model = ctx.model(name)
    return direct and role.structured == "auto" and isinstance(model, CallsTools) and model.supports_tools


def direct_request(
    state: Mapping[str, Any],
    ctx: RunContext,
    role: RoleSettings,
    *,
    name: str,
    plan: bool,
    experts: bool,
    facts: bool,
) -> ModelRequest:
    """Return the direct strategy's request: the prompt (walkthrough always, plan and expert moves as said), the
    screens (image history), the engine's facts when `facts`, and the press tool in tools mode."""
    tools = uses_tools(ctx, name, role, direct=True)
    structured = not tools and role.structured not in ("off", "grammar")
    steps = state.get("plan") or []
    obs = ctx.observation
    variables = {
        "level": ctx.level,
        "actions": [a.value for a in Action if a in ctx.allowed],
        "screens": ctx.recipe.image_history,
        "walkthrough": ctx.walkthrough,
        "plan": "\n".join(f"{i + 1}. {s}" for i, s in enumerate(steps)) if plan and steps else None,
        "expert_moves": "\n".join(state.get("expert_moves") or []) if experts else None,
        "facts": engine_report(obs, ctx.env.rooms).as_text() if facts and obs is not None else None,
        "feedback": state.get("feedback"),
        "structured": structured,
        "tools": tools,
        "constrained": False,
        "aim": ctx.aim,
    }
    text = fill_history(
        render("direct", ctx.prompts_dir, history=HISTORY_SLOT, **variables),
        state.get("history", []),
        ctx.recipe.context_tokens - ctx.image_tokens(name),
        role.max_tokens,
        ctx.recipe.history_chunk,
        brief=True,  # the status bar on the screen shows the health: a line names it only where it changed
    )
    return ctx.request(
        name,
        text,
        image=True,
        schema=direct_schema(ctx.allowed, ctx.aim) if structured else None,
        schema_name="decision",
        tools=decision_tools(ctx.allowed, ctx.aim, seen=True) if tools else None,
        frame=state["frame"],
    )


def read_reply(
    response: ModelResponse | None, request: ModelRequest, allowed: frozenset[Action], aim: int = 0
) -> ToolDecision:
    """Return the decision in a reply: from its press tool call (requests with tools) or its text (a SEEN line
    or JSON `seen` too, in a direct answer); raise ActionParseError when it names no clear allowed action."""
    if request.tools is not None:
        return read_tool_calls(response.tool_calls if response is not None else (), allowed, aim)
    text = response.text if response is not None else ""
    action, reason = parse_decision(text, allowed, aim)
    return ToolDecision(action, reason, seen_line(text))


def _grammar(ctx: RunContext, role: RoleSettings) -> str | None:
    if role.structured != "grammar":
        return None
    return decision_grammar(ctx.allowed, reason_chars(role.max_tokens, TEXT_FRAME_TOKENS), ctx.aim)


def _schema(ctx: RunContext, role: RoleSettings) -> dict[str, Any]:
    # Only llama.cpp-style json_object grammars are sure to honour maxLength; hosted strict modes may refuse it.
    cap = reason_chars(role.max_tokens, JSON_FRAME_TOKENS) if role.structured == "json_object" else None
    return decision_schema(ctx.allowed, cap, ctx.aim)


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
    screen: bool = False  # the direct strategy: the Agent sees the screenshot(s) and writes what it saw
    facts: bool = False  # with `screen`: the engine's facts too (perception: hybrid)

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
        settings = ctx.role(self.role)
        if self.screen:
            request = direct_request(
                state, ctx, settings, name=self.role, plan=bool(self.plan), experts=bool(self.experts), facts=self.facts
            )
        else:
            request = agent_request(
                state,
                ctx,
                settings,
                name=self.role,
                walkthrough=self.walkthrough,
                plan=bool(self.plan),
                experts=bool(self.experts),
            )
        aim = ctx.aim
        check = tool_failure(ctx.allowed, aim) if request.tools is not None else decision_failure(ctx.allowed, aim)
        response = ctx.call(self.role, request, check)
        raw = raw_reply(response)
        try:
            decision = read_reply(response, request, ctx.allowed, aim)
        except ActionParseError:
            return {"parse_ok": False, "raw": raw, "action": Action.WAIT.value, "reason": ""}
        update = {"parse_ok": True, "raw": raw, "action": decision.action.value, "reason": decision.reason}
        if self.screen and decision.seen:  # what the Planner and Experts read next as "what the bot sees"
            update["vision"] = decision.seen
        return {**update, "feedback": None}


agent = AgentNode()
