"""Prompt templates, one per role, rendered strictly (a missing variable is an error) and in Jinja's
sandbox: a template from a shared recipe can read the documented variables and nothing else (no
attribute tricks, no file or shell access)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from doomagent.errors import ConfigError

PROMPT_DIR = Path(__file__).parent
ROLES = ("vision", "planner", "agent")


@lru_cache(maxsize=8)
def _environment(folder: str) -> Any:
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    return ImmutableSandboxedEnvironment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(role: str, folder: Path | None = None, **variables: Any) -> str:
    """Render `<role>.j2` from `folder` (default: the shipped prompts) with these variables."""
    import jinja2
    from jinja2.sandbox import SecurityError

    env = _environment(str(folder or PROMPT_DIR))
    try:
        return env.get_template(f"{role}.j2").render(**variables).strip()
    except jinja2.TemplateNotFound as exc:
        raise ConfigError(
            f"no prompt template {exc.name} in {folder or PROMPT_DIR} (templates cannot reach outside it)",
            hint=f"copy the shipped templates from {PROMPT_DIR} and edit them",
        ) from exc
    except jinja2.UndefinedError as exc:
        raise ConfigError(f"prompt {role}.j2 uses a variable that was not given: {exc.message}") from exc
    except SecurityError as exc:
        raise ConfigError(
            f"prompt {role}.j2 tried something templates may not do: {exc}",
            hint="templates may only read the documented variables (see doomagent/prompts/*.j2)",
        ) from exc
    except jinja2.TemplateError as exc:
        raise ConfigError(f"prompt {role}.j2 in {folder or PROMPT_DIR} is not a valid template: {exc}") from exc


# Where the parts of the shipped prompts that change between decisions begin (the plan, expert moves, history,
# what is seen, notes); everything before the first of them (instructions, walkthrough) stays the same.
VOLATILE_MARKS = (
    "# Plan for now",
    "# Moves proposed",
    "# Your last moves",
    "# What you see now",
    "# Note",
    "WHAT THE BOT SEES NOW:",
)


def stable_prefix(text: str) -> int:
    """Return the length of the prompt's beginning that is the same every decision (the whole text when none of
    VOLATILE_MARKS occurs): what a provider's prompt cache can keep."""
    found = [i for mark in VOLATILE_MARKS if (i := text.find(mark)) > 0]
    return min(found) if found else len(text)
