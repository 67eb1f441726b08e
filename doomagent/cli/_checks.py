"""`doomagent doctor`: what works on this machine, what is missing, and how to fix it — one line each.

Each check returns a `Finding`: ok, missing (an optional part not installed) or broken (installed but not
working), with the fix. `needed` marks what the given recipe cannot play without.
"""

from __future__ import annotations

import importlib.util
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from doomagent.errors import DoomAgentError
from doomagent.recipes import Recipe

Status = Literal["ok", "missing", "broken"]


@dataclass(frozen=True)
class Finding:
    """One line of the doctor's report."""

    name: str
    status: Status
    detail: str
    fix: str | None = None
    needed: bool = False  # the recipe being checked needs it: missing or broken fails the check

    @property
    def fails(self) -> bool:
        """Return True if this finding makes `doomagent doctor` exit 1."""
        return self.needed and self.status != "ok"


def check_engine() -> Finding:
    """Start the engine, play a tic and look at the picture."""
    from doomagent.env import DoomEnv

    try:
        import vizdoom

        start = time.perf_counter()
        env = DoomEnv()
        try:
            obs, _ = env.reset(seed=0)
            obs, *_ = env.step("WAIT")
            shape = obs.screen.shape
            lit = float(obs.screen.mean())
        finally:
            env.close()
        took = time.perf_counter() - start
    except Exception as exc:  # any failure here is the finding
        return Finding("engine", "broken", f"ViZDoom does not start: {exc}", "pip install --force-reinstall vizdoom")
    if lit < 1.0:
        return Finding(
            "engine", "broken", f"the engine renders a black {shape[1]}x{shape[0]} screen", "reinstall vizdoom"
        )
    return Finding(
        "engine", "ok", f"ViZDoom {vizdoom.__version__} starts and renders {shape[1]}x{shape[0]} in {took:.1f} s"
    )


def check_wads() -> Iterator[Finding]:
    """Find the shipped Freedoom IWADs and a user's doom.wad (for the original Hangar)."""
    from doomagent.env.geometry import shipped_wad
    from doomagent.env.wad import Wad

    for name in ("freedoom1.wad", "freedoom2.wad"):
        try:
            wad = Wad(shipped_wad(name))
            yield Finding(name, "ok", f"{len(wad.map_names)} maps in {wad.path}")
        except DoomAgentError as exc:
            yield Finding(name, "broken", exc.message, "pip install --force-reinstall vizdoom")
    found = next((p for p in (Path("doom.wad"), Path.home() / "doom.wad") if p.is_file()), None)
    if found is None:
        yield Finding(
            "doom.wad", "missing", "no doom.wad here or in ~ (the original Hangar, E1M1)", "--set env.wad=PATH/doom.wad"
        )
    else:
        yield Finding("doom.wad", "ok", f"found {found}")


def check_cpu() -> Finding:
    """Say whether this CPU has AMX and how the local servers load weights."""
    from doomagent.providers.local import REPACK_ENV, repack_default

    flags = _cpu_flags()
    amx = sorted(f for f in flags if f.startswith("amx"))
    try:
        repack = repack_default()
    except DoomAgentError as exc:
        return Finding("cpu", "broken", exc.message, exc.hint)
    note = f"weight repacking {'on' if repack else 'off'} (${REPACK_ENV})"
    if amx and repack:
        return Finding("cpu", "broken", f"AMX ({', '.join(amx)}) with {note}: llama.cpp crashes", f"unset {REPACK_ENV}")
    return Finding("cpu", "ok", f"{'AMX: ' + ', '.join(amx) if amx else 'no AMX'}; {note}")


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def check_local_model(spec: str, *, needed: bool, answer: bool = True) -> Finding:
    """Load local model `spec` in its llama.cpp server and have it complete one prompt."""
    from doomagent.providers.base import ModelRequest
    from doomagent.providers.local import PACKAGES, parse_local, require_llama_cpp, server_for

    name = f"local/{spec}"
    try:
        base, _ = parse_local(spec)
    except DoomAgentError as exc:
        return Finding(name, "broken", exc.message, exc.hint, needed)
    package = PACKAGES[base]
    if importlib.util.find_spec(package.package) is None:
        return Finding(
            name, "missing", f"its weights package {package.package} is not installed", package.install, needed
        )
    try:
        require_llama_cpp()
    except DoomAgentError as exc:
        return Finding(name, "missing", exc.message, exc.hint, needed)
    if not answer:
        return Finding(name, "ok", "installed (not loaded: --no-models)", needed=needed)
    from doomagent.providers.litellm_model import LiteLLMModel
    from doomagent.providers.settings import RoleSettings

    server = server_for(spec)
    try:
        start = time.perf_counter()
        server.start()
        loaded = time.perf_counter() - start
        model = LiteLLMModel(RoleSettings(model=f"openai/{server.alias}", api_base=server.api_base, retries=0))
        request = ModelRequest(
            role="doctor", messages=[{"role": "user", "content": "Say OK."}], temperature=0.0, max_tokens=4
        )
        reply = model.complete(request)
        ended = server.exit_status()
        if ended is not None:
            raise DoomAgentError(f"the server stopped ({ended}) on its first completion: {server.log_tail(300)}")
    except DoomAgentError as exc:
        ended = server.exit_status()
        why = f"the server stopped ({ended}): {server.log_tail(300)}" if ended else exc.message
        server.stop()
        return Finding(name, "broken", why, "run `doomagent serve` to see its log; report the CPU flags", needed)
    server.stop()
    return Finding(
        name,
        "ok",
        f"loads in {loaded:.1f} s and answers ({reply.latency_s or 0:.2f} s: {reply.text.strip()[:20]!r})",
        needed=needed,
    )


