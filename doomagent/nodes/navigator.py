"""Navigator: the reference strategy's only decision node; a scripted player, no model."""

from __future__ import annotations

from doomagent.nodes.policy import PolicyNode, policy_node
from doomagent.policies.reference import ReferenceNavigator
from doomagent.runtime.context import RunContext


def _reference(ctx: RunContext) -> ReferenceNavigator:
    config = ctx.env.config
    return ReferenceNavigator.for_map(ctx.env.rooms, screen_width=config.width, skill=config.skill, god=config.god)


navigator: PolicyNode = policy_node(factory=_reference, reason="reference navigator", key="navigator")
