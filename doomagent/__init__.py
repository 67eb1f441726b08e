"""doomagent: provider-agnostic LLM/VLM agents that play Doom on the real C engine."""

from __future__ import annotations

from doomagent.errors import (
    ActionParseError,
    ConfigError,
    DoomAgentError,
    EngineError,
    MapNotFoundError,
    RunError,
    UserError,
    WadFormatError,
    WadNotFoundError,
)

__version__ = "0.1.0"

__all__ = [
    "ActionParseError",
    "ConfigError",
    "DoomAgentError",
    "EngineError",
    "MapNotFoundError",
    "RunError",
    "UserError",
    "WadFormatError",
    "WadNotFoundError",
    "__version__",
]
