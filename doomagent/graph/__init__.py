"""The LangGraph state machine: state, context, named routers, a builder, and the trial runner."""

from __future__ import annotations

from doomagent.graph.builder import GraphBuilder, Step, recursion_limit
from doomagent.graph.context import RunContext
from doomagent.graph.routers import episode_over, every_frames, needs_wait
from doomagent.graph.runner import Progress, TrialResult, arun_trial, build_models, run_trial, write_recipe
from doomagent.graph.state import DoomState

__all__ = [
    "DoomState",
    "GraphBuilder",
    "Progress",
    "RunContext",
    "Step",
    "TrialResult",
    "arun_trial",
    "build_models",
    "episode_over",
    "every_frames",
    "needs_wait",
    "recursion_limit",
    "run_trial",
    "write_recipe",
]
