"""The one small protocol every model sits behind, and the request and response it speaks."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

Message = dict[str, Any]  # OpenAI chat format: {"role": ..., "content": str | list of parts}


# Failures that retrying cannot fix: a trial that meets one ends at once with outcome `error`.
FATAL_KINDS: frozenset[str] = frozenset({"auth", "permission", "not_found", "bad_request"})


@dataclass(frozen=True)
class ModelRequest:
    """One chat call: who asks (role), what, and with which sampling settings."""

    role: str  # vision, planner, expert, agent, or a custom node's name
    messages: Sequence[Message]
    temperature: float
    max_tokens: int
    schema: dict[str, Any] | None = None  # JSON schema of the wanted output, when structured
    schema_name: str = "output"
    grammar: str | None = None  # a GBNF grammar for the answer, used by roles with structured: grammar
    tools: tuple[dict[str, Any], ...] | None = None  # OpenAI-style tool definitions the model must call one of
    frame: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def has_image(self) -> bool:
        """Return True if any message carries an image part."""
        return any(
            isinstance(m.get("content"), list) and any(p.get("type") in ("image", "image_url") for p in m["content"])
            for m in self.messages
        )

    def text(self) -> str:
        """Return the text of all messages, images left out, for logs and hashes."""
        parts = []
        for m in self.messages:
            content = m.get("content")
            if isinstance(content, str):
                parts.append(f"[{m.get('role')}]\n{content}")
            elif isinstance(content, list):
                texts = [p.get("text", "<image>") if p.get("type") == "text" else "<image>" for p in content]
                parts.append(f"[{m.get('role')}]\n" + "\n".join(texts))
        return "\n\n".join(parts)


@dataclass(frozen=True)
class ModelResponse:
    """What a model answered, with what it cost."""

    text: str
    model: str
    latency_s: float | None = None  # as the provider reports it; None: the caller measures it
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    structured: bool = False  # the provider was asked for schema-constrained output
    tool_calls: tuple[ToolCall, ...] = ()  # the tools the model called (requests with tools)
    cached_tokens: int | None = None  # input tokens read from the provider's prompt cache
    cache_write_tokens: int | None = None  # input tokens written to it (Anthropic's cache_creation_input_tokens)


@dataclass(frozen=True)
class ToolCall:
    """One tool call in a reply: the tool's name and its arguments (parsed JSON; {} when unreadable)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    raw: str = ""  # the arguments as the model wrote them


@runtime_checkable
class Model(Protocol):
    """Anything that answers chat requests: a `name` and one method, `complete`.

    Optional features are protocols of their own, found with isinstance: `Startable` (started before the
    trial, e.g. a server), `Closable` (closed after it), `Stateful` (state saved in checkpoints), `Gated`
    (takes the eval's rate-limit gate and holds every attempt, retries included, inside it). `acomplete`
    (async) is optional too.
    """

    @property
    def name(self) -> str:
        """Return the model's name, as calls.jsonl records it."""
        ...

    def complete(self, request: ModelRequest) -> ModelResponse:
        """Answer a request; raise ProviderError when the provider failed."""
        ...


@runtime_checkable
class Startable(Protocol):
    """A model that needs starting before the trial (a local server)."""

    def start(self) -> Any:
        """Start what the model needs."""
        ...


@runtime_checkable
class Closable(Protocol):
    """A model that holds something to release after the trial."""

    def close(self) -> None:
        """Release it."""
        ...


@runtime_checkable
class Stateful(Protocol):
    """A model whose answers depend on state of its own (a random generator): checkpoints save and restore it."""

    def checkpoint_state(self) -> dict[str, Any]:
        """Return the state, JSON-like."""
        ...

    def restore_state(self, state: dict[str, Any]) -> None:
        """Take back a state checkpoint_state returned."""
        ...


@runtime_checkable
class CallsTools(Protocol):
    """A model that can say whether it answers tool calls (LiteLLM's function-calling support)."""

    @property
    def supports_tools(self) -> bool:
        """Return True when decisions should be asked for as tool calls."""
        ...


@runtime_checkable
class CountsImages(Protocol):
    """A model that counts what an image costs it in input tokens, as its provider does."""

    def image_tokens(self, data_url: str, detail: str = "auto") -> int:
        """Return the input tokens of one image."""
        ...


@runtime_checkable
class Gated(Protocol):
    """A model that sends each attempt inside `gate(request)` (a context manager yielding seconds waited)."""

    gate: Any


@dataclass(frozen=True)
class Screenshot:
    """A screenshot waiting to be encoded: adapters that send it make the data URL (once), test doubles
    that never look at it pay nothing."""

    pixels: np.ndarray = field(repr=False)  # (height, width, 3) uint8 RGB
    format: Literal["jpeg", "png"] = "jpeg"
    quality: int = 85
    max_side: int | None = None
    detail: str | None = None

    @cached_property
    def data_url(self) -> str:
        """Return the image as a base64 data URL."""
        from doomagent.env.observation import encode_image

        raw = encode_image(self.pixels, self.format, quality=self.quality, max_side=self.max_side)
        return f"data:image/{self.format};base64,{base64.b64encode(raw).decode()}"


def user_message(text: str, image: Screenshot | str | None = None, *, detail: str | None = None) -> Message:
    """Return a user chat message with an optional image after the text (a Screenshot or a data URL)."""
    if image is None:
        return {"role": "user", "content": text}
    if isinstance(image, Screenshot):
        return {"role": "user", "content": [{"type": "text", "text": text}, {"type": "image", "image": image}]}
    url: dict[str, Any] = {"url": image}
    if detail:
        url["detail"] = detail
    return {"role": "user", "content": [{"type": "text", "text": text}, {"type": "image_url", "image_url": url}]}


def wire_messages(messages: Sequence[Message]) -> list[Message]:
    """Return messages in OpenAI's wire format: Screenshot parts become image_url data URLs."""
    out: list[Message] = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list) and any(p.get("type") == "image" for p in content):
            parts = []
            for p in content:
                if p.get("type") == "image":
                    shot: Screenshot = p["image"]
                    url: dict[str, Any] = {"url": shot.data_url}
                    if shot.detail:
                        url["detail"] = shot.detail
                    parts.append({"type": "image_url", "image_url": url})
                else:
                    parts.append(p)
            m = {**m, "content": parts}
        out.append(m)
    return out
