"""Models behind one protocol: the LiteLLM adapter for real providers, test doubles for offline runs."""

from __future__ import annotations

from doomagent.errors import ConfigError
from doomagent.providers.base import (
    Message,
    MissingApiKeyError,
    Model,
    ModelRequest,
    ModelResponse,
    ProviderError,
    Screenshot,
    user_message,
    wire_messages,
)
from doomagent.providers.litellm_model import LiteLLMModel
from doomagent.providers.settings import ImageSettings, RoleSettings
from doomagent.providers.testing import ScriptedModel, SeededTestModel


def make_model(settings: RoleSettings) -> Model:
    """Return the model a role's settings name: `test` / `test:<seed>` for the seeded test model."""
    name = settings.model
    if name == "test" or name.startswith("test:"):
        raw = name.partition(":")[2] or "0"
        if not raw.isdigit():
            raise ConfigError(f"model {name!r}: the test model's seed must be a whole number", hint="e.g. test:3")
        latency = float(settings.extra.get("latency", 0.0))  # seconds per call, for benchmarks
        return SeededTestModel(int(raw), latency=latency)
    return LiteLLMModel(settings)


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
    "make_model",
    "user_message",
    "wire_messages",
]
