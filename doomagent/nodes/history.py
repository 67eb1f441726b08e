"""History of previous states and actions as prompt text, clipped to a token budget."""

from __future__ import annotations

from typing import Any

CHARS_PER_TOKEN = 3  # a conservative estimate (small models split numbers and capitals finely); no tokenizer needed


def history_line(entry: dict[str, Any]) -> str:
    """Return one decision as a prompt line (Act stores it under "line" so it is built once)."""
    if "line" in entry:
        return str(entry["line"])
    note = " (not understood, WAIT played)" if not entry.get("parse_ok", True) else ""
    reason = f" - {entry['reason']}" if entry.get("reason") else ""
    return f"frame {entry['frame']}: health {entry['health']}, {entry['action']}{note}{reason}"


def clip_history(history: list[dict[str, Any]], budget_tokens: int, chunk: int = 1) -> str:
    """Return the newest history lines that fit `budget_tokens`, oldest first; 'none yet' when empty.

    With `chunk` > 1 the oldest moves are dropped `chunk` at a time (the first line shown is always a
    multiple of `chunk`), so between drops each prompt extends the previous one and a server's prompt
    cache (llama.cpp, OpenAI, Anthropic) only evaluates the new tail.
    """
    first = len(history)
    used = 0
    for i in range(len(history) - 1, -1, -1):
        entry = history[i]
        cost = entry.get("tokens") or len(history_line(entry)) // CHARS_PER_TOKEN + 1
        if used + cost > budget_tokens:
            break
        first, used = i, used + cost
    if chunk > 1 and first % chunk:
        first += chunk - first % chunk
    lines = [entry["line"] if "line" in entry else history_line(entry) for entry in history[first:]]
    return "\n".join(lines) if lines else "none yet"


HISTORY_SLOT = "\x00history\x00"  # rendered in place of the history, then replaced


def fill_history(
    prompt: str, history: list[dict[str, Any]], context_tokens: int, max_tokens: int, chunk: int = 1
) -> str:
    """Put the history that still fits the context into a prompt rendered with HISTORY_SLOT."""
    rest = len(prompt) - len(HISTORY_SLOT)
    budget = max(0, context_tokens - rest // CHARS_PER_TOKEN - max_tokens - 64)
    return prompt.replace(HISTORY_SLOT, clip_history(history, budget, chunk))
