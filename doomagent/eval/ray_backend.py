"""The Ray backend: each trial is a Ray task with its own engine, anywhere on a cluster (extra `[ray]`).

No shared file system is assumed. A task gets its trial folder (empty, or the driver's copy with a
checkpoint to go on from) and the files its recipe names as bytes, plays in a temporary folder on its node,
and sends its folder back as it grows through a hub actor that lives on the driver's node: at every
checkpoint (before going on, so the driver always holds the latest one), every few seconds (for the live
view) and at the end. The same actor relays the tasks' news and holds the eval's rate limits and budget.
A task whose worker or node dies is submitted again and resumes from the checkpoint the driver holds.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from doomagent.errors import ConfigError
from doomagent.eval.jobs import EvalLimits, Event, Finished, Job
from doomagent.eval.sync import Delta, FolderSync, apply_delta, pack, unpack
from doomagent.providers.limits import Limits
from doomagent.recipes import Recipe, shipped_walkthrough

SYNC_EVERY_S = 2.0  # seconds between a task's routine sends of its folder
# Variables a trial may need on the workers: provider keys and endpoints, LiteLLM's and Hugging Face's switches.
_PASS_ENV = re.compile(
    r"^(LITELLM_|HF_|OPENAI_|ANTHROPIC_|AZURE_|GEMINI_|GOOGLE_|VERTEX|AWS_|OLLAMA_|MISTRAL_|GROQ_|TOGETHER|DOOMAGENT_)"
    r"|(_API_KEY|_API_BASE|_API_VERSION)$"
)


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "the ray backend needs Ray, which is not installed", hint="pip install 'doomagent[ray]'"
        ) from None
    return ray


class _Hub:
    """The eval's post office on the driver's node: news, trial folders, rate limits and budget."""

    def __init__(self, limits: EvalLimits) -> None:
        self._coordinator = limits.coordinator() if limits.active else None
        self._lock = threading.Lock()
        self._events: list[Event] = []
        self._files: list[tuple[str, Delta]] = []

    def reserve(self, model: str, tokens: int) -> tuple[float, int]:
        return self._coordinator.reserve(model, tokens) if self._coordinator else (0.0, 0)

    def release(self, model: str, ticket: int) -> None:
        if self._coordinator:
            self._coordinator.release(model, ticket)

    def charge(self, calls: int, cost: float) -> None:
        if self._coordinator:
            self._coordinator.charge(calls, cost)

    def exhausted(self) -> bool:
        return self._coordinator.exhausted() if self._coordinator else False

    def spent(self) -> dict[str, Any]:
        return self._coordinator.spent() if self._coordinator else {}

    def event(self, event: Event) -> None:
        with self._lock:
            self._events.append(event)

    def files(self, folder: str, delta: Delta) -> None:
        with self._lock:
            self._files.append((folder, delta))

    def drain(self) -> tuple[list[Event], list[tuple[str, Delta]]]:
        with self._lock:
            out = (self._events, self._files)
            self._events, self._files = [], []
            return out


class _HubLimits:
    """The eval's limits as a task (or the driver) reaches them: calls to the hub actor."""

    def __init__(self, hub: Any) -> None:
        self._hub = hub

    def reserve(self, model: str, tokens: int) -> tuple[float, int]:
        wait, ticket = _ray().get(self._hub.reserve.remote(model, tokens))
        return float(wait), int(ticket)

    def release(self, model: str, ticket: int) -> None:
        _ray().get(self._hub.release.remote(model, ticket))  # counted before this worker's next request

    def charge(self, calls: int, cost: float) -> None:
        self._hub.charge.remote(calls, cost)  # ordered after this task's earlier calls; no need to wait

    def exhausted(self) -> bool:
        return bool(_ray().get(self._hub.exhausted.remote()))

    def spent(self) -> dict[str, Any]:
        return dict(_ray().get(self._hub.spent.remote()))


