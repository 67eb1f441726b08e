"""What nodes and the graph share: the state, the run context, gates, model calls (usage: rundir.usage).

Both `doomagent.nodes` and `doomagent.graph` import from here, never from each other's modules.
"""

from __future__ import annotations

from doomagent.core.calls import call_model
from doomagent.core.context import Answer, RunContext
from doomagent.core.gates import Gate, episode_over, every_frames, needs_wait, runs_this_decision
from doomagent.core.state import DoomState, merge_update, state_keys, state_reducers
from doomagent.rundir.usage import RoleUsage, Usage

__all__ = [
    "Answer",
    "DoomState",
    "Gate",
    "RoleUsage",
    "RunContext",
    "Usage",
    "call_model",
    "episode_over",
    "every_frames",
    "merge_update",
    "needs_wait",
    "runs_this_decision",
    "state_keys",
    "state_reducers",
]
