"""Limits shared by every trial of an eval: requests and tokens per window per model, and an eval-wide budget.

One `Coordinator` holds them. A single run uses it in-process; an eval serves it to its worker processes
(a multiprocessing manager) or to its Ray tasks (an actor), so that all workers draw from one allowance.
A worker asks before each request (`reserve`): the holder grants it at once or says how long to wait
before asking again, and the worker says when the answer came (`release`). No window at the provider ever
holds more requests or tokens than allowed, whatever the number of workers, and a provider's 429 becomes
the exception rather than the rule.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
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

    def reserve(self, model: str, tokens: int) -> tuple[float, int]:
        """Ask to send a request of about `tokens` tokens to `model`: (0, ticket) when it may go now,
        else (seconds to wait before asking again, -1)."""
        ...

    def release(self, model: str, ticket: int) -> None:
        """Say that the request of `ticket` got its answer (or failed)."""
        ...

    def charge(self, calls: int, cost: float) -> None:
        """Count calls and their cost against the eval's budget."""
        ...

    def exhausted(self) -> bool:
        """Return True once the eval's budget is spent."""
        ...

    def spent(self) -> dict[str, float | int | None]:
        """Return what was spent and waited, with the caps."""
        ...


@dataclass
class _Sent:
    at: float  # granted
    tokens: int
    done: float | None = None  # answered; None while in flight


class Coordinator:
    """The one holder of an eval's rate limits and budget; thread-safe.

    A granted request counts against its window from the grant until one window after its answer: it
    reaches the provider somewhere in between, so the provider never sees more than the limit in any
    window, however late a worker sends after its grant. The price: the achieved rate is the limit per
    (window + latency). A request never released (its worker died) stops counting after `stale_s`.
    """

    def __init__(
        self,
        limits: Mapping[str, RateLimit] | None = None,
        *,
        max_cost: float | None = None,
        max_calls: int | None = None,
        stale_s: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = dict(limits or {})
        self.clock = clock
        self.max_cost = max_cost
        self.max_calls = max_calls
        self.stale_s = stale_s
        self.calls = 0
        self.cost = 0.0
        self.waits = 0  # times a request was told to wait (one request may be told more than once)
        self.wait_s = 0.0
        self._lock = threading.Lock()
        self._sent: dict[str, dict[int, _Sent]] = {}
        self._tickets = itertools.count(1)

    def reserve(self, model: str, tokens: int) -> tuple[float, int]:
        """Grant a request to `model` now, or say how long to wait before asking again."""
        limit = self.limits.get(model)
        if limit is None:
            return 0.0, 0
        window = limit.window_s
        with self._lock:
            now = self.clock()
            sent = self._sent.setdefault(model, {})
            for ticket, s in list(sent.items()):  # gone: answered a window ago, or lost long ago
                if (s.done is not None and s.done <= now - window) or (s.done is None and s.at < now - self.stale_s):
                    del sent[ticket]
            over_requests = limit.requests is not None and len(sent) >= limit.requests
            over_tokens = (
                limit.tokens is not None and bool(sent) and sum(s.tokens for s in sent.values()) + tokens > limit.tokens
            )
            if not (over_requests or over_tokens):
                ticket = next(self._tickets)
                sent[ticket] = _Sent(now, tokens)
                return 0.0, ticket
            answered = [s.done + window - now for s in sent.values() if s.done is not None]
            wait = max(min(answered), 0.001) if answered else min(window, 0.5)  # all in flight: ask again soon
            self.waits += 1
            self.wait_s += wait
            return wait, -1

    def release(self, model: str, ticket: int) -> None:
        """Start the window of a granted request from its answer."""
        with self._lock:
            sent = self._sent.get(model, {}).get(ticket)
            if sent is not None:
                sent.done = self.clock()

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


@contextlib.contextmanager
def slot(limits: Limits, model: str, tokens: int) -> Iterator[float]:
    """Wait until the limits grant a request, then hold the grant while the request runs; yields the
    seconds waited."""
    waited = 0.0
    while True:
        delay, ticket = limits.reserve(model, tokens)
        if delay <= 0:
            break
        time.sleep(delay)
        waited += delay
    try:
        yield waited
    finally:
        if ticket > 0:
            limits.release(model, ticket)
