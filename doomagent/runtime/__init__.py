"""The node runtime: what nodes and the graph share. The state (`state`), the run context with the one model-call
path (`context`: `RunContext.request` and `.call`, `.ask` for custom nodes; the call's parts in `calls`), cadence
gates (`gates`) and the node protocols the builder checks (`protocols`). Usage is counted in rundir.usage.

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
