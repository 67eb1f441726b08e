"""Typed errors: user errors say what was wrong and how to fix it; run errors say what broke. (`did_you_mean`
writes the closest known name into a message.)"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Literal


class DoomAgentError(Exception):
    """Base class of every error doomagent raises on purpose."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}\n  hint: {self.hint}" if self.hint else self.message


class UserError(DoomAgentError):
    """Raise for input the user can fix: a path, a name, an option."""


class WadNotFoundError(UserError):
    """Raise when a WAD path does not exist or is not a file."""


class WadFormatError(UserError):
    """Raise when a file is not a readable Doom WAD, or a map in it is malformed."""


class MapNotFoundError(UserError):
    """Raise when a WAD has no map of the requested name."""


class NoPlanError(UserError):
    """Raise when no progression plan (keys, switches, triggers, in some order) reaches a map's exit."""


class ActionParseError(UserError):
    """Raise when text does not name an action of the paper's vocabulary."""

    def __init__(self, text: str, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.text = text


class ConfigError(UserError):
    """Raise for an invalid option or configuration value."""


class RunError(DoomAgentError):
    """Base class of errors raised while running: engine, provider, parse."""


class MissingApiKeyError(UserError):
    """Raise when the environment variable that should hold a role's API key is unset."""


# How a provider call failed (in calls.jsonl as error.type).
ErrorKind = Literal[
    "rate_limit",
    "server",
    "timeout",
    "connection",
    "malformed",
    "auth",
    "permission",
    "not_found",
    "bad_request",
    "empty",
    "garbage",
    "off_schema",
    "model_server",
    "other",
]


class ProviderError(RunError):
    """Raise when a provider call failed after its retries; `kind` says how."""

    def __init__(self, message: str, *, kind: ErrorKind, status: int | None = None) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.status = status


class FatalProviderError(RunError):
    """Raise when a provider fails in a way retrying cannot fix (bad key, no permission, unknown model,
    a request it refuses): the trial ends with outcome `error`."""


class EngineError(RunError):
    """Raise when the ViZDoom engine fails to start or stops unexpectedly."""


class ModelServerError(RunError):
    """Raise when a model server that doomagent started (the embedded llama.cpp server) has exited: the
    trial ends at once with outcome `error` (`error_kind: model_server`), and `eval` plays it once more."""


class ProviderUnreachableError(RunError):
    """Raise when every model call of `unreachable_after` decisions in a row failed with connection errors,
    5xx or timeouts after their retries: the trial ends with outcome `error` (`error_kind: provider`)."""


class DiskError(RunError):
    """Raise when writing run files failed at run time (disk full, folder gone or read-only)."""


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """Return `; did you mean 'plan'?` for the closest of `choices`, or "" when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
