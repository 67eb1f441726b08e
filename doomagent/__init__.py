"""doomagent: provider-agnostic LLM/VLM agents that play Doom on the real C engine.

Everything a user needs is importable from here (names load on first use, so `import doomagent` is
quick and starts no engine):

    from doomagent import GraphBuilder, load_recipe, run_trial

`import doomagent` registers `doomagent/Doom-v0` with Gymnasium (at once if Gymnasium is loaded, else on
Gymnasium's first import), so `gymnasium.make("doomagent/Doom-v0")` works after it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from doomagent._internal import gym_hook as _gym_hook
from doomagent.errors import (
    ActionParseError,
    ConfigError,
    DiskError,
    DoomAgentError,
    EngineError,
    FatalProviderError,
    MapNotFoundError,
    MissingApiKeyError,
    ModelServerError,
    NoPlanError,
    ProviderError,
    ProviderUnreachableError,
    RunError,
    UserError,
    WadFormatError,
    WadNotFoundError,
)

if TYPE_CHECKING:
    from doomagent.env.actions import Action, parse_action
    from doomagent.env.config import EnvConfig
    from doomagent.env.doom_env import DoomEnv
    from doomagent.env.fake import FakeEnv
    from doomagent.env.gym_env import ENV_ID, DoomGymEnv
    from doomagent.env.observation import Observation
    from doomagent.env.outcome import Outcome
    from doomagent.env.progression import Objective, ProgressionPlan, plan_map
    from doomagent.eval.jobs import EvalLimits, EvalResult, Event, Job
    from doomagent.eval.runner import plan_jobs, run_eval
    from doomagent.graph.builder import NEXT, GraphBuilder
    from doomagent.graph.runner import Decision, TrialStream, arun_trial, run_trial, stream_trial
    from doomagent.nodes import AgentNode, ExpertsNode, PlannerNode, Policy, VisionNode, policy_node
    from doomagent.providers._stub_formats import StubAnswer
    from doomagent.providers.base import Model, ModelRequest, ModelResponse, ToolCall, user_message
    from doomagent.providers.limits import Coordinator, RateLimit
    from doomagent.providers.litellm_model import LiteLLMModel
    from doomagent.providers.resolve import resolve_model
    from doomagent.providers.settings import RoleSettings
    from doomagent.providers.stub_server import StubServer
    from doomagent.providers.testing import ScriptedModel, SeededTestModel
    from doomagent.recipes import Recipe, load_recipe
    from doomagent.rundir.summary import TrialResult
    from doomagent.rundir.usage import RoleUsage, Usage
    from doomagent.runtime.context import Answer, RunContext
    from doomagent.runtime.gates import episode_over, every_frames, needs_wait, runs_this_decision
    from doomagent.runtime.state import DoomState

__version__ = "0.7.26"

_WHERE = {
    "Answer": "doomagent.runtime.context",
    "RunContext": "doomagent.runtime.context",
    "episode_over": "doomagent.runtime.gates",
    "every_frames": "doomagent.runtime.gates",
    "needs_wait": "doomagent.runtime.gates",
    "runs_this_decision": "doomagent.runtime.gates",
    "DoomState": "doomagent.runtime.state",
    "RoleUsage": "doomagent.rundir.usage",
    "Usage": "doomagent.rundir.usage",
    "Action": "doomagent.env.actions",
    "parse_action": "doomagent.env.actions",
    "EnvConfig": "doomagent.env.config",
    "DoomEnv": "doomagent.env.doom_env",
    "FakeEnv": "doomagent.env.fake",
    "ENV_ID": "doomagent.env.gym_env",
    "DoomGymEnv": "doomagent.env.gym_env",
    "Observation": "doomagent.env.observation",
    "Outcome": "doomagent.env.outcome",
    "Objective": "doomagent.env.progression",
    "ProgressionPlan": "doomagent.env.progression",
    "plan_map": "doomagent.env.progression",
    "EvalLimits": "doomagent.eval.jobs",
    "EvalResult": "doomagent.eval.jobs",
    "Event": "doomagent.eval.jobs",
    "Job": "doomagent.eval.jobs",
    "plan_jobs": "doomagent.eval.runner",
    "run_eval": "doomagent.eval.runner",
    "Coordinator": "doomagent.providers.limits",
    "RateLimit": "doomagent.providers.limits",
    "NEXT": "doomagent.graph.builder",
    "GraphBuilder": "doomagent.graph.builder",
    "Decision": "doomagent.graph.runner",
    "TrialStream": "doomagent.graph.runner",
    "arun_trial": "doomagent.graph.runner",
    "run_trial": "doomagent.graph.runner",
    "stream_trial": "doomagent.graph.runner",
    "AgentNode": "doomagent.nodes",
    "ExpertsNode": "doomagent.nodes",
    "PlannerNode": "doomagent.nodes",
    "Policy": "doomagent.nodes",
    "VisionNode": "doomagent.nodes",
    "policy_node": "doomagent.nodes",
    "Model": "doomagent.providers.base",
    "ModelRequest": "doomagent.providers.base",
    "ModelResponse": "doomagent.providers.base",
    "LiteLLMModel": "doomagent.providers.litellm_model",
    "user_message": "doomagent.providers.base",
    "ToolCall": "doomagent.providers.base",
    "StubAnswer": "doomagent.providers._stub_formats",
    "resolve_model": "doomagent.providers.resolve",
    "RoleSettings": "doomagent.providers.settings",
    "StubServer": "doomagent.providers.stub_server",
    "ScriptedModel": "doomagent.providers.testing",
    "SeededTestModel": "doomagent.providers.testing",
    "Recipe": "doomagent.recipes",
    "load_recipe": "doomagent.recipes",
    "TrialResult": "doomagent.rundir.summary",
}

_ERRORS = (
    "ActionParseError",
    "ConfigError",
    "DiskError",
    "DoomAgentError",
    "EngineError",
    "FatalProviderError",
    "MapNotFoundError",
    "MissingApiKeyError",
    "ModelServerError",
    "NoPlanError",
    "ProviderError",
    "ProviderUnreachableError",
    "RunError",
    "UserError",
    "WadFormatError",
    "WadNotFoundError",
)

# One table: the errors (imported above, from doomagent.errors) and the lazily loaded names in _WHERE.
__all__ = sorted(["__version__", *_ERRORS, *_WHERE])


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'doomagent' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


_gym_hook.install()  # registers doomagent/Doom-v0 with Gymnasium, when (or once) Gymnasium is imported
