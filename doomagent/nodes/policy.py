"""Policies as nodes: any `act(observation) -> Action` callable (a scripted bot, an RL policy, the
reference navigator) plays the decision in place of, or beside, the LLM nodes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from langgraph.runtime import Runtime

from doomagent.env.actions import Action, parse_action
from doomagent.env.observation import Observation
from doomagent.errors import ActionParseError, ConfigError
from doomagent.runtime.context import RunContext


@runtime_checkable
class Policy(Protocol):
    """Anything with `act(observation) -> Action` (an Action, its text, or its index)."""

    def act(self, observation: Observation) -> Action | str | int:
        """Return the action for this observation."""
        ...


PolicyLike = Policy | Callable[[Observation], Action | str | int]
PolicyFactory = Callable[[RunContext], PolicyLike]


def _as_action(value: Action | str | int) -> Action:
    if isinstance(value, bool):
        raise ActionParseError(repr(value), "an action must be an Action, its text or its index")
    if isinstance(value, int):
        return list(Action)[value]
    return parse_action(value)


@dataclass(frozen=True)
class PolicyNode:
    """A node that asks a policy for the action; with `factory`, one policy is built per trial (it may
    keep state between decisions and read the map from the run context).

    An answer that is not an action is played as WAIT and marked (parse_ok False), as an LLM's would be.
    """

    policy: PolicyLike | None = None
    factory: PolicyFactory | None = None
    reason: str = ""
    key: str = "policy"  # where a factory's per-trial policy is kept in ctx.scratch

    roles: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if (self.policy is None) == (self.factory is None):
            raise ConfigError("policy_node needs a policy or a factory, not both", hint="policy_node(my_bot.act)")

    def _policy(self, ctx: RunContext) -> PolicyLike:
        if self.policy is not None:
            return self.policy
        found = ctx.scratch.get(self.key)
        if found is None:
            assert self.factory is not None
            found = ctx.scratch[self.key] = self.factory(ctx)
        return found  # type: ignore[return-value]

    def __call__(self, state: Mapping[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
        """Return the policy's action for the current observation."""
        ctx = runtime.context
        assert ctx.observation is not None, "the run loop sets the observation before the first node"
        policy = self._policy(ctx)
        act = policy.act if isinstance(policy, Policy) else policy
        value = act(ctx.observation)
        try:
            action = _as_action(value)
        except (ActionParseError, IndexError):
            return {"action": Action.WAIT.value, "reason": "", "parse_ok": False, "raw": str(value)}
        return {"action": action.value, "reason": self.reason, "parse_ok": True, "raw": action.value}


def policy_node(
    policy: PolicyLike | None = None,
    *,
    factory: PolicyFactory | None = None,
    reason: str = "",
    key: str = "policy",
) -> PolicyNode:
    """Return a node that plays `policy` (an object with `.act(obs)` or a plain function of the observation).

    Args:
        policy: the policy, shared by every trial the node plays.
        factory: builds a fresh policy per trial from the run context (e.g. from `ctx.env.rooms`).
        reason: the reason written with each action in steps.jsonl.
        key: where the per-trial policy is kept in `ctx.scratch` (give two policy nodes different keys).
    """
    return PolicyNode(policy=policy, factory=factory, reason=reason, key=key)
