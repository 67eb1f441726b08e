"""The LangGraph state machine: a builder (nodes, gates, routers, loops, parallel steps) and the trial runner."""

from __future__ import annotations

from doomagent.graph.builder import NEXT, GraphBuilder, Step, recursion_limit
from doomagent.graph.runner import (
    Decision,
    TrialStream,
    arun_trial,
    build_models,
    check_models,
    run_trial,
    stream_trial,
    write_recipe,
)
from doomagent.rundir.summary import TrialResult
from doomagent.runtime.context import Answer, RunContext
from doomagent.runtime.gates import episode_over, every_frames, needs_wait, runs_this_decision
from doomagent.runtime.state import DoomState

__all__ = [
    "NEXT",
    "Answer",
    "Decision",
    "DoomState",
    "GraphBuilder",
    "RunContext",
    "Step",
    "TrialResult",
    "TrialStream",
    "arun_trial",
    "build_models",
    "check_models",
    "episode_over",
    "every_frames",
    "needs_wait",
    "recursion_limit",
    "run_trial",
    "runs_this_decision",
    "stream_trial",
    "write_recipe",
]
