"""Build the agent's LangGraph state machine from a recipe, or from your own list of nodes.

A decision runs the pipeline in order (vision, planner, experts, agent, wait, act); each node may
have a gate, and the router after a node goes to the next node whose gate passes. After `act` the
episode-end router goes to END or back to the first node.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langgraph.graph import END, START, StateGraph

from doomagent.errors import ConfigError
from doomagent.graph.context import RunContext
from doomagent.graph.routers import Gate, episode_over, every_frames, needs_wait
from doomagent.graph.state import DoomState
from doomagent.recipes import Recipe

NodeFn = Callable[..., Any]


@dataclass
class Step:
    """A node of the decision pipeline and the gate that decides whether it runs this decision."""

    name: str
    fn: NodeFn
    gate: Gate | None = None


class GraphBuilder:
    """Assemble the decision pipeline; add, replace or remove nodes, then compile."""

    def __init__(self, steps: list[Step] | None = None) -> None:
        self.steps: list[Step] = list(steps or [])

    @classmethod
    def from_recipe(cls, recipe: Recipe) -> GraphBuilder:
        """Return the paper's graph for a recipe: vision, [planner], [experts], agent, wait, act."""
        from doomagent import nodes

        if recipe.strategy == "reference" or recipe.roles is None:
            return cls([Step("navigator", nodes.navigator), Step("act", nodes.act)])
        steps = [Step("vision", nodes.vision)]
        if recipe.roles.planner is not None and recipe.strategy in ("plan", "k-levels"):
            steps.append(
                Step(
                    "planner",
                    nodes.planner,
                    every_frames("plan_frame", recipe.roles.planner.every_frames, name="planner_due"),
                )
            )
        if recipe.roles.experts is not None and recipe.strategy == "k-levels":
            steps.append(
                Step(
                    "experts",
                    nodes.experts,
                    every_frames("experts_frame", recipe.roles.experts.every_frames, name="experts_due"),
                )
            )
        steps += [Step("agent", nodes.agent), Step("wait", nodes.wait, needs_wait), Step("act", nodes.act)]
        return cls(steps)

    @property
    def names(self) -> list[str]:
        """Return the node names in pipeline order."""
        return [s.name for s in self.steps]

    def _index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise ConfigError(f"no node named {name!r}", hint=f"nodes: {', '.join(self.names)}") from None

    def add_node(
        self, name: str, fn: NodeFn, *, after: str | None = None, before: str | None = None, when: Gate | None = None
    ) -> GraphBuilder:
        """Insert a node after or before another (default: just before the agent); `when` gates it."""
        if name in self.names:
            raise ConfigError(f"a node named {name!r} exists already", hint="use replace_node to swap it")
        if after is not None and before is not None:
            raise ConfigError("give after= or before=, not both")
        at = self._index(after) + 1 if after is not None else self._index(before or "agent")
        self.steps.insert(at, Step(name, fn, when))
        return self

    def replace_node(self, name: str, fn: NodeFn, *, when: Gate | None = None) -> GraphBuilder:
        """Swap the function of a node, keeping its place (and its gate unless `when` is given)."""
        step = self.steps[self._index(name)]
        self.steps[self._index(name)] = Step(name, fn, when if when is not None else step.gate)
        return self

    def remove_node(self, name: str) -> GraphBuilder:
        """Remove a node from the pipeline."""
        if name == "act":
            raise ConfigError("the act node cannot be removed: nothing would reach the game")
        del self.steps[self._index(name)]
        return self

    def _router(self, start: int, *, loop: bool) -> Callable[[DoomState], str]:
        following = self.steps[start:]
        first = self.steps[0].name

        def route(state: DoomState) -> str:
            if loop and episode_over(state):
                return END
            for step in following:
                if step.gate is None or step.gate(state):
                    return step.name
            return first

        route.__name__ = (
            "route_episode_end" if loop else f"route_after_{self.steps[start - 1].name}" if start else "route_start"
        )
        return route

    def compile(self, *, checkpointer: Any = None) -> Any:
        """Return the compiled LangGraph graph; run it with context=RunContext(...)."""
        if not self.steps or self.names[-1] != "act":
            raise ConfigError("the pipeline must end with the act node", hint=f"nodes: {', '.join(self.names)}")
        graph = StateGraph(DoomState, context_schema=RunContext)
        for step in self.steps:
            graph.add_node(step.name, step.fn)
        targets = self.names
        graph.add_conditional_edges(START, self._router(0, loop=False), targets)
        for i, step in enumerate(self.steps[:-1]):
            graph.add_conditional_edges(step.name, self._router(i + 1, loop=False), [*targets])
        graph.add_conditional_edges("act", self._router(0, loop=True), [*targets, END])
        return graph.compile(checkpointer=checkpointer)


def recursion_limit(max_frames: int, decision_frames: int, nodes: int) -> int:
    """Return a LangGraph recursion limit that fits a whole episode of `max_frames`."""
    decisions = max_frames // max(1, decision_frames) + 2
    return decisions * (nodes + 1) + 50
