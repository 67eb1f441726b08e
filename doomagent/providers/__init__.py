"""Models behind one protocol (optional features declared in `base`: Startable, Closable, Stateful, Gated): the
LiteLLM adapter for real providers, local llama.cpp models, test doubles and a stub server for offline runs, and
the rate limits and budget an eval's workers share (`limits`)."""

from __future__ import annotations

from doomagent.errors import MissingApiKeyError, ProviderError
from doomagent.providers._stub_formats import StubAnswer
from doomagent.providers.base import (
    Message,
    Model,
    ModelRequest,
    ModelResponse,
    Screenshot,
    ToolCall,
    user_message,
    wire_messages,
)
from doomagent.providers.litellm_model import LiteLLMModel
from doomagent.providers.resolve import ServedLocalModel, resolve_model
from doomagent.providers.settings import ImageSettings, RoleSettings
from doomagent.providers.testing import ScriptedModel, SeededTestModel

__all__ = [
    "ImageSettings",
    "LiteLLMModel",
    "Message",
    "MissingApiKeyError",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ProviderError",
    "RoleSettings",
    "Screenshot",
    "ScriptedModel",
    "SeededTestModel",
    "ServedLocalModel",
    "StubAnswer",
    "ToolCall",
    "resolve_model",
    "user_message",
    "wire_messages",
]
