"""One model call's parts: the attempt (rate-limit slot, classification of what came back), its log line and
usage, the failures that end a trial, and the per-model reachability count. `RunContext.call` puts them together."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from doomagent.answers.tools import ReplyCheck
from doomagent.errors import FatalProviderError, ModelServerError, ProviderError, ProviderUnreachableError, RunError
from doomagent.providers.base import FATAL_KINDS, Model, ModelRequest, ModelResponse
from doomagent.providers.limits import Limits, slot
from doomagent.rundir.usage import RoleUsage, Usage

Check = Callable[[str], "str | None"] | ReplyCheck  # a text check, or one on the whole reply (tool calls)


def failure_of(check: Check | None, response: ModelResponse) -> str | None:
    """Return why an arrived answer is unusable according to `check` (None: usable, or no check)."""
    if check is None:
        return None
    return check(response) if isinstance(check, ReplyCheck) else check(response.text)


def safe_text(text: str) -> str:
    """Return text that encodes as UTF-8: lone surrogates (valid in JSON, not in UTF-8) become U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _safe(response: ModelResponse) -> ModelResponse:
    if not isinstance(response, ModelResponse):
        raise RunError(f"the model returned {type(response).__name__}, not a ModelResponse")
    text = response.text if isinstance(response.text, str) else str(response.text)
    clean = safe_text(text)
    return response if clean is response.text else replace(response, text=clean)


@dataclass
class RoleGate:
    """Hold each request to one model until the shared rate limit has room; count the waits in usage.

    A model with a `gate` attribute (LiteLLMModel) sends every attempt inside `with gate(request)`,
    retries included; for any other model `RunContext.call` wraps the whole call.
    """

    limits: Limits
    key: str  # the model's name in the limits
    usage: Usage

    @contextlib.contextmanager
    def __call__(self, request: ModelRequest) -> Iterator[float]:
        """Wait for a slot and hold it while the request runs; yield the seconds waited."""
        tokens = len(request.text()) // 4 + request.max_tokens
        with slot(self.limits, self.key, tokens) as waited:
            if waited > 0:
                self.usage.add(request.role, RoleUsage(rate_waits=1, rate_wait_s=waited))
            yield waited


@dataclass
class CallOutcome:
    """One model call as it went: the response (None after a provider failure), the logged error, latency."""

    model: str  # the model's name
    response: ModelResponse | None
    error: dict[str, Any] | None
    latency_s: float
    server_gone: ModelServerError | None = None

    def record(self, request: ModelRequest) -> dict[str, Any]:
        """Return the call's calls.jsonl line (the prompt itself is logged beside it)."""
        response = self.response
        return {
            "role": request.role,
            "frame": request.frame,
            "model": self.model,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "response": response.text if response else None,
            "latency_s": round(self.latency_s, 4),
            "input_tokens": response.input_tokens if response else None,
            "output_tokens": response.output_tokens if response else None,
            "cost": response.cost if response else None,
            "structured": response.structured if response else None,
            "error": self.error,
        } | self._extras()

    def _extras(self) -> dict[str, Any]:
        """Return the fields only some calls have: tool calls, prompt-cache tokens."""
        response = self.response
        extras: dict[str, Any] = {}
        if response is None:
            return extras
        if response.tool_calls:
            extras["tool_calls"] = [{"name": c.name, "arguments": c.arguments} for c in response.tool_calls]
        if response.cached_tokens:
            extras["cached_tokens"] = response.cached_tokens
        if response.cache_write_tokens:
            extras["cache_write_tokens"] = response.cache_write_tokens
        return extras

    def usage(self) -> RoleUsage:
        """Return what the call adds to its role's usage."""
        response = self.response
        return RoleUsage(
            calls=1,
            errors=int(self.error is not None),
            failed=int(response is None),
            latency_s=self.latency_s,
            input_tokens=(response.input_tokens or 0) if response else 0,
            output_tokens=(response.output_tokens or 0) if response else 0,
            cached_tokens=(response.cached_tokens or 0) if response else 0,
            cache_write_tokens=(response.cache_write_tokens or 0) if response else 0,
            cost=(response.cost or 0.0) if response else 0.0,
        )

    def raise_if_fatal(self, request: ModelRequest) -> None:
        """Raise what ends the trial: the local server gone, or a failure no retry can mend (auth, ...)."""
        if self.server_gone is not None:
            raise self.server_gone
        error = self.error
        if error is not None and self.response is None and error["type"] in FATAL_KINDS:
            raise FatalProviderError(
                f"role {request.role} ({self.model}): {error['type'].replace('_', ' ')} error: "
                f"{error['message'][:300]}",
                hint=_FATAL_HINTS.get(error["type"]),
            )