def check_roles(recipe: Recipe) -> Iterator[Finding]:
    """Check each provider a recipe's roles name: its key variables are set (no request is sent)."""
    from doomagent.providers.local import is_local, local_names
    from doomagent.providers.resolve import resolve_model

    if recipe.roles is None:
        yield Finding(f"recipe {recipe.name}", "ok", "plays no model", needed=True)
        return
    settings: list[object] = [s for _, s in recipe.roles.items()]
    for spec in local_names(settings):
        yield check_local_model(spec, needed=True)
    seen: set[str] = set()
    for role, s in recipe.roles.items():
        if is_local(s.model) or s.model in seen:
            continue
        seen.add(s.model)
        try:
            resolve_model(s)
        except DoomAgentError as exc:
            yield Finding(f"{role}: {s.model}", "missing", exc.message, exc.hint, needed=True)
            continue
        where = f" at {s.api_base}" if s.api_base else ""
        yield Finding(f"{role}: {s.model}", "ok", f"configured{where} (keys found; nothing sent)", needed=True)


def check_optional() -> Iterator[Finding]:
    """Check the optional parts: Ray, the live view and its browser, MP4 writing, the dev tools."""
    yield _module("ray", "ray", "eval --backend ray", "pip install 'doomagent[ray]'")
    yield _module("watch", "uvicorn", "doomagent watch", "pip install 'doomagent[watch]'")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    yield (
        Finding("browser", "ok", f"{browser} (the live view's browser test, screenshots)")
        if browser
        else Finding(
            "browser", "missing", "no chromium on PATH (only the live view's tests need it)", "apt-get install chromium"
        )
    )
    yield _ffmpeg()


def _module(name: str, module: str, what: str, fix: str) -> Finding:
    if importlib.util.find_spec(module) is None:
        return Finding(name, "missing", f"{module} is not installed ({what})", fix)
    return Finding(name, "ok", f"{module} installed ({what})")


def _ffmpeg() -> Finding:
    try:
        import imageio_ffmpeg

        return Finding("ffmpeg", "ok", f"MP4 replays via {imageio_ffmpeg.get_ffmpeg_exe()}")
    except ImportError:
        return Finding(
            "ffmpeg", "missing", "MP4 replays need imageio-ffmpeg (GIF works)", "pip install 'doomagent[video]'"
        )
    except RuntimeError as exc:  # the package without its binary
        return Finding("ffmpeg", "broken", str(exc), "pip install --force-reinstall imageio-ffmpeg")


def diagnose(recipe: Recipe | None, *, models: bool = True) -> Iterator[Finding]:
    """Yield every check's finding; with a recipe, what it needs is marked `needed`."""
    engine = check_engine()
    yield Finding(engine.name, engine.status, engine.detail, engine.fix, needed=True)
    yield from check_wads()
    yield check_cpu()
    named: set[str] = set()
    if recipe is not None:
        for finding in check_roles(recipe):
            named.add(finding.name)
            yield finding
    from doomagent.providers.local import PACKAGES

    for spec in PACKAGES:
        if f"local/{spec}" not in named:
            yield check_local_model(spec, needed=False, answer=models)
    yield from check_optional()


def run_checks(recipe: Recipe | None, *, models: bool, emit: Callable[[Finding], None]) -> bool:
    """Run every check, handing each finding to `emit` as it comes; return True if none fails."""
    ok = True
    for finding in diagnose(recipe, models=models):
        emit(finding)
        ok = ok and not finding.fails
    return ok
