"""Model use per role, as a type that adds itself: calls, errors, tokens, cost and latency."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, PrivateAttr


class RoleUsage(BaseModel):
    """One role's model use; `a + b` adds two of them."""

    model_config = ConfigDict(extra="ignore")

    calls: int = 0
    errors: int = 0  # calls that failed or whose answer was unusable
    failed: int = 0  # calls that got no answer at all (the provider or its server failed, after retries)
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0  # input tokens the provider read from its prompt cache (part of input_tokens)
    cache_write_tokens: int = 0  # input tokens the provider wrote to its prompt cache (Anthropic)
    cost: float = 0.0
    latency_s: float = 0.0
    rate_waits: int = 0  # requests held back by the eval's shared rate limit
    rate_wait_s: float = 0.0  # seconds they waited

    def __add__(self, other: RoleUsage) -> RoleUsage:
        return RoleUsage(
            calls=self.calls + other.calls,
            errors=self.errors + other.errors,
            failed=self.failed + other.failed,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cost=self.cost + other.cost,
            latency_s=self.latency_s + other.latency_s,
            rate_waits=self.rate_waits + other.rate_waits,
            rate_wait_s=self.rate_wait_s + other.rate_wait_s,
        )

    @property
    def tokens(self) -> int:
        """Return input and output tokens together."""
        return self.input_tokens + self.output_tokens


class Usage(BaseModel):
    """Model use of a trial (or of many, added up) by role; safe to add to from several threads."""

    roles: dict[str, RoleUsage] = {}
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def from_dict(cls, data: Mapping[str, Mapping[str, Any]] | None) -> Usage:
        """Return usage from its JSON form, `{role: {calls, errors, ...}}`."""
        return cls(roles={role: RoleUsage.model_validate(dict(v)) for role, v in (data or {}).items()})

    @classmethod
    def total(cls, items: Iterable[Usage]) -> Usage:
        """Return the sum of many usages."""
        out = cls()
        for item in items:
            out = out + item
        return out

    def add(self, role: str, delta: RoleUsage) -> None:
        """Count one call (or several) of `role`."""
        with self._lock:
            self.roles[role] = self.roles.get(role, RoleUsage()) + delta

    def __add__(self, other: Usage) -> Usage:
        roles = dict(self.roles)
        for role, value in other.roles.items():
            roles[role] = roles.get(role, RoleUsage()) + value
        return Usage(roles=roles)

    @property
    def totals(self) -> RoleUsage:
        """Return all roles together."""
        out = RoleUsage()
        for value in list(self.roles.values()):
            out = out + value
        return out

    def as_dict(self) -> dict[str, dict[str, Any]]:
        """Return the JSON form, `{role: {calls, errors, input_tokens, output_tokens, cost, latency_s, ...}}`."""
        return {role: value.model_dump() for role, value in self.roles.items()}
