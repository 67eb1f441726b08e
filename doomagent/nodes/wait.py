"""WAIT fallback: an Agent answer outside the action set becomes WAIT, and the next prompt says so."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doomagent.env.actions import Action


def wait(state: Mapping[str, Any]) -> dict[str, Any]:
    """Play WAIT in place of an unreadable answer and tell the Agent next time."""
    raw = " ".join((state.get("raw") or "").split())[:80]
    said = f"your answer {raw!r}" if raw else "you gave no answer"
    return {
        "action": Action.WAIT.value,
        "reason": "",
        "waits": state.get("waits", 0) + 1,
        "feedback": f"Last turn {said}, which is not one of the allowed answers, so WAIT was played. "
        "Answer with one allowed action.",
    }
