"""Experts: extra Agent calls on the plan prompt, run concurrently; their moves go to the Agent."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langgraph.runtime import Runtime

from doomagent.errors import ActionParseError
from doomagent.graph.context import RunContext
from doomagent.graph.state import DoomState, add_usage
from doomagent.nodes._call import call_model
from doomagent.nodes.agent import agent_request
from doomagent.schemas import decision_failure, parse_decision


def experts(state: DoomState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Ask every Expert at once (one thread each: model calls wait on the network) and collect their
    moves (k-levels, k = 2)."""
    ctx = runtime.context
    role = ctx.recipe.roles.experts
    assert role is not None, "the builder adds experts only when the recipe has them"
    request = agent_request(state, ctx, role, name="expert", use_plan=True, experts=False)
    check = decision_failure(ctx.allowed)
    with ThreadPoolExecutor(max_workers=role.count, thread_name_prefix="expert") as pool:
        results = list(pool.map(lambda _: call_model(ctx, "experts", request, check), range(role.count)))
    moves: list[str] = []
    usage: dict[str, Any] = {}
    for i, (response, delta) in enumerate(results, start=1):
        usage = add_usage(usage, delta)
        try:
            action, reason = parse_decision(response.text if response else "", ctx.allowed)
        except ActionParseError:
            continue
        moves.append(f"Expert {i}: {action.value}" + (f" ({reason})" if reason else ""))
    return {"expert_moves": moves, "experts_frame": state["frame"], "usage": usage}
