"""Optional features of a node, declared: the builder finds them with isinstance, never by probing.

A node is any callable `(state)` or `(state, runtime)` returning a dict of state keys (or None). It may also:

- `CallsRoles`: say which recipe roles it calls (`roles`), so that only those get models and keys;
- `Binds`: settle open choices once the graph's nodes are known (`bind(names)` returns the node to run;
  the Agent shows the plan only when a planner is in the graph).

(A model's optional features are in `doomagent.providers.base`: Startable, Closable, Stateful, Gated.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class CallsRoles(Protocol):
    """A node that calls the models of some recipe roles."""

    @property
    def roles(self) -> tuple[str, ...]:
        """Return the roles, e.g. ("agent",)."""
        ...


@runtime_checkable
class Binds(Protocol):
    """A node whose behaviour depends on which other nodes the graph holds."""

    def bind(self, nodes: frozenset[str]) -> Callable[..., Any]:
        """Return the node to run in a graph with these node names."""
        ...
