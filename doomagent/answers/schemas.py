"""Pydantic models of what each role answers, and lenient parsers from JSON or plain text."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from doomagent.answers.decisions import json_object, parse_decision
from doomagent.env.actions import Action
from doomagent.errors import ActionParseError

_M = TypeVar("_M", bound=BaseModel)


class VisionReport(BaseModel):
    """A structured description of the screenshot: the room, then the HUD as a list."""

    room: str = Field(description="what the player sees: walls, doors, floor, light, layout")
    enemies: list[str] = Field(default_factory=list, description="enemies in view, with where they are")
    items: list[str] = Field(default_factory=list, description="items, switches and doors in view")
    hazards: list[str] = Field(default_factory=list, description="toxic floors, barrels, drops")
    hud: list[str] = Field(default_factory=list, description="each HUD value: health, armor, ammo, weapon")

    def as_text(self) -> str:
        """Return the report as prompt text."""
        lines = [f"ROOM: {self.room}"]
        for name, items in (("ENEMIES", self.enemies), ("ITEMS", self.items), ("HAZARDS", self.hazards)):
            lines.append(f"{name}: {'; '.join(items) if items else 'none'}")
        lines.append(f"HUD: {'; '.join(self.hud) if self.hud else 'not read'}")
        return "\n".join(lines)


class Plan(BaseModel):
    """A short step-by-step plan."""

    steps: list[str] = Field(description="three to six short imperative steps, in order")


class AgentDecision(BaseModel):
    """One move and why."""

    action: str = Field(description="exactly one of the allowed actions")
    reason: str = Field(description="a few words of explanation")


def _from_json(text: str, model: type[_M]) -> _M | None:
    """Return `model` validated from the first JSON object in text, or None."""
    data = json_object(text)
    if data is None:
        return None
    try:
        return model.model_validate(data)
    except ValidationError:
        return None


def parse_vision(text: str) -> VisionReport:
    """Return a report from JSON if the text holds one, else from free text (the HUD from '-' lines)."""
    report = _from_json(text, VisionReport)
    if report is not None:
        return report
    hud = [line.strip()[1:].strip() for line in text.splitlines() if line.strip().startswith(("-", "*"))]
    return VisionReport(room=text.strip(), hud=hud)


def parse_plan(text: str) -> Plan:
    """Return a plan from JSON or from numbered / bulleted lines."""
    plan = _from_json(text, Plan)
    if plan is not None:
        return plan
    steps = [re.sub(r"^\s*(step\s*)?(\d+[.):]|[-*])\s*", "", line, flags=re.I).strip() for line in text.splitlines()]
    return Plan(steps=[s for s in steps if s])


@lru_cache(maxsize=32)
def decision_schema(
    allowed: frozenset[Action] | None = None, reason_chars: int | None = None, aim: int = 0
) -> dict[str, Any]:
    """Return the JSON schema of an agent decision, the action an enum of the allowed ones (cached: do not mutate).

    `reason_chars` caps the reason's length: a grammar-constrained server (llama.cpp) then always closes the
    JSON within the token budget instead of being cut off mid-string.
    """
    names = answer_names(allowed, aim)
    reason: dict[str, Any] = {"type": "string"}
    if reason_chars is not None:
        reason["maxLength"] = reason_chars
    return {
        "type": "object",
        "properties": {"action": {"type": "string", "enum": names}, "reason": reason},
        "required": ["action", "reason"],
        "additionalProperties": False,
    }


def answer_names(allowed: frozenset[Action] | None, aim: int = 0) -> list[str]:
    """Return the answers a decision may give: the allowed keys, then `AIM 1`..`AIM n` with a grid of n."""
    return [a.value for a in Action if allowed is None or a in allowed] + [f"AIM {k}" for k in range(1, aim + 1)]


@lru_cache(maxsize=32)
def direct_schema(allowed: frozenset[Action] | None = None, aim: int = 0) -> dict[str, Any]:
    """Return the JSON schema of a direct strategy's answer: what was seen (one line), the action, the reason
    (cached: do not mutate)."""
    names = answer_names(allowed, aim)
    return {
        "type": "object",
        "properties": {
            "seen": {"type": "string"},
            "action": {"type": "string", "enum": names},
            "reason": {"type": "string"},
        },
        "required": ["seen", "action", "reason"],
        "additionalProperties": False,
    }


_SEEN = re.compile(r"(?:^|\n)\W*(?:seen|description|i see)\W*[:=-]\s*(?P<value>[^\n]+)", re.I)


def seen_line(text: str) -> str:
    """Return what a direct answer says it saw: the JSON `seen` field or a `SEEN:` line ("" when neither)."""
    data = json_object(text)
    if data is not None:
        value = data.get("seen", data.get("description", ""))
        return " ".join(str(value).split())[:300] if value else ""
    match = _SEEN.search(text)
    return " ".join(match.group("value").split())[:300] if match else ""


def reason_chars(max_tokens: int, frame_tokens: int) -> int:
    """Return the longest reason that still ends within `max_tokens`, given the tokens of the answer around it
    (~3 characters a token)."""
    return max(12, (max_tokens - frame_tokens) * 3)


@lru_cache(maxsize=32)
def decision_grammar(allowed: frozenset[Action] | None = None, reason_chars: int = 60, aim: int = 0) -> str:
    """Return a GBNF grammar (llama.cpp) for the two-line answer: ACTION first, so a cut-off reason never loses it."""
    names = answer_names(allowed, aim)
    names.sort(key=len, reverse=True)  # alternatives are tried in order: STRAFE LEFT before LEFT
    choices = " | ".join(json.dumps(n) for n in names)
    return (
        'root ::= "ACTION: " action "\\nREASON: " reason\n'
        f"action ::= {choices}\n"
        f"reason ::= [^\\n]{{1,{reason_chars}}}\n"
    )


JSON_FRAME_TOKENS = 16  # {"action": "STRAFE RIGHT", "reason": "..."} without the reason's words
TEXT_FRAME_TOKENS = 8  # ACTION: STRAFE RIGHT / REASON: without the reason's words


@lru_cache(maxsize=32)
def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """Return a model's JSON schema with every property required and no extras (cached: do not mutate)."""
    schema = model.model_json_schema()
    schema["required"] = list(schema.get("properties", {}))
    schema["additionalProperties"] = False
    for prop in schema.get("properties", {}).values():
        prop.pop("default", None)
    return schema


def decision_failure(allowed: frozenset[Action] | None = None, aim: int = 0) -> Callable[[str], str | None]:
    """Return a check that names why an Agent answer is unusable: empty, off_schema or garbage (None if fine)."""

    def check(text: str) -> str | None:
        if not text.strip():
            return "empty"
        try:
            parse_decision(text, allowed, aim)
        except ActionParseError:
            return "off_schema" if json_object(text) is not None else "garbage"
        return None

    return check


def empty_failure(text: str) -> str | None:
    """Name an empty answer as a failure (Vision and Planner read any other text)."""
    return None if text.strip() else "empty"
