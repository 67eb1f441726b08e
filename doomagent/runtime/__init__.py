"""What nodes and the graph share: the state, the run context (a model call is `RunContext.call`), gates, node
protocols (usage: rundir.usage).

Both `doomagent.nodes` and `doomagent.graph` import from here, never from each other's modules.
"""

from __future__ import annotations

from doomagent.rundir.usage import RoleUsage, Usage
from doomagent.runtime.context import Answer, RunContext
from doomagent.runtime.gates import Gate, episode_over, every_frames, needs_wait, runs_this_decision
from doomagent.runtime.state import DoomState, merge_update, state_keys, state_reducers

__all__ = [
    "Answer",
    "DoomState",
    "Gate",
    "RoleUsage",
    "RunContext",
    "Usage",
    "episode_over",
    "every_frames",
    "merge_update",
    "needs_wait",
    "runs_this_decision",
    "state_keys",
    "state_reducers",
]
