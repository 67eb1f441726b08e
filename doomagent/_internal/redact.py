"""Keep secrets out of every file and message: keys in `extra`, headers, URL user info, and anything
whose name says key, token, secret or password."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

MASK = "***"
# Secret-looking names: *key*, *secret*, *password*, *auth*, ... and names ending in "token" (not "max_tokens").
_SECRET_NAME = re.compile(r"(key|secret|passw|auth|credential|cookie|signature|token$)", re.I)
_NAME_ONLY = {"api_key_env"}  # holds the *name* of a variable, never a key
_HEADERS = {"headers", "extra_headers", "default_headers"}
_USERINFO = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)(?P<userinfo>[^/@\s]+)@", re.I)


def redact_url(url: str) -> str:
    """Return a URL with its user info (`user:password@`) masked."""
    return _USERINFO.sub(lambda m: f"{m.group('scheme')}{MASK}@", url)


def redact(data: Any, *, _in_headers: bool = False) -> Any:
    """Return a copy of JSON-like data with secret values masked."""
    if isinstance(data, dict):
        out: dict[Any, Any] = {}
        for key, value in data.items():
            name = str(key)
            if name in _NAME_ONLY:
                out[key] = value
            elif _in_headers or (_SECRET_NAME.search(name) and not isinstance(value, (dict, list))):
                out[key] = MASK if value not in (None, "") else value
            else:
                out[key] = redact(value, _in_headers=name.lower() in _HEADERS)
        return out
    if isinstance(data, list):
        return [redact(v, _in_headers=_in_headers) for v in data]
    if isinstance(data, str):
        return redact_url(data)
    return data


def secret_values(data: Any) -> list[str]:
    """Return the secret strings inside settings (masked values, URL passwords), longest first."""
    found: list[str] = []

    def walk(value: Any, secret: bool) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                name = str(k)
                walk(v, secret or (name not in _NAME_ONLY and bool(_SECRET_NAME.search(name))) or name in _HEADERS)
        elif isinstance(value, list):
            for v in value:
                walk(v, secret)
        elif isinstance(value, str):
            if secret and len(value) >= 4:
                found.append(value)
            for match in _USERINFO.finditer(value):
                info = match.group("userinfo")
                found.extend(part for part in (info, info.partition(":")[2]) if len(part) >= 4)

    walk(data, False)
    return sorted(set(found), key=len, reverse=True)


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Return text with every known secret and any URL user info masked."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    return redact_url(text)


__all__ = ["MASK", "redact", "redact_url", "scrub", "secret_values"]
