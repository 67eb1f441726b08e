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


def brief_line(entry: dict[str, Any], previous: dict[str, Any] | None) -> str:
    """Return one decision as a prompt line for a model that sees the screen (its status bar shows the health):
    the health only where it changed since the decision before."""
    note = " (not understood, WAIT played)" if not entry.get("parse_ok", True) else ""
    reason = f" - {entry['reason']}" if entry.get("reason") else ""
    changed = previous is not None and previous.get("health") != entry.get("health")
    health = f" (health now {entry['health']})" if changed else ""
    return f"frame {entry['frame']}: {entry['action']}{note}{reason}{health}"


def clip_history(history: list[dict[str, Any]], budget_tokens: int, chunk: int = 1, *, brief: bool = False) -> str:
    """Return the newest history lines that fit `budget_tokens`, oldest first; 'none yet' when empty.

    With `chunk` > 1 the oldest moves are dropped `chunk` at a time (the first line shown is always a
    multiple of `chunk`), so between drops each prompt extends the previous one and a server's prompt
    cache (llama.cpp, OpenAI, Anthropic) only evaluates the new tail. `brief`: lines as `brief_line` writes
    them (the direct strategies: the model reads the health off the screen).
    """
    first = len(history)
    used = 0
    lines: list[str] = []
    for i in range(len(history) - 1, -1, -1):
        entry = history[i]
        if brief:
            line = brief_line(entry, history[i - 1] if i else None)
            cost = len(line) // CHARS_PER_TOKEN + 1
        else:
            line = entry["line"] if "line" in entry else history_line(entry)
            cost = entry.get("tokens") or len(line) // CHARS_PER_TOKEN + 1
        if used + cost > budget_tokens:
            break
        first, used = i, used + cost
        lines.append(line)
    lines.reverse()
    if chunk > 1 and first % chunk:
        lines = lines[chunk - first % chunk :]
    return "\n".join(lines) if lines else "none yet"


HISTORY_SLOT = "\x00history\x00"  # rendered in place of the history, then replaced


def fill_history(
    prompt: str,
    history: list[dict[str, Any]],
    context_tokens: int,
    max_tokens: int,
    chunk: int = 1,
    *,
    brief: bool = False,
) -> str:
    """Put the history that still fits the context into a prompt rendered with HISTORY_SLOT."""
    rest = len(prompt) - len(HISTORY_SLOT)
    budget = max(0, context_tokens - rest // CHARS_PER_TOKEN - max_tokens - 64)
    return prompt.replace(HISTORY_SLOT, clip_history(history, budget, chunk, brief=brief))
