"""Read the action out of a model's answer, in every common shape, and refuse what is unclear.

An answer counts when it names exactly one allowed action after an action label (`ACTION: X`,
`Action - X`, `|Action| X |`, `**ACTION:** X`, `"action": "X"`, quotes and trailing punctuation
allowed) or as the whole answer (`FIRE.`, `**strafe left**`). An answer naming two different
actions, or none, is refused with a reason (the graph then plays WAIT and logs why).
"""

from __future__ import annotations

import json
import re
from typing import Any

from doomagent.env.actions import Action, Aim, Move, parse_move
from doomagent.errors import ActionParseError

_ACTION = r"(?:AIM\s*[:#]?\s*\d{1,2}|STRAFE[ _-]*LEFT|STRAFE[ _-]*RIGHT|UP|DOWN|LEFT|RIGHT|FIRE|USE|WAIT|SPEED|[1-7])"
_AT_START = re.compile(rf"^(?P<action>{_ACTION})(?![A-Za-z0-9])(?P<rest>.*)$", re.I | re.S)
_ALSO = re.compile(rf"^\s*(?:or|and|/|,|then|\+|&)\s*{_ACTION}(?![A-Za-z0-9])", re.I)
_SEP = r"(?:\s*(?:\||:|=|->|=>|-|–|—)\s*)+"
# A label may be quoted as a JSON key (`"action": "up."`, or JSON cut short by max_tokens).
_LABEL = re.compile(
    rf"(?:^|(?<=[\s|(\[{{,;>]))[\"']?(?:final\s+|chosen\s+|next\s+)?(?:action|move|answer|decision)[\"']?"
    rf"{_SEP}(?P<value>\"[^\"\n]*\"?|[^\n|]*)",  # a quoted value ends at its closing quote
    re.I,
)
_REASON = re.compile(
    rf"(?:^|(?<=[\s|(\[{{,;>]))[\"']?(?:reason|explanation|rationale|why)[\"']?{_SEP}(?P<value>.+)",
    re.I | re.S,
)
_NOISE = re.compile(r"[*`~#]+|[\x00-\x08\x0b-\x1f\x7f]")
_OPENERS = "\"'“”‘’«»([{<_"
_CLOSERS = "\"'“”‘’«»)]}>.!,;:_ \t"


def _clean(text: str) -> str:
    """Drop markdown emphasis and control characters (NUL included)."""
    return _NOISE.sub(" ", text)


def _leading_action(value: str) -> tuple[Move, str] | None:
    """Return the action a value starts with and the rest, or None; raise when it names two (`LEFT or RIGHT`)."""
    value = value.strip().lstrip(_OPENERS).strip()
    match = _AT_START.match(value)
    if match is None:
        return None
    action = parse_move(match.group("action"))
    rest = match.group("rest")
    if _ALSO.match(rest.lstrip("\"'”’.")):
        raise ActionParseError(value[:200], f"the answer names two actions ({action.value} and another)")
    return action, rest.strip(_CLOSERS + "-–—")


def json_object(text: str) -> dict[str, Any] | None:
    """Return the first JSON object found in text, or None."""
    start = text.find("{")
    while start != -1:
        depth = 0
        for i in range(start, len(text)):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    try:
                        value = json.loads(text[start : i + 1])
                    except (json.JSONDecodeError, RecursionError):
                        break
                    return value if isinstance(value, dict) else None
        start = text.find("{", start + 1)
    return None


def _json_fields(text: str) -> dict[str, Any] | None:
    data = json_object(text)
    return {str(k).lower(): v for k, v in data.items()} if data is not None else None


