"""Tool calls as the action channel: the `press` tool a model must call (OpenAI's tool format; LiteLLM carries it
to Anthropic, Gemini, vLLM and llama.cpp), and reading the action out of the reply's tool calls.

A reply with no `press` call, or with calls naming different keys, is refused with a reason, like an unclear
text answer (the graph then plays WAIT and logs why).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from doomagent.env.actions import Action, Aim, Move, parse_action
from doomagent.errors import ActionParseError
from doomagent.providers.base import ModelResponse, ToolCall

PRESS = "press"
AIM = "aim"


def _tool(name: str, description: str, choice: tuple[str, dict[str, Any]], *, seen: bool) -> dict[str, Any]:
    """Return a decision tool: (with `seen`, a one-line account of the screen first), its choice, a reason."""
    properties: dict[str, Any] = {}
    if seen:
        properties["seen"] = {"type": "string", "description": "what the screen shows, in one short line"}
    properties[choice[0]] = choice[1]
    properties["reason"] = {"type": "string", "description": "why, in a few words"}
    parameters = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


def press_tool(allowed: frozenset[Action] | None = None, *, seen: bool = False) -> dict[str, Any]:
    """Return the `press` tool: `key` (an enum of the allowed actions) and `reason`; with `seen`, also a one-line
    account of the screen first (the direct strategy's description)."""
    keys = [a.value for a in Action if allowed is None or a in allowed]
    key = {"type": "string", "enum": keys, "description": "the one key to press this turn"}
    return _tool(PRESS, "Press one key of the game for this turn.", ("key", key), seen=seen)


def aim_tool(columns: int, *, seen: bool = False) -> dict[str, Any]:
    """Return the `aim` tool (env.grid): turn so that a numbered column of the picture is straight ahead."""
    column = {
        "type": "integer",
        "minimum": 1,
        "maximum": columns,
        "description": "the column (numbered at the top of the picture) to turn to; FIRE next hits what is in it",
    }
    description = "Turn so that a numbered column of the picture is straight ahead (instead of a key)."
    return _tool(AIM, description, ("column", column), seen=seen)


def decision_tools(allowed: frozenset[Action] | None, aim: int, *, seen: bool = False) -> tuple[dict[str, Any], ...]:
    """Return the tools of a decision: press, and aim when the grid has `aim` columns."""
    tools = [press_tool(allowed, seen=seen)]
    if aim:
        tools.append(aim_tool(aim, seen=seen))
    return tuple(tools)


@dataclass(frozen=True)
class ToolDecision:
    """What a reply's tool calls said: the action, its reason and (direct strategy) what was seen."""

    action: Move
    reason: str
    seen: str = ""


def read_tool_calls(calls: Sequence[ToolCall], allowed: frozenset[Action] | None = None, aim: int = 0) -> ToolDecision:
    """Return the decision of a reply's press (or aim) calls; raise ActionParseError when there is none, when they
    say different things, or when the key is not allowed (or the column is off the grid)."""
    chosen = [c for c in calls if c.name == PRESS or (aim and c.name == AIM)]
    if not chosen:
        names = ", ".join(c.name for c in calls) or "none"
        raise ActionParseError(_shown(calls), f"the reply called no {PRESS} tool (tool calls: {names})")
    moves = [_move_of(call, aim, calls) for call in chosen]
    if len(set(moves)) > 1:
        named = " and ".join(sorted({m.value for m in moves}))
        raise ActionParseError(_shown(calls), f"the tool calls say different things ({named})")
    move = moves[0]
    if isinstance(move, Action) and allowed is not None and move not in allowed:
        raise ActionParseError(_shown(calls), f"{move.value} is not allowed in this recipe")
    first = chosen[0].arguments
    reason = " ".join(str(first.get("reason", "")).split())[:200]
    return ToolDecision(move, reason, " ".join(str(first.get("seen", "")).split())[:300])


def _move_of(call: ToolCall, aim: int, calls: Sequence[ToolCall]) -> Move:
    if call.name == AIM:
        column = call.arguments.get("column")
        if isinstance(column, str) and column.strip().isdigit():
            column = int(column)
        if not isinstance(column, int) or not 1 <= column <= aim:
            raise ActionParseError(_shown(calls), f"an {AIM} call needs a column from 1 to {aim} ({call.raw[:80]!r})")
        return Aim(column)
    key = call.arguments.get("key")
    if not isinstance(key, str):
        raise ActionParseError(_shown(calls), f"a {PRESS} call has no key ({call.raw[:80]!r})")
    return parse_action(key)


def _shown(calls: Sequence[ToolCall]) -> str:
    return json.dumps([{"name": c.name, "arguments": c.arguments} for c in calls])[:200]


def raw_reply(response: ModelResponse | None) -> str:
    """Return a reply as steps.jsonl's `raw` shows it: its tool calls as JSON when it made any, else its text."""
    if response is None:
        return ""
    if response.tool_calls:
        return json.dumps([{"name": c.name, "arguments": c.arguments} for c in response.tool_calls])
    return response.text


def tool_failure(allowed: frozenset[Action] | None = None, aim: int = 0) -> ReplyCheck:
    """Return a check naming why a tool reply is unusable: no_tool_call or unclear_tool_call (None if fine)."""

    def check(response: ModelResponse) -> str | None:
        if not any(c.name in (PRESS, AIM) for c in response.tool_calls):
            return "no_tool_call"
        try:
            read_tool_calls(response.tool_calls, allowed, aim)
        except ActionParseError:
            return "unclear_tool_call"
        return None

    return ReplyCheck(check)


@dataclass(frozen=True)
class ReplyCheck:
    """A check on a whole reply (its tool calls), where a text check reads only the text."""

    fn: Any  # Callable[[ModelResponse], str | None]

    def __call__(self, response: ModelResponse) -> str | None:
        """Return the failure's type, or None when the reply is usable."""
        result = self.fn(response)
        return None if result is None else str(result)
