"""Build the agent's LangGraph state machine from a recipe, or from your own nodes, state and routers.

A decision runs a pipeline of steps in order (the paper's: vision, planner, experts, agent, wait, act).
Each step may have a gate; after a node the router goes to the next step whose gate passes, unless a
named router of yours says otherwise (a branch, or a loop back such as agent -> critic -> agent). A
parallel step runs several nodes at once and joins them before the next step. After `act` the
episode-end router goes to END or back to the first step.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.graph import END, START, StateGraph

from doomagent.errors import ConfigError
from doomagent.recipes import Recipe
from doomagent.runtime.context import RunContext
from doomagent.runtime.gates import Gate, episode_over, every_frames, needs_wait, runs_this_decision
from doomagent.runtime.protocols import Binds, CallsRoles
from doomagent.runtime.state import BASE_KEYS, DECISION_END, DoomState, declared_keys, state_keys

NodeFn = Callable[..., Any]
Router = Callable[[Mapping[str, Any]], str]
NEXT = "__next__"  # a router's answer for "carry on down the pipeline"


@dataclass
class Step:
    """A step of the decision pipeline: one node, or (with `members`) several run at once and then joined."""

    name: str
    fn: NodeFn | None
    gate: Gate | None = None
    roles: tuple[str, ...] = ()
    members: tuple[Step, ...] = ()

    def nodes(self) -> list[Step]:
        """Return the node steps this step adds to the graph (itself, or its members)."""
        return list(self.members) if self.members else [self]


@dataclass
class _Route:
    router: Router
    targets: tuple[str, ...]
    extra_runs: int = 0  # how many extra passes over the pipeline this router may cause per decision


@dataclass
class GraphBuilder:
    """Assemble the decision pipeline; add, replace or remove nodes, add routers, loops and parallel
    steps; then compile. `state` is the graph's state class: DoomState or a TypedDict extending it."""

    steps: list[Step] = field(default_factory=list)
    state: type = DoomState
    routes: dict[str, _Route] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.steps = list(self.steps)
        keys = state_keys(self.state)
        missing = BASE_KEYS - keys
        if missing:
            raise ConfigError(
                f"state class {getattr(self.state, '__name__', self.state)!r} lacks DoomState's keys "
                f"({', '.join(sorted(missing)[:5])}…)",
                hint="declare it as `class MyState(DoomState): my_key: int`",
            )
        self._keys = keys

    @classmethod
    def from_recipe(cls, recipe: Recipe, *, state: type = DoomState) -> GraphBuilder:
        """Return the paper's graph for a recipe: vision, [planner], [experts], agent, wait, act.

        The nodes are configured here (what the Agent's prompt shows, how Vision perceives), never by
        the nodes re-reading the recipe.
        """
        from doomagent import nodes

        if recipe.strategy == "reference" or recipe.roles is None:
            return cls([Step("navigator", nodes.navigator), Step("act", nodes.act)], state=state)
        if recipe.direct:
            return cls._direct(recipe, state)
        shows_walkthrough = recipe.strategy != "naive"
        steps = [Step("vision", nodes.VisionNode(recipe.perception))]
        if recipe.roles.planner is not None and recipe.strategy in ("plan", "k-levels"):
            gate = every_frames("plan_frame", recipe.roles.planner.every_frames, name="planner_due")
            steps.append(Step("planner", nodes.PlannerNode(), gate))
        if recipe.roles.experts is not None and recipe.strategy == "k-levels":
            gate = every_frames("experts_frame", recipe.roles.experts.every_frames, name="experts_due")
            steps.append(Step("experts", nodes.ExpertsNode(walkthrough=shows_walkthrough), gate))
        steps += [
            Step("agent", nodes.AgentNode(walkthrough=shows_walkthrough)),
            Step("wait", nodes.wait, needs_wait),
            Step("act", nodes.act),
        ]
        return cls(steps, state=state)

    @classmethod
    def _direct(cls, recipe: Recipe, state: type) -> GraphBuilder:
        """Return a direct strategy's graph: [planner], [experts], agent (seeing the screen), wait, act."""
        from doomagent import nodes

        assert recipe.roles is not None
        facts = recipe.perception == "hybrid"
        steps = []
        if recipe.roles.planner is not None and recipe.strategy in ("direct-plan", "direct-k-levels"):
            gate = every_frames("plan_frame", recipe.roles.planner.every_frames, name="planner_due")
            steps.append(Step("planner", nodes.PlannerNode(), gate))
        if recipe.roles.experts is not None and recipe.strategy == "direct-k-levels":
            gate = every_frames("experts_frame", recipe.roles.experts.every_frames, name="experts_due")
            steps.append(Step("experts", nodes.ExpertsNode(screen=True, facts=facts), gate))
        steps += [
            Step("agent", nodes.AgentNode(screen=True, facts=facts)),
            Step("wait", nodes.wait, needs_wait),
            Step("act", nodes.act),
        ]
        return cls(steps, state=state)

    # -- reading -------------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """Return the step names in pipeline order (a parallel step by its own name)."""
        return [s.name for s in self.steps]

    @property
    def node_names(self) -> list[str]:
        """Return every node of the graph: steps, parallel members and joins."""
        out: list[str] = []
        for step in self.steps:
            out += [m.name for m in step.members] + [step.name] if step.members else [step.name]
        return out

    @property
    def roles(self) -> frozenset[str]:
        """Return the recipe roles the graph's nodes call; only these get models (and keys) at run time."""
        out: set[str] = set()
        for step in self.steps:
            for node in step.nodes():
                out.update(node.roles or (node.fn.roles if isinstance(node.fn, CallsRoles) else ()))
        return frozenset(out)

    @property
    def custom_keys(self) -> tuple[str, ...]:
        """Return the state keys beyond DoomState's, in declaration order."""
        return tuple(k for k in declared_keys(self.state) if k not in BASE_KEYS)  # the same order every run

    def _index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise ConfigError(f"no step named {name!r}", hint=f"steps: {', '.join(self.names)}") from None

    def _check_new(self, *names: str) -> None:
        for name in names:
            if name in self.node_names:
                raise ConfigError(f"a node named {name!r} exists already", hint="use replace_node to swap it")
            if name in (START, END, NEXT) or not name:
                raise ConfigError(f"{name!r} is not a usable node name")

    def _at(self, after: str | None, before: str | None) -> int:
        if after is not None and before is not None:
            raise ConfigError("give after= or before=, not both")
        return self._index(after) + 1 if after is not None else self._index(before or "agent")

    # -- editing -------------------------------------------------------------------------------

    def add_node(
        self,
        name: str,
        fn: NodeFn,
        *,
        after: str | None = None,
        before: str | None = None,
        when: Gate | None = None,
        roles: Iterable[str] | None = None,
    ) -> GraphBuilder:
        """Insert a node after or before a step (default: just before the agent).

        Args:
            name: the node's name (in traces, routers and logs).
            fn: `fn(state)` or `fn(state, runtime)` returning the keys it changes (declared in the state class).
            after: the step it follows.
            before: the step it precedes.
            when: a gate: the node runs only in decisions where `when(state)` is true.
            roles: the recipe roles it calls through `ctx.ask` (their models are built and checked).
        """
        self._check_new(name)
        self.steps.insert(self._at(after, before), Step(name, fn, when, self._roles(fn, roles)))
        return self

    def add_parallel(
        self,
        name: str,
        nodes: Mapping[str, NodeFn],
        *,
        after: str | None = None,
        before: str | None = None,
        when: Gate | None = None,
        roles: Mapping[str, Iterable[str]] | None = None,
    ) -> GraphBuilder:
        """Insert a step that runs several nodes at once (one LangGraph super-step), then joins them.

        Two members that write the same key need a reducer for it (`Annotated[list[str], operator.add]`).
        `name` is the join node; `when` gates the whole step.
        """
        if len(nodes) < 2:
            raise ConfigError(f"parallel step {name!r} needs at least two nodes", hint="use add_node for one")
        self._check_new(name, *nodes)
        members = tuple(
            Step(member, fn, None, self._roles(fn, (roles or {}).get(member))) for member, fn in nodes.items()
        )
        self.steps.insert(self._at(after, before), Step(name, None, when, (), members))
        return self

    def replace_node(
        self, name: str, fn: NodeFn, *, when: Gate | None = None, roles: Iterable[str] | None = None
    ) -> GraphBuilder:
        """Swap the function of a node, keeping its place (and its gate unless `when` is given)."""
        i = self._index(name)
        step = self.steps[i]
        if step.members:
            raise ConfigError(f"{name!r} is a parallel step", hint="remove it and add a new one")
        self.steps[i] = Step(name, fn, when if when is not None else step.gate, self._roles(fn, roles))
        return self

    def remove_node(self, name: str) -> GraphBuilder:
        """Remove a step from the pipeline (its roles then need no model and no key)."""
        if name == DECISION_END:
            raise ConfigError("the act node cannot be removed: nothing would reach the game")
        del self.steps[self._index(name)]
        self.routes.pop(name, None)
        return self

    def add_router(self, after: str, router: Router, *, targets: Sequence[str], passes: int = 1) -> GraphBuilder:
        """After node `after`, go where `router(state)` says: one of `targets`, or NEXT for the pipeline's
        own next step. `passes` bounds how often per decision it may send the graph back (for the
        recursion limit)."""
        if after == DECISION_END:
            raise ConfigError("the act node's router is the episode end; add your router before act")
        if after not in self.names:
            raise ConfigError(f"no node named {after!r} to route after", hint=f"steps: {', '.join(self.names)}")
        self.routes[after] = _Route(router, tuple(targets), passes)
        return self

    def add_loop(self, node: str, *, back_to: str, when: Gate, max_times: int = 1) -> GraphBuilder:
        """After `node`, go back to `back_to` while `when(state)` holds, at most `max_times` times per
        decision; then carry on down the pipeline (e.g. agent -> critic -> agent, then act)."""
        if max_times < 1:
            raise ConfigError(f"add_loop max_times must be at least 1, not {max_times}")
        if back_to not in self.names or self.names.index(back_to) > self._index(node):
            raise ConfigError(f"add_loop: {back_to!r} must be a step at or before {node!r}")

        def loop(state: Mapping[str, Any]) -> str:
            if runs_this_decision(state, back_to) <= max_times and when(state):
                return back_to
            return NEXT

        loop.__name__ = f"loop_{node}_to_{back_to}"
        return self.add_router(node, loop, targets=[back_to], passes=max_times)

    @staticmethod
    def _roles(fn: NodeFn, roles: Iterable[str] | None) -> tuple[str, ...]:
        if roles is not None:
            return tuple(roles)
        return tuple(fn.roles) if isinstance(fn, CallsRoles) else ()

    # -- compiling -----------------------------------------------------------------------------

    def _router(self, start: int, *, after: str | None, loop: bool) -> Callable[[Mapping[str, Any]], Any]:
        following = self.steps[start:]
        route = self.routes.get(after) if after is not None else None
        first = self.steps[0]
        names = set(self.node_names)

        def target(step: Step) -> Any:
            return [m.name for m in step.members] if step.members else step.name

        def pipeline(state: Mapping[str, Any]) -> Any:
            if loop and episode_over(state):
                return END
            for step in following:
                if step.gate is None or step.gate(state):
                    return target(step)
            return target(first)

        if route is None:
            pipeline.__name__ = f"route_after_{after}" if after else "route_episode_end" if loop else "route_start"
            return pipeline

        def custom(state: Mapping[str, Any]) -> Any:
            choice = route.router(state)
            if choice == NEXT:
                return pipeline(state)
            if choice not in names:
                raise ConfigError(
                    f"router after {after!r} chose {choice!r}, which is not a node",
                    hint=f"return one of {', '.join(route.targets)} or NEXT",
                )
            return target(self.steps[self.names.index(choice)]) if choice in self.names else choice

        custom.__name__ = getattr(route.router, "__name__", f"route_after_{after}")
        return custom

    def _wrap(self, name: str, fn: NodeFn) -> NodeFn:
        keys = self._keys
        takes_runtime = _takes_runtime(fn)
        state_name = getattr(self.state, "__name__", "the state")

        def node(state: dict[str, Any], runtime: Any) -> dict[str, Any]:
            update = fn(state, runtime) if takes_runtime else fn(state)
            if update is None:
                return {"trace": [name]}
            if not isinstance(update, dict):
                raise ConfigError(
                    f"node {name!r} returned {type(update).__name__}, not a dict of state keys",
                    hint="return {'key': value, ...} with the keys the node changes (or None)",
                )
            extra = update.keys() - keys
            if extra:
                raise ConfigError(
                    f"node {name!r} returned keys that {state_name} does not declare: {', '.join(sorted(extra))}",
                    hint="declare them in a state class (class MyState(DoomState): key: type) and pass "
                    "GraphBuilder(..., state=MyState)",
                )
            return {**update, "trace": [name]}

        node.__name__ = name
        return node

    def compile(self, *, checkpointer: Any = None) -> Any:
        """Return the compiled LangGraph graph; run it with context=RunContext(...)."""
        if not self.steps or self.names[-1] != DECISION_END:
            raise ConfigError("the pipeline must end with the act node", hint=f"steps: {', '.join(self.names)}")
        bound = frozenset(self.node_names)
        for after, route in self.routes.items():
            unknown = [t for t in route.targets if t != NEXT and t not in bound]
            if unknown:
                raise ConfigError(
                    f"the router after {after!r} may send the graph to {', '.join(map(repr, unknown))}, "
                    "which is not a node of this graph",
                    hint=f"targets are node names or NEXT; nodes: {', '.join(self.node_names)}",
                )
        graph: StateGraph[Any, Any, Any, Any] = StateGraph(self.state, context_schema=RunContext)
        for step in self.steps:
            for node in step.nodes():
                assert node.fn is not None
                fn = node.fn.bind(bound) if isinstance(node.fn, Binds) else node.fn
                graph.add_node(node.name, self._wrap(node.name, fn))
            if step.members:
                graph.add_node(step.name, self._wrap(step.name, _join))
                graph.add_edge([m.name for m in step.members], step.name)
        targets = self.node_names
        graph.add_conditional_edges(START, self._router(0, after=None, loop=False), targets)
        for i, step in enumerate(self.steps[:-1]):
            graph.add_conditional_edges(step.name, self._router(i + 1, after=step.name, loop=False), targets)
        graph.add_conditional_edges(DECISION_END, self._router(0, after=None, loop=True), [*targets, END])
        return graph.compile(checkpointer=checkpointer)

    def recursion_limit(self, max_frames: int, decision_frames: int) -> int:
        """Return a LangGraph recursion limit that fits a whole episode of `max_frames`."""
        per_pass = len(self.node_names)
        extra = sum(r.extra_runs for r in self.routes.values())
        return recursion_limit(max_frames, decision_frames, per_pass * (1 + extra))


def _join(state: Mapping[str, Any]) -> None:
    """Join a parallel step: nothing to change, the members' writes are already merged."""
    return None


def _takes_runtime(fn: NodeFn) -> bool:
    try:
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
        ]
    except (TypeError, ValueError):
        return True
    return len(params) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params)


def recursion_limit(max_frames: int, decision_frames: int, nodes: int) -> int:
    """Return a LangGraph recursion limit that fits a whole episode of `max_frames`."""
    decisions = max_frames // max(1, decision_frames) + 2
    return decisions * (nodes + 1) + 50
