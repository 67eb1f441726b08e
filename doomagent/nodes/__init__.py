"""Graph nodes, one role per module: each reads the state, calls its injected model, returns what changed."""

from __future__ import annotations

from doomagent.nodes.act import act
from doomagent.nodes.agent import agent, agent_request
from doomagent.nodes.experts import experts
from doomagent.nodes.history import clip_history
from doomagent.nodes.navigator import navigator
from doomagent.nodes.planner import planner
from doomagent.nodes.vision import vision
from doomagent.nodes.wait import wait

__all__ = ["act", "agent", "agent_request", "clip_history", "experts", "navigator", "planner", "vision", "wait"]
