"""Models behind one protocol: the LiteLLM adapter for real providers, test doubles for offline runs."""

from __future__ import annotations

from doomagent.providers.base import (
    Message,
    MissingApiKeyError,
    Model,
    ModelRequest,
    ModelResponse,
    ProviderError,
    user_message,
)
from doomagent.providers.litellm_model import LiteLLMModel
from doomagent.providers.settings import ImageSettings, RoleSettings
from doomagent.providers.testing import ScriptedModel, SeededTestModel


def make_model(settings: RoleSettings) -> Model:
    """Return the model a role's settings name: `test` / `test:<seed>` for the seeded test model."""
    name = settings.model
    if name == "test" or name.startswith("test:"):
        seed = int(name.split(":", 1)[1]) if ":" in name else 0
        return SeededTestModel(seed)
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
    "ScriptedModel",
    "SeededTestModel",
    "make_model",
    "user_message",
]
