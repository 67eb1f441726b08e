"""History of previous states and actions as prompt text, clipped to a token budget."""

from __future__ import annotations

from typing import Any

CHARS_PER_TOKEN = 4  # a conservative estimate for English and numbers; no tokenizer download needed


def history_line(entry: dict[str, Any]) -> str:
    """Return one decision as a prompt line (Act stores it under "line" so it is built once)."""
    if "line" in entry:
        return str(entry["line"])
    note = " (not understood, WAIT played)" if not entry.get("parse_ok", True) else ""
    reason = f" - {entry['reason']}" if entry.get("reason") else ""
    return f"frame {entry['frame']}: health {entry['health']}, {entry['action']}{note}{reason}"


def clip_history(history: list[dict[str, Any]], budget_tokens: int) -> str:
    """Return the newest history lines that fit `budget_tokens`, oldest first; 'none yet' when empty."""
    lines: list[str] = []
    used = 0
    for entry in reversed(history):
        line = history_line(entry)
        cost = entry.get("tokens") or len(line) // CHARS_PER_TOKEN + 1
        if used + cost > budget_tokens:
            break
        lines.append(line)
        used += cost
    return "\n".join(reversed(lines)) if lines else "none yet"


HISTORY_SLOT = "\x00history\x00"  # rendered in place of the history, then replaced


def fill_history(prompt: str, history: list[dict[str, Any]], context_tokens: int, max_tokens: int) -> str:
    """Put the history that still fits the context into a prompt rendered with HISTORY_SLOT."""
    rest = len(prompt) - len(HISTORY_SLOT)
    budget = max(0, context_tokens - rest // CHARS_PER_TOKEN - max_tokens - 64)
    return prompt.replace(HISTORY_SLOT, clip_history(history, budget))
