"""The replies of StubServer in each provider's wire format: OpenAI's chat completions, Ollama's chat,
Anthropic's messages and Gemini's generateContent, with text or tool calls and prompt-cache token counts."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

Body = dict[str, Any]

# The path each kind of server answers on (what LiteLLM posts to with `api_base` set to the stub's URL).
ROUTES = {
    "openai": "/chat/completions",
    "ollama": "/api/chat",
    "anthropic": "/v1/messages",
    "gemini": ":generateContent",
}


@dataclass(frozen=True)
class StubAnswer:
    """A reply beyond plain text: tool calls (name, arguments) and the prompt-cache tokens to report."""

    text: str = ""
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    cached_tokens: int = 0  # input tokens read from the cache
    cache_write_tokens: int = 0  # input tokens written to it (Anthropic)
    extra: dict[str, Any] = field(default_factory=dict)


def payload(kind: str, body: Body, answer: StubAnswer, serial: int) -> dict[str, Any]:
    """Return the reply to `body` in `kind`'s format."""
    prompt = max(1, len(json.dumps(body)) // 4)
    completion = max(1, (len(answer.text) + len(json.dumps(answer.tool_calls))) // 4)
    build = {"ollama": _ollama, "anthropic": _anthropic, "gemini": _gemini}.get(kind, _openai)
    return build(body, answer, serial, prompt, completion)


def _openai(body: Body, answer: StubAnswer, serial: int, prompt: int, completion: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.text or None}
    if answer.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{serial}_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(answer.tool_calls)
        ]
    else:
        message["content"] = answer.text
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if answer.cached_tokens:
        usage["prompt_tokens_details"] = {"cached_tokens": answer.cached_tokens}
    return {
        "id": f"chatcmpl-stub-{serial}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "stub"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if answer.tool_calls else "stop"}],
        "usage": usage,
    }


def _ollama(body: Body, answer: StubAnswer, serial: int, prompt: int, completion: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.text}
    if answer.tool_calls:
        message["tool_calls"] = [{"function": {"name": n, "arguments": a}} for n, a in answer.tool_calls]
    return {
        "model": body.get("model", "stub"),
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "message": message,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": prompt,
        "eval_count": completion,
    }


def _anthropic(body: Body, answer: StubAnswer, serial: int, prompt: int, completion: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": answer.text}] if answer.text else []
    content += [
        {"type": "tool_use", "id": f"toolu_{serial}_{i}", "name": n, "input": a}
        for i, (n, a) in enumerate(answer.tool_calls)
    ]
    return {
        "id": f"msg_stub_{serial}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "stub"),
        "content": content or [{"type": "text", "text": ""}],
        "stop_reason": "tool_use" if answer.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": max(1, prompt - answer.cached_tokens - answer.cache_write_tokens),
            "output_tokens": completion,
            "cache_creation_input_tokens": answer.cache_write_tokens,
            "cache_read_input_tokens": answer.cached_tokens,
        },
    }


def _gemini(body: Body, answer: StubAnswer, serial: int, prompt: int, completion: int) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": answer.text}] if answer.text else []
    parts += [{"functionCall": {"name": n, "args": a}} for n, a in answer.tool_calls]
    usage: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": completion,
        "totalTokenCount": prompt + completion,
    }
    if answer.cached_tokens:
        usage["cachedContentTokenCount"] = answer.cached_tokens
    return {
        "candidates": [
            {"content": {"parts": parts or [{"text": ""}], "role": "model"}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": usage,
    }
