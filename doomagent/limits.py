"""Limits shared by every trial of an eval: requests and tokens per window per model, and an eval-wide budget.

One `Coordinator` holds them. A single run uses it in-process; an eval serves it to its worker processes
(a multiprocessing manager) or to its Ray tasks (an actor), so that all workers draw from one allowance.
A worker asks for a start time before each request (`reserve`) and sleeps until then: reservations are
spaced so that no window of the limit ever holds more requests or tokens than allowed, whatever the
number of workers, and a provider's 429 becomes the exception rather than the rule.
"""

from __future__ import annotations

import collections
import re
import threading
import time
from collections.abc import Mapping
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from doomagent.errors import ConfigError

_WINDOWS = {"s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "hour": 3600.0}
_PART = re.compile(r"^\s*(\d+)\s*(tok|tokens)?\s*/\s*(\d*\.?\d*)\s*([a-z]+)\s*$")


class RateLimit(BaseModel):
    """A provider's allowance for one model: at most `requests` calls and `tokens` tokens in any window."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    requests: int | None = Field(None, ge=1, description="requests per window")
    tokens: int | None = Field(None, ge=1, description="input + output tokens per window (estimated up front)")
    window_s: float = Field(60.0, gt=0, description="the window's length in seconds")

    @classmethod
    def parse(cls, spec: str) -> RateLimit:
        """Read `500/min`, `30000tok/min`, `500/min,30000tok/min` or `5/2s` (requests per 2 seconds)."""
        requests: int | None = None
        tokens: int | None = None
        window: float | None = None
        for part in spec.split(","):
            match = _PART.match(part.lower())
            unit = _WINDOWS.get(match.group(4)) if match else None
            if match is None or unit is None:
                raise ConfigError(
                    f"cannot read the rate limit {spec!r}",
                    hint="write requests and/or tokens per window: 500/min, 30000tok/min, 500/min,30000tok/min, 5/2s",
                )
            seconds = float(match.group(3) or 1) * unit
            if window is not None and seconds != window:
                raise ConfigError(f"rate limit {spec!r} mixes windows", hint="give requests and tokens per one window")
            window = seconds
            if match.group(2):
                tokens = int(match.group(1))
            else:
                requests = int(match.group(1))
        if window is None or window <= 0 or (requests or tokens or 0) < 1:
            raise ConfigError(f"rate limit {spec!r} allows nothing", hint="e.g. 500/min")
        return cls(requests=requests, tokens=tokens, window_s=window)

    def describe(self) -> str:
        """Return the limit as `parse` reads it."""
        window = f"{self.window_s:g}s"
        parts = ([f"{self.requests}/{window}"] if self.requests else []) + (
            [f"{self.tokens}tok/{window}"] if self.tokens else []
        )
        return ",".join(parts)


class Limits(Protocol):
    """What a trial asks of the eval's limits (a Coordinator, or a client of one in another process)."""

    def reserve(self, model: str, tokens: int) -> float:
        """Return how many seconds to wait before sending a request of about `tokens` tokens to `model`."""
        ...

    def charge(self, calls: int, cost: float) -> None:
        """Count calls and their cost against the eval's budget."""
        ...

    def exhausted(self) -> bool:
        """Return True once the eval's budget is spent."""
        ...


class Coordinator:
    """The one holder of an eval's rate limits and budget; thread-safe.

    `margin_s` widens each window a little, so that requests leaving at their reserved times still arrive
    no closer together than the window at the provider (network and scheduling jitter).
    """

    def __init__(
        self,
        limits: Mapping[str, RateLimit] | None = None,
        *,
        max_cost: float | None = None,
        max_calls: int | None = None,
        margin_s: float | None = None,
    ) -> None:
        self.limits = dict(limits or {})
        self.max_cost = max_cost
        self.max_calls = max_calls
        self.margin_s = margin_s
        self.calls = 0
        self.cost = 0.0
        self.waits = 0
        self.wait_s = 0.0
        self._lock = threading.Lock()
        self._slots: dict[str, collections.deque[tuple[float, int]]] = {}

    def reserve(self, model: str, tokens: int) -> float:
        """Return the wait before a request to `model` may leave, and book its slot."""
        limit = self.limits.get(model)
        if limit is None:
            return 0.0
        window = limit.window_s + (self.margin_s if self.margin_s is not None else max(0.1, 0.01 * limit.window_s))
        with self._lock:
            now = time.monotonic()
            slots = self._slots.setdefault(model, collections.deque())
            while slots and slots[0][0] <= now - window:
                slots.popleft()
            start = max(now, slots[-1][0]) if slots else now
            while True:
                live = [s for s in slots if s[0] > start - window]
                over_requests = limit.requests is not None and len(live) >= limit.requests
                over_tokens = limit.tokens is not None and live and sum(t for _, t in live) + tokens > limit.tokens
                if not (over_requests or over_tokens):
                    break
                start = live[0][0] + window  # wait until the oldest booking in the window leaves it
            slots.append((start, tokens))
            delay = start - now
            if delay > 0:
                self.waits += 1
                self.wait_s += delay
            return delay

    def charge(self, calls: int, cost: float) -> None:
        """Count calls and cost against the budget."""
        with self._lock:
            self.calls += calls
            self.cost += cost

    def exhausted(self) -> bool:
        """Return True once the budget is spent."""
        with self._lock:
            return (self.max_calls is not None and self.calls >= self.max_calls) or (
                self.max_cost is not None and self.cost >= self.max_cost
            )

    def spent(self) -> dict[str, float | int | None]:
        """Return what was spent and waited, with the caps."""
        with self._lock:
            return {
                "calls": self.calls,
                "cost": round(self.cost, 6),
                "max_calls": self.max_calls,
                "max_cost": self.max_cost,
                "rate_limit_waits": self.waits,
                "rate_limit_wait_s": round(self.wait_s, 3),
            }


def wait_for_slot(limits: Limits, model: str, tokens: int) -> float:
    """Reserve a slot and sleep until it; return the seconds waited."""
    delay = limits.reserve(model, tokens)
    if delay > 0:
        time.sleep(delay)
    return max(delay, 0.0)