def _labelled(text: str) -> tuple[list[tuple[Move, str]], str | None]:
    """Return the actions named after action labels (with the rest of their value), and the reason label."""
    reason = _REASON.search(text)
    # The reason's own line ("REASON: the MOVE: 1 key is wrong") names no action when a label outside it does.
    inner = _reason_span(text, reason) if reason else (0, -1)
    found: list[tuple[Move, str]] = []
    within: list[tuple[Move, str]] = []
    for match in _LABEL.finditer(text):
        hit = _leading_action(match.group("value"))
        if hit is not None:
            quoted = match.group("value").lstrip().startswith('"')  # a JSON value: nothing after it is a reason
            (within if inner[0] <= match.start() < inner[1] else found).append((hit[0], "") if quoted else hit)
    return found or within, _unquoted(reason.group("value")) if reason else None


def _reason_span(text: str, reason: re.Match[str]) -> tuple[int, int]:
    """Return where a reason's value lies: a quoted (JSON) value up to its closing quote, else to its line's end."""
    start = reason.start("value")
    value = text[start:]
    stripped = value.lstrip()
    if stripped.startswith('"'):
        opened = start + len(value) - len(stripped)
        end = re.search(r'(?<!\\)"', text[opened + 1 :])
        return start, opened + 1 + end.end() if end else len(text)
    line_end = text.find("\n", start)
    return start, line_end if line_end >= 0 else len(text)


def _unquoted(value: str) -> str:
    """Return a JSON string value without its quotes (up to its closing quote, or all of it when cut short)."""
    value = value.strip()
    if not value.startswith('"'):
        return value
    end = re.search(r'(?<!\\)"', value[1:])
    return value[1 : 1 + end.start()] if end else value[1:]


def read_decision(text: str) -> tuple[Move, str]:
    """Return (action, reason) from any common answer shape; raise ActionParseError saying why not."""
    if not isinstance(text, str):
        raise ActionParseError(repr(text), f"an answer must be text, not {type(text).__name__}")
    if not text.strip():
        raise ActionParseError(text, "the answer is empty")
    data = _json_fields(text)
    if data is not None:
        value = data.get("action", data.get("move"))
        if isinstance(value, str):
            hit = _leading_action(_clean(value))
            if hit is None:
                outside, reason_text = _labelled(_clean(text))  # a JSON-looking reason beside a labelled action
                if len({action for action, _ in outside}) == 1:
                    return outside[0][0], reason_text if reason_text is not None else outside[0][1]
                raise ActionParseError(value, f"the JSON action {value[:40]!r} is not an action")
            reason = data.get("reason", data.get("explanation", ""))
            return hit[0], reason if isinstance(reason, str) else json.dumps(reason)[:200]
    clean = _clean(text)
    found, reason = _labelled(clean)
    actions = {action for action, _ in found}
    if len(actions) > 1:
        names = " and ".join(sorted(a.value for a in actions))
        raise ActionParseError(text[:200], f"the answer names two different actions ({names})")
    if found:
        action, rest = found[0]
        return action, reason if reason is not None else rest
    first, _, rest = clean.strip().partition("\n")
    for candidate, why in ((clean, ""), (first, rest)):  # the whole answer, or a first line of its own
        bare = candidate.strip().strip(_OPENERS + _CLOSERS).strip()
        if bare and len(bare) <= 20:
            try:
                return parse_move(bare), why.strip()
            except ActionParseError:
                pass
    raise ActionParseError(text[:200], "no action label with an action, and the answer is not an action")


def parse_decision(text: str, allowed: frozenset[Action] | None = None, aim: int = 0) -> tuple[Move, str]:
    """Return (action, reason) from an answer; raise ActionParseError when no allowed action can be read.
    `AIM k` counts when `aim` (the grid's columns, env.grid) has a column k."""
    action, reason = read_decision(text)
    if isinstance(action, Aim):
        if not 1 <= action.column <= aim:
            why = f"there are {aim} columns to aim at" if aim else "aiming is off (env.grid is not set)"
            raise ActionParseError(text[:200], f"{action.value}: {why}")
    elif allowed is not None and action not in allowed:
        raise ActionParseError(text[:200], f"{action.value} is not allowed in this recipe")
    return action, " ".join(str(reason).strip(" |").split())[:200]
