"""Graph nodes, one role per module: each reads the state, calls its injected model, returns what changed.

The model-calling nodes are configured objects (`AgentNode(plan=True)`, `VisionNode("hybrid")`); the
builder sets them up from a recipe. `policy_node` turns any `act(observation)` callable into a node.
"""

from __future__ import annotations

from doomagent.nodes.act import act
from doomagent.nodes.agent import AgentNode, agent, agent_request
from doomagent.nodes.experts import ExpertsNode, experts
from doomagent.nodes.history import clip_history
from doomagent.nodes.navigator import navigator
from doomagent.nodes.planner import PlannerNode, planner
from doomagent.nodes.policy import Policy, PolicyNode, policy_node
from doomagent.nodes.vision import VisionNode, vision
from doomagent.nodes.wait import wait

__all__ = [
    "AgentNode",
    "ExpertsNode",
    "PlannerNode",
    "Policy",
    "PolicyNode",
    "VisionNode",
    "act",
    "agent",
    "agent_request",
    "clip_history",
    "experts",
    "navigator",
    "planner",
    "policy_node",
    "vision",
    "wait",
]
