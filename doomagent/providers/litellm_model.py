"""The one real adapter: every model call goes through LiteLLM, with tenacity retrying."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from tenacity import AsyncRetrying, Retrying, retry_if_exception, stop_after_attempt, wait_none, wait_random_exponential

from doomagent._internal.redact import scrub, secret_values
from doomagent.errors import ErrorKind, MissingApiKeyError, ProviderError
from doomagent.providers.base import Message, ModelRequest, ModelResponse, ToolCall, wire_messages
from doomagent.providers.settings import RoleSettings

# Providers that run on the user's own machine or network and take no key by default.
_KEYLESS = ("ollama", "ollama_chat", "hosted_vllm", "vllm", "lm_studio", "llamafile", "openai_like")
_OFFLINE_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def _litellm() -> Any:
    for key, value in _OFFLINE_ENV.items():
        os.environ.setdefault(key, value)  # the bundled cost map, not a download at import
    import litellm

    litellm.suppress_debug_info = True  # no "Provider List" banners on unknown model names
    return litellm


def _provider(model: str) -> str:
    return model.split("/", 1)[0] if "/" in model else "openai"


class LiteLLMModel:
    """Call a LiteLLM model with one role's settings; retry transient failures only."""

    def __init__(self, settings: RoleSettings) -> None:
        self.settings = settings
        self.name = settings.model
        self._api_key = self._resolve_key()
        self._structured = self._structured_mode()
        # Set by the runner when an eval shares rate limits: every attempt runs inside `with gate(request)`,
        # which waits for the limit's grant (yielding the seconds waited) and holds it until the answer.
        self.gate: Callable[[ModelRequest], AbstractContextManager[float]] | None = None

    def _gated(self, request: ModelRequest) -> AbstractContextManager[float]:
        return self.gate(request) if self.gate is not None else contextlib.nullcontext(0.0)

    def _resolve_key(self) -> str | None:
        s = self.settings
        if s.api_key_env:
            key = os.environ.get(s.api_key_env)
            if not key:
                raise MissingApiKeyError(
                    f"model {s.model}: environment variable {s.api_key_env} is not set",
                    hint=f"export {s.api_key_env}=<your key>, or change api_key_env in the recipe",
                )
            return key
        provider = _provider(s.model)
        if provider in _KEYLESS:
            return None
        if s.api_base:
            # A self-hosted OpenAI-compatible server: the SDK insists on some key.
            return None if os.environ.get("OPENAI_API_KEY") or provider != "openai" else "no-key"
        check = _litellm().validate_environment(model=s.model)
        missing = [k for k in check.get("missing_keys", []) if k.endswith(("_KEY", "_TOKEN", "_API_BASE"))]
        if missing:
            raise MissingApiKeyError(
                f"model {s.model} needs {', '.join(missing)} in the environment",
                hint=f"export {missing[0]}=..., or set api_key_env / api_base for this role in the recipe",
            )
        return None

    def _structured_mode(self) -> str:
        mode = self.settings.structured
        if mode == "tools":
            return "json_schema"  # requests without tools (vision, planner) still ask for their schema
        if mode != "auto":
            return mode
        try:
            return "json_schema" if _litellm().supports_response_schema(model=self.settings.model) else "off"
        except Exception:  # unknown models: LiteLLM raises rather than answering False
            return "off"

    @property
    def supports_tools(self) -> bool:
        """Return True when decisions should be tool calls: `structured: tools`, or `auto` and LiteLLM says the
        model supports function calling."""
        mode = self.settings.structured
        if mode != "auto":
            return mode == "tools"
        try:
            return bool(_litellm().supports_function_calling(model=self.settings.model))
        except Exception:  # unknown models
            return False

    @property
    def marks_cache(self) -> bool:
        """Return True for providers that cache a prompt prefix only where the request marks it (Anthropic)."""
        model = self.settings.model.lower()
        return self.settings.cache == "auto" and (_provider(model) == "anthropic" or "claude" in model)

    def image_tokens(self, data_url: str, detail: str = "auto") -> int:
        """Return the input tokens one image costs on this model, as LiteLLM counts them."""
        from litellm.litellm_core_utils.token_counter import estimate_image_tokens

        _litellm()
        return int(estimate_image_tokens(self.settings.model, data_url, detail))

    def _kwargs(self, request: ModelRequest) -> dict[str, Any]:
        s = self.settings
        messages = wire_messages(request.messages)
        kwargs: dict[str, Any] = {
            "model": s.model,
            "messages": mark_cache(messages) if self.marks_cache else messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "timeout": s.timeout,
            "max_retries": 0,  # tenacity retries; LiteLLM's and the SDK's would multiply them
            "num_retries": 0,
        }
        if s.api_base:
            kwargs["api_base"] = s.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        if request.tools is not None:
            kwargs["tools"] = list(request.tools)
            kwargs["tool_choice"] = "required"
        elif request.schema is not None and self._structured == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": request.schema, "strict": True},
            }
        elif request.grammar is not None and self._structured == "grammar":
            kwargs["extra_body"] = {"grammar": request.grammar}
        elif request.schema is not None and self._structured in ("json_object", "grammar"):
            kwargs["response_format"] = {"type": "json_object", "schema": request.schema}
        for key, value in s.extra.items():
            if key == "extra_body" and isinstance(value, dict):
                kwargs["extra_body"] = {**kwargs.get("extra_body", {}), **value}
            else:
                kwargs[key] = value
        return kwargs

    def _retrying(self, cls: type) -> Any:
        s = self.settings
        wait = wait_random_exponential(multiplier=s.backoff, max=30) if s.backoff > 0 else wait_none()
        return cls(
            stop=stop_after_attempt(s.retries + 1), wait=wait, retry=retry_if_exception(_transient), reraise=True
        )

    def complete(self, request: ModelRequest) -> ModelResponse:
        """Answer a request, retrying 429, 5xx, timeouts and connection errors."""
        litellm = _litellm()
        kwargs = self._kwargs(request)
        start = time.perf_counter()
        held = 0.0  # seconds the shared rate limit held the attempts back: not the provider's latency
        try:
            for attempt in self._retrying(Retrying):
                with attempt, self._gated(request) as waited:
                    held += waited
                    response = litellm.completion(**kwargs)
        except Exception as exc:
            raise self._error(exc) from exc
        return self._response(response, time.perf_counter() - start - held, _constrained(kwargs))

    async def acomplete(self, request: ModelRequest) -> ModelResponse:
        """Answer a request without blocking the event loop."""
        litellm = _litellm()
        kwargs = self._kwargs(request)
        start = time.perf_counter()
        held = 0.0
        try:
            async for attempt in self._retrying(AsyncRetrying):
                with attempt:
                    gate = self._gated(request)
                    held += await asyncio.to_thread(gate.__enter__)
                    try:
                        response = await litellm.acompletion(**kwargs)
                    finally:
                        gate.__exit__(None, None, None)
        except Exception as exc:
            raise self._error(exc) from exc
        return self._response(response, time.perf_counter() - start - held, _constrained(kwargs))

    def _response(self, response: Any, latency: float, structured: bool) -> ModelResponse:
        litellm = _litellm()
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content if choice is not None and choice.message else None) or ""
        usage = getattr(response, "usage", None)
        cost: float | None = 0.0  # self-hosted: no price, and LiteLLM would query the server for model info
        if _provider(self.settings.model) not in _KEYLESS:
            try:
                cost = float(litellm.completion_cost(completion_response=response))
            except Exception:  # LiteLLM raises for models missing from its price map
                cost = None
        details = getattr(usage, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", None) or getattr(usage, "cache_read_input_tokens", None)
        return ModelResponse(
            text=text,
            model=self.settings.model,
            latency_s=latency,
            input_tokens=getattr(usage, "prompt_tokens", None),
            output_tokens=getattr(usage, "completion_tokens", None),
            cost=cost,
            structured=structured,
            tool_calls=_tool_calls(choice.message if choice is not None else None),
            cached_tokens=int(cached) if cached else None,
            cache_write_tokens=getattr(usage, "cache_creation_input_tokens", None) or None,
        )

    def _error(self, exc: BaseException) -> ProviderError:
        status = getattr(exc, "status_code", None)
        message = f"{self.settings.model}: {type(exc).__name__}: {exc}"
        secrets = [*([self._api_key] if self._api_key else []), *secret_values(self.settings.model_dump())]
        message = scrub(message, secrets)
        return ProviderError(message, kind=error_kind(exc), status=status if isinstance(status, int) else None)


def error_kind(exc: BaseException) -> ErrorKind:
    """Classify a provider exception."""
    litellm = _litellm()
    status = getattr(exc, "status_code", None)
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return "rate_limit"
    if isinstance(exc, (litellm.Timeout, TimeoutError)):
        return "timeout"
    if isinstance(exc, (litellm.APIConnectionError, ConnectionError)):
        return "connection"
    text = str(exc).lower()
    if "connection error" in text or "connection refused" in text or "connecterror" in text:
        return "connection"  # LiteLLM reports a refused connection as InternalServerError (500)
    if "[200 ok]" in text or "jsondecodeerror" in text or "expecting value" in text or "unterminated string" in text:
        return "malformed"  # a 200 whose body was not the JSON promised
    if isinstance(exc, litellm.PermissionDeniedError) or status == 403:
        return "permission"
    if isinstance(exc, litellm.AuthenticationError) or status == 401:
        return "auth"
    if isinstance(exc, litellm.NotFoundError) or status == 404:
        return "not_found"
    if isinstance(exc, litellm.ContentPolicyViolationError):
        return "other"  # one refused prompt; the next may pass
    if isinstance(status, int) and status >= 500:
        return "server"
    if isinstance(exc, litellm.InternalServerError | litellm.ServiceUnavailableError | litellm.BadGatewayError):
        return "server"
    if isinstance(exc, litellm.BadRequestError) or status == 400:
        return "bad_request"
    return "other"


def _constrained(kwargs: dict[str, Any]) -> bool:
    return "response_format" in kwargs or "tools" in kwargs or "grammar" in kwargs.get("extra_body", {})


def _tool_calls(message: Any) -> tuple[ToolCall, ...]:
    """Return the tool calls of a reply's message (arguments parsed; {} when they are not a JSON object)."""
    out = []
    for call in getattr(message, "tool_calls", None) or ():
        function = getattr(call, "function", None)
        name = getattr(function, "name", None)
        if not name:
            continue
        raw = getattr(function, "arguments", None) or ""
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else dict(raw)
        except (ValueError, TypeError):
            arguments = {}
        out.append(ToolCall(str(name), arguments if isinstance(arguments, dict) else {}, str(raw)[:500]))
    return tuple(out)


def mark_cache(messages: list[Message]) -> list[Message]:
    """Return messages with the first user message's stable beginning (instructions, walkthrough: see
    prompts.stable_prefix) marked as a prompt-cache breakpoint (`cache_control`, Anthropic's format)."""
    from doomagent.prompts import stable_prefix

    out = list(messages)
    for i, message in enumerate(out):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        if not parts or parts[0].get("type") != "text":
            return out
        text = parts[0]["text"]
        cut = stable_prefix(text)
        marked: list[dict[str, Any]] = [{"type": "text", "text": text[:cut], "cache_control": {"type": "ephemeral"}}]
        if text[cut:]:
            marked.append({"type": "text", "text": text[cut:]})
        out[i] = {**message, "content": marked + parts[1:]}
        return out
    return out


def _transient(exc: BaseException) -> bool:
    return error_kind(exc) in ("rate_limit", "timeout", "connection", "server", "malformed")
