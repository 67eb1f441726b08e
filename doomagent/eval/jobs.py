"""What an eval's parts pass each other: a job (one trial to play), a worker's events, the eval's limits,
what a backend reports, and the protocol every backend (local processes, Ray) follows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from doomagent.providers.limits import Coordinator, Limits, RateLimit


@dataclass(frozen=True)
class Job:
    """One trial to play."""

    group: str  # folder name of the recipe x model
    recipe: dict[str, Any]  # the resolved recipe, as data (pickles across processes)
    recipe_dir: str | None
    folder: str
    trial: int
    seed: int


@dataclass(frozen=True)
class Event:
    """A worker's news: a trial started, made a decision, or ended."""

    kind: str  # start, step, end, retry (the engine or the worker died: the trial plays again), cut
    group: str
    trial: int
    frame: int = 0
    max_frames: int | None = None
    info: str = ""


BackendName = Literal["local", "ray"]
REPLAYED_ERRORS = ("engine", "model_server")  # a trial that ended so is played once more
MAX_LOST = 3  # times a trial whose worker or node died is played again before the eval gives up


@dataclass(frozen=True)
class EvalLimits:
    """Limits over a whole eval: rate limits per model (shared by every worker) and a budget."""

    rate_limits: dict[str, RateLimit] = field(default_factory=dict)
    max_cost: float | None = None
    max_calls: int | None = None

    @property
    def active(self) -> bool:
        """Return True if there is anything to enforce."""
        return bool(self.rate_limits) or self.max_cost is not None or self.max_calls is not None

    def coordinator(self) -> Coordinator:
        """Return a fresh holder of these limits."""
        return Coordinator(self.rate_limits, max_cost=self.max_cost, max_calls=self.max_calls)


@dataclass
class EvalResult:
    """What an eval played: the summaries of its trials, and whether its budget cut it short."""

    summaries: list[dict[str, Any]]
    cut: bool = False  # the eval-wide budget ran out: trials were stopped or never started
    not_started: int = 0
    spent: dict[str, Any] = field(default_factory=dict)


@dataclass
class Finished:
    """A trial a backend reports done: its summary, or why its worker was lost."""

    job: Job
    summary: dict[str, Any] | None
    lost: str | None = None  # the worker or its node died (the trial may play again)


class Backend(Protocol):
    """Where trials play: local processes, or a Ray cluster."""

    limits: Limits | None  # the eval's shared limits, as the driver reaches them
    capacity: int  # trials it can play at once

    def submit(self, job: Job) -> None:
        """Start a trial."""
        ...

    def poll(self, timeout: float) -> list[Finished]:
        """Return the trials that ended within `timeout` seconds."""
        ...

    def events(self) -> list[Event]:
        """Return the workers' news since the last call."""
        ...

    def interrupt(self) -> None:
        """Stop the running trials as Ctrl-C would, giving them a few seconds to write their summaries."""
        ...

    def close(self) -> None:
        """Stop the workers (and anything the backend started)."""
        ...
