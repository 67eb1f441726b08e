"""The one small protocol every model sits behind, and the request and response it speaks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from doomagent.errors import RunError, UserError

Message = dict[str, Any]  # OpenAI chat format: {"role": ..., "content": str | list of parts}
ErrorKind = Literal["rate_limit", "server", "timeout", "connection", "auth", "bad_request", "empty", "other"]


@dataclass(frozen=True)
class ModelRequest:
    """One chat call: who asks (role), what, and with which sampling settings."""

    role: str  # vision, planner, expert, agent, or a custom node's name
    messages: Sequence[Message]
    temperature: float
    max_tokens: int
    schema: dict[str, Any] | None = None  # JSON schema of the wanted output, when structured
    schema_name: str = "output"
    frame: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def has_image(self) -> bool:
        """Return True if any message carries an image part."""
        return any(
            isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
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
    latency_s: float = 0.0
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    structured: bool = False  # the provider was asked for schema-constrained output


@runtime_checkable
class Model(Protocol):
    """Anything that answers chat requests, sync and async."""

    name: str

    def complete(self, request: ModelRequest) -> ModelResponse:
        """Answer a request."""
        ...

    async def acomplete(self, request: ModelRequest) -> ModelResponse:
        """Answer a request without blocking the event loop."""
        ...


class ProviderError(RunError):
    """Raise when a provider call failed after its retries; `kind` says how."""

    def __init__(self, message: str, *, kind: ErrorKind, status: int | None = None) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.status = status


class MissingApiKeyError(UserError):
    """Raise when the environment variable that should hold a role's API key is unset."""


def user_message(text: str, image_url: str | None = None, *, detail: str | None = None) -> Message:
    """Return a user chat message with optional image (a data URL) after the text."""
    if image_url is None:
        return {"role": "user", "content": text}
    image: dict[str, Any] = {"url": image_url}
    if detail:
        image["detail"] = detail
    return {"role": "user", "content": [{"type": "text", "text": text}, {"type": "image_url", "image_url": image}]}
