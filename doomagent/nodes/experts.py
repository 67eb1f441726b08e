"""Experts: extra Agent calls on the plan prompt, run concurrently; their moves go to the Agent."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from langgraph.runtime import Runtime

from doomagent.answers.schemas import decision_failure
from doomagent.answers.tools import tool_failure
from doomagent.errors import ActionParseError
from doomagent.nodes._base import RoleNode
from doomagent.nodes.agent import agent_request, direct_request, read_reply
from doomagent.recipes import ExpertsRole
from doomagent.runtime.context import RunContext


@dataclass(frozen=True)
class ExpertsNode(RoleNode):
    """The Experts node (k-levels, k = 2): `count` Agent calls at once on the plan prompt; `walkthrough`
    says whether their prompt shows the walkthrough."""

    role: str = "experts"
    walkthrough: bool = True
    screen: bool = False  # the direct strategy: the Experts see the screenshot(s) as the Agent does
    facts: bool = False  # with `screen`: the engine's facts too

    def __call__(self, state: Mapping[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
        """Ask every Expert at once (one thread each: model calls wait on the network); collect their moves."""
        ctx = runtime.context
        settings = ctx.role(self.role)
        count = settings.count if isinstance(settings, ExpertsRole) else 3
        if self.screen:
            request = direct_request(state, ctx, settings, name=self.role, plan=True, experts=False, facts=self.facts)
        else:
            request = agent_request(
                state, ctx, settings, name=self.role, walkthrough=self.walkthrough, plan=True, experts=False
            )
        aim = ctx.aim
        check = tool_failure(ctx.allowed, aim) if request.tools is not None else decision_failure(ctx.allowed, aim)
        with ThreadPoolExecutor(max_workers=count, thread_name_prefix="expert") as pool:
            results = list(pool.map(lambda _: ctx.call(self.role, request, check), range(count)))
        moves: list[str] = []
        for i, response in enumerate(results, start=1):
            try:
                decision = read_reply(response, request, ctx.allowed, aim)
            except ActionParseError:
                continue
            action, reason = decision.action, decision.reason
            moves.append(f"Expert {i}: {action.value}" + (f" ({reason})" if reason else ""))
        return {"expert_moves": moves, "experts_frame": state["frame"]}


experts = ExpertsNode()