class RayBackend:
    """Play trials as Ray tasks (one CPU each) on a cluster; see the module's docstring."""

    def __init__(self, *, address: str | None, limits: EvalLimits) -> None:
        ray = _ray()
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self._started = not ray.is_initialized()
        env = {k: v for k, v in os.environ.items() if _PASS_ENV.search(k)}
        if self._started:
            ray.init(
                address=address,
                runtime_env={"env_vars": env},
                include_dashboard=False,
                log_to_driver=False,
                logging_level="WARNING",
            )
        here = ray.get_runtime_context().get_node_id()
        hub_class = ray.remote(num_cpus=0, max_concurrency=32)(_Hub)
        self._hub = hub_class.options(scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False)).remote(
            limits
        )
        self.limits: Limits | None = _HubLimits(self._hub) if limits.active else None
        self.capacity = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._task = ray.remote(num_cpus=1, max_retries=0)(_trial_task)
        self._running: dict[Any, Job] = {}
        self._events: list[Event] = []

    def submit(self, job: Job) -> None:
        """Send a trial, with the driver's copy of its folder and its recipe's files, to the cluster."""
        portable, recipe_files = _portable(job)
        bundle = pack(Path(job.folder))
        ref = self._task.remote(portable, bundle, recipe_files, self._hub, self.limits is not None)
        self._running[ref] = job

    def poll(self, timeout: float) -> list[Finished]:
        """Return the trials that ended, their folders brought up to date first."""
        ray = _ray()
        ready: list[Any] = []
        if self._running:
            ready, _ = ray.wait(list(self._running), num_returns=len(self._running), timeout=timeout)
        self._drain()
        done = []
        for ref in ready:
            job = self._running.pop(ref)
            try:
                done.append(Finished(job, ray.get(ref)))
            except ray.exceptions.RayTaskError as exc:  # the trial's own code failed: as with local workers
                raise exc.as_instanceof_cause() from None
            except ray.exceptions.RayError as exc:  # the worker, its node or its result was lost
                done.append(Finished(job, None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"))
        return done

    def events(self) -> list[Event]:
        """Return the tasks' news."""
        self._drain()
        out, self._events = self._events, []
        return out

    def _drain(self) -> None:
        events, files = _ray().get(self._hub.drain.remote())
        for folder, delta in files:
            apply_delta(Path(folder), delta)
        self._events.extend(events)

    def interrupt(self) -> None:
        """Leave the running tasks to `close`: a cut trial goes on from the checkpoint the driver holds."""

    def close(self) -> None:
        """Cancel what still runs; shut Ray down if this eval started it."""
        ray = _ray()
        for ref in self._running:
            ray.cancel(ref, force=True)
        self._running.clear()
        if self._started:
            ray.shutdown()


def _portable(job: Job) -> tuple[Job, bytes]:
    """Return the job with the files its recipe names (walkthrough, prompts, room profile, WAD) made relative
    to a folder that travels with it, and that folder packed."""
    recipe = Recipe.model_validate(job.recipe)
    base = Path(job.recipe_dir) if job.recipe_dir else None
    with tempfile.TemporaryDirectory(prefix="doomagent-recipe-") as tmp:
        root = Path(tmp)
        update: dict[str, Any] = {}
        env_update: dict[str, Any] = {}

        def carry(path: Path, name: str) -> str:
            full = path if path.is_absolute() or base is None else base / path
            target = root / name
            if full.is_dir():
                shutil.copytree(full, target)
            elif full.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(full, target)
            return name

        if (
            recipe.walkthrough is not None
            and not recipe.walkthrough_auto
            and shipped_walkthrough(recipe.walkthrough) is None
        ):
            update["walkthrough"] = carry(Path(recipe.walkthrough).expanduser(), "walkthrough.md")
        if recipe.prompts_dir is not None:
            update["prompts_dir"] = Path(carry(Path(recipe.prompts_dir).expanduser(), "prompts"))
        if recipe.env.room_profile is not None:
            env_update["room_profile"] = Path(carry(Path(recipe.env.room_profile).expanduser(), "rooms.yaml"))
        if recipe.env.wad is not None:
            env_update["wad"] = Path(carry(Path(recipe.env.wad).expanduser(), Path(recipe.env.wad).name))
        if not (update or env_update):
            return replace(job, recipe_dir=None), b""
        if env_update:
            update["env"] = recipe.env.model_copy(update=env_update)
        moved = recipe.model_copy(update=update)
        return replace(job, recipe=moved.public_dict(), recipe_dir="."), pack(root)


def _trial_task(job: Job, bundle: bytes, recipe_files: bytes, hub: Any, limited: bool) -> dict[str, Any]:
    """Play one trial on a Ray worker, sending its folder to the driver as it goes."""
    import ray

    from doomagent.eval.worker import play_job
    from doomagent.graph.checkpoint import FOLDER, load_checkpoint

    root = Path(tempfile.mkdtemp(prefix="doomagent-trial-"))
    try:
        folder = root / "trial"
        unpack(bundle, folder)
        recipe_dir = None
        if job.recipe_dir is not None:
            recipe_dir = root / "recipe"
            unpack(recipe_files, recipe_dir)
            job = _rooted(job, recipe_dir)
        saved = load_checkpoint(folder)
        sync = FolderSync.after_unpack(folder, saved.offsets if saved is not None else {})
        meta = folder / FOLDER / "meta.json"
        sent = {"at": time.monotonic(), "meta": _stamp(meta)}

        def send() -> None:
            ray.get(hub.files.remote(job.folder, sync.delta()))
            sent["at"], sent["meta"] = time.monotonic(), _stamp(meta)

        def on_decision(_: Any) -> None:
            if _stamp(meta) != sent["meta"] or time.monotonic() - sent["at"] >= SYNC_EVERY_S:
                send()

        summary = play_job(
            job,
            folder=folder,
            emit=lambda e: hub.event.remote(e),
            limits=_HubLimits(hub) if limited else None,
            recipe_dir=recipe_dir,
            on_decision=on_decision,
        )
        send()
        return summary
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _rooted(job: Job, recipe_dir: Path) -> Job:
    """Point the recipe's carried files (walkthrough, prompts, profile, WAD) at where they were unpacked."""
    recipe = Recipe.model_validate(job.recipe)
    env_update: dict[str, Any] = {}
    if recipe.env.room_profile is not None:
        env_update["room_profile"] = recipe_dir / recipe.env.room_profile
    if recipe.env.wad is not None:
        env_update["wad"] = recipe_dir / recipe.env.wad
    if env_update:
        recipe = recipe.model_copy(update={"env": recipe.env.model_copy(update=env_update)})
    return replace(job, recipe=recipe.model_dump(mode="json", exclude_none=True), recipe_dir=str(recipe_dir))


def _stamp(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return 0
