"""What the built-in model nodes share."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RoleNode:
    """A node that calls one recipe role's model (`role`); it declares it (`roles`, see runtime.protocols)."""

    role: str

    @property
    def roles(self) -> tuple[str, ...]:
        """Return the recipe roles this node calls."""
        return (self.role,)