def attempt(
    model: Model, request: ModelRequest, gate: contextlib.AbstractContextManager[float], check: Check | None
) -> CallOutcome:
    """Send one request inside `gate` (a rate-limit slot, or a null context) and classify what came back.

    `check` classifies an answer that arrived but is unusable (empty, garbage, off the schema); such an
    answer is logged as a failure of that type.
    """
    response: ModelResponse | None = None
    error: dict[str, Any] | None = None
    server_gone: ModelServerError | None = None
    start = time.perf_counter()
    try:
        with gate as held:
            start += held  # time held back by the rate limit is not the model's latency
            response = _safe(model.complete(request))
    except ProviderError as exc:
        error = {"type": exc.kind, "status": exc.status, "message": str(exc)[:500]}
    except ModelServerError as exc:
        server_gone = exc
        error = {"type": "model_server", "message": str(exc)[:500]}
    except RunError as exc:
        error = {"type": "other", "message": str(exc)[:500]}
    if response is not None:
        failure = failure_of(check, response)
        if failure is not None:
            error = {"type": failure, "message": f"unusable answer: {response.text[:200]!r}"}
    measured = time.perf_counter() - start
    latency = response.latency_s if response is not None and response.latency_s is not None else measured
    return CallOutcome(model.name, response, error, latency, server_gone)


_FATAL_HINTS = {
    "auth": "the provider refused the key: check the variable the role's key comes from (api_key_env or "
    "the provider's usual one)",
    "permission": "the key is valid but may not use this model: check the account's access",
    "not_found": "the provider does not know this model (or api_base is wrong): check the role's model name",
    "bad_request": "the provider refused the request itself: check the role's settings (max_tokens, structured, "
    "extra) and the recipe's context_tokens",
}


# Failures that say the provider is not answering at all (after the call's own retries).
UNREACHABLE_KINDS: frozenset[str] = frozenset({"connection", "server", "timeout"})


@dataclass
class Reachability:
    """Count, per model, the decisions in a row in which all of its calls failed to reach it; raise at `limit`.

    A decision in which a model is not called (a cadence step, a scripted node) neither counts nor breaks
    its run; any answer, or another kind of failure, starts it again from zero.
    """

    limit: int | None
    streaks: dict[str, int] = field(default_factory=dict)

    def decision(self, calls: list[tuple[str, str, dict[str, Any] | None]]) -> None:
        """Take one decision's calls (role, model, error or None); raise ProviderUnreachableError at the limit."""
        by_model: dict[str, list[tuple[str, dict[str, Any] | None]]] = {}
        for role, model, error in calls:
            by_model.setdefault(model, []).append((role, error))
        for model, made in by_model.items():
            if any(error is None or error["type"] not in UNREACHABLE_KINDS for _, error in made):
                self.streaks[model] = 0
                continue
            streak = self.streaks[model] = self.streaks.get(model, 0) + 1
            if self.limit is not None and streak >= self.limit:
                role, error = made[-1]
                assert error is not None
                raise ProviderUnreachableError(
                    f"provider unreachable: {model} (role {role}) failed every call of {streak} decisions in a "
                    f"row; it last answered: {error['type'].replace('_', ' ')} error: {error['message'][:300]}",
                    hint="check that the server or provider is up and the role's api_base; run the same command "
                    "again to go on (the recipe's unreachable_after sets how many decisions it may fail)",
                )
