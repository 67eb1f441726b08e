"""PMAT and D-PMAT per room (the paper's equations 1-2), outcome rates, DTS, SPL and usage per role,
all computed from trial records: the per-frame room track that the environment wrote."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from doomagent.rundir.summary import TrialResult
from doomagent.rundir.usage import Usage

LAMBDA = 1000.0  # the paper's death weight: the timeout, in frames
DeathScope = Literal["room", "trial"]
Backtrack = Literal["last_entered", "furthest"]


TrialRecord = TrialResult  # one summary type: what metrics read is what run_trial returns


def with_distance(
    summary: TrialResult | dict[str, Any], distance_to_exit: float | None, progress: float | None = None
) -> TrialResult:
    """Return a trial summary (or its summary.json data) with its distance to the exit (and progress) filled in."""
    trial = summary if isinstance(summary, TrialResult) else TrialResult.model_validate(summary)
    return trial.model_copy(update={"distance_to_exit": distance_to_exit, "progress": progress})


def progress_of(distances: Sequence[float], start: float, *, finished: bool) -> float | None:
    """Return how far a trial got: the share (0-1) of the walking distance from the start to the exit that it
    had covered at the point nearest the exit it ever reached; 1 for a trial that finished.

    `distances` are the walking distances to the exit of every position the trial passed (inf where unknown),
    `start` the distance from the player start. None when the map's exit distance is unknown. Trials that
    never finish still rank: one that got 80% of the way and one that stalled at 20% differ.
    """
    if finished:
        return 1.0
    if not math.isfinite(start) or start <= 0:
        return None
    best = min((d for d in distances if math.isfinite(d)), default=start)
    return min(1.0, max(0.0, (start - best) / start))


def plan_progress(legs: Sequence[float], track: Sequence[tuple[int, float]], *, finished: bool) -> float | None:
    """Return how far a trial got along a progression plan: the share (0-1) of the plan's walking distance
    covered at its best point, 1 for a finish.

    `legs[k]` is the walking distance from objective k-1 (the start for k = 0) to objective k; `track` holds,
    for every position the trial passed, (objectives reached so far, walking distance to the next one). A
    position with k objectives done counts the first k legs whole and the part of leg k walked; so a trial that
    fetched the key counts it even if it then wandered off. None when the plan has no length.
    """
    if finished:
        return 1.0
    total = float(sum(legs))
    if not math.isfinite(total) or total <= 0:
        return None
    best = 0.0
    for done, distance in track:
        covered = float(sum(legs[:done]))
        if done < len(legs) and math.isfinite(distance):
            covered += max(0.0, legs[done] - distance)
        best = max(best, min(covered, total))
    return best / total


def room_frames(
    entries: Sequence[tuple[int, str]], end: int, *, order: Sequence[str] = (), backtrack: Backtrack = "last_entered"
) -> dict[str, int]:
    """Return frames per room from the entry track: each stretch counts to the room last entered
    (the paper's rule), or with backtrack="furthest" to the furthest room (by `order`) entered so far."""
    out: dict[str, int] = {}
    rank = {room: i for i, room in enumerate(order)}
    furthest: str | None = None
    for (start, room), (stop, _) in zip(entries, [*entries[1:], (end, "")], strict=True):
        if backtrack == "furthest":
            if furthest is None or rank.get(room, -1) > rank.get(furthest, -1):
                furthest = room
            room = furthest
        out[room] = out.get(room, 0) + max(0, stop - start)
    return out


def last_room(entries: Sequence[tuple[int, str]]) -> str | None:
    """Return the room the trial ended in."""
    return entries[-1][1] if entries else None


BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Spread:
    """How a mean over trials varies: the sample standard deviation and a bootstrap 95% interval of the mean."""

    mean: float
    sd: float | None  # None for a single trial
    low: float
    high: float
    n: int

    def text(self) -> str:
        """Return `sd 12, 95% CI 40-71`."""
        sd = "sd -" if self.sd is None else f"sd {self.sd:.0f}"
        return f"{sd}, 95% CI {self.low:.0f}-{self.high:.0f}"


def spread(values: Sequence[float], *, seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES) -> Spread | None:
    """Return the spread of `values` (None when empty); the interval is a percentile bootstrap with a fixed
    seed, so the same trials always give the same figures."""
    import numpy as np

    if not values:
        return None
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    if len(data) == 1:
        return Spread(mean, None, mean, mean, 1)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(resamples, len(data)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Spread(mean, float(data.std(ddof=1)), float(low), float(high), len(data))


@dataclass(frozen=True)
class RoomCell:
    """One room's PMAT and D-PMAT over a set of trials; None means no trial visited it (∞)."""

    pmat: float | None
    dpmat: float | None
    visits: int
    pmat_spread: Spread | None = None
    dpmat_spread: Spread | None = None

    def text(self) -> str:
        """Return the cell as the paper prints it: `PMAT/D-PMAT`, or ∞."""
        if self.pmat is None or self.dpmat is None:
            return "∞"
        return f"{self.pmat:.0f}/{self.dpmat:.0f}"


def pmat_table(
    trials: Sequence[TrialRecord],
    rooms: Sequence[str],
    *,
    lam: float = LAMBDA,
    death_scope: DeathScope = "room",
    backtrack: Backtrack = "last_entered",
) -> dict[str, RoomCell]:
    """Return PMAT and D-PMAT for each room over the trials that visited it.

    PMAT_X is the mean of frames spent in X; D-PMAT_X adds `lam` for each trial whose death counts
    against X: with death_scope="room", a trial that died while in X (this reproduces the paper's
    Table 1); with "trial", any trial that died (equation 2 read literally).
    """
    table: dict[str, RoomCell] = {}
    per_trial = [room_frames(t.entries, t.frames, order=rooms, backtrack=backtrack) for t in trials]
    for room in rooms:
        spent, weighted = [], []
        for t, frames in zip(trials, per_trial, strict=True):
            if room not in {r for _, r in t.entries}:
                continue
            died = t.outcome == "death" and (death_scope == "trial" or last_room(t.entries) == room)
            spent.append(frames.get(room, 0))
            weighted.append(frames.get(room, 0) + (lam if died else 0.0))
        if spent:
            table[room] = RoomCell(
                sum(spent) / len(spent), sum(weighted) / len(weighted), len(spent), spread(spent), spread(weighted)
            )
        else:
            table[room] = RoomCell(None, None, 0)
    return table


@dataclass(frozen=True)
class Summary:
    """Outcome rates and efficiency over a set of trials."""

    trials: int
    deaths: float  # fraction
    timeouts: float  # stuck, fraction
    finishes: int
    rooms_reached: float  # mean number of the given rooms entered
    dts: float | None  # mean distance to the exit at the end, map units
    spl: float  # success weighted by path length
    wait_rate: float  # WAIT fallbacks per decision
    mean_frames: float
    mean_wait_frames: float = 0.0  # real-time protocol: frames per trial the game ran while the model thought
    frame_cap: int = 0  # trials that reached the frame cap (max_frames): neither a death, a timeout nor a finish
    progress: float | None = None  # mean share of the progression route walked (see plan_progress)
    progress_spread: Spread | None = None
    frames_spread: Spread | None = None
    spl_spread: Spread | None = None
    dts_spread: Spread | None = None


def summarize(trials: Sequence[TrialRecord], rooms: Sequence[str], *, route_length: float) -> Summary:
    """Return deaths %, timeouts %, finishes, rooms reached, DTS and SPL over the trials."""
    n = len(trials)
    if n == 0:
        return Summary(0, 0.0, 0.0, 0, 0.0, None, 0.0, 0.0, 0.0)
    wanted = set(rooms)
    dts = [t.distance_to_exit for t in trials if t.distance_to_exit is not None]
    progress = [t.progress for t in trials if t.progress is not None]
    spls = [
        route_length / max(t.path_length, route_length) if t.outcome == "exit" and route_length > 0 else 0.0
        for t in trials
    ]
    spl = sum(spls)
    decisions = sum(t.decisions for t in trials)
    return Summary(
        trials=n,
        deaths=sum(t.outcome == "death" for t in trials) / n,
        timeouts=sum(t.outcome == "stuck" for t in trials) / n,
        finishes=sum(t.outcome == "exit" for t in trials),
        rooms_reached=sum(len(wanted & {r for _, r in t.entries}) for t in trials) / n,
        dts=sum(dts) / len(dts) if dts else None,
        spl=spl / n,
        wait_rate=sum(t.waits for t in trials) / decisions if decisions else 0.0,
        mean_frames=sum(t.frames for t in trials) / n,
        mean_wait_frames=sum(t.wait_frames for t in trials) / n,
        frame_cap=sum(t.outcome == "max_frames" for t in trials),
        progress=sum(progress) / len(progress) if progress else None,
        progress_spread=spread(progress),
        frames_spread=spread([t.frames for t in trials]),
        spl_spread=spread(spls),
        dts_spread=spread(dts),
    )


@dataclass(frozen=True)
class RoleStats:
    """Model use of one role over a set of trials."""

    calls: int
    errors: int
    input_tokens: int
    output_tokens: int
    cost: float
    mean_latency_s: float
    rate_waits: int = 0  # requests the eval's shared rate limit held back
    rate_wait_s: float = 0.0


def usage_by_role(trials: Iterable[TrialRecord]) -> dict[str, RoleStats]:
    """Return calls, tokens, cost and mean latency per role."""
    total = Usage.total(t.usage for t in trials)
    return {
        role: RoleStats(
            calls=u.calls,
            errors=u.errors,
            input_tokens=u.input_tokens,
            output_tokens=u.output_tokens,
            cost=u.cost,
            mean_latency_s=u.latency_s / u.calls if u.calls else math.nan,
            rate_waits=u.rate_waits,
            rate_wait_s=u.rate_wait_s,
        )
        for role, u in sorted(total.roles.items())
    }
