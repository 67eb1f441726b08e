"""Vision: the screenshot goes to a vision model; a structured room-and-HUD description comes back."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from doomagent.graph.context import RunContext
from doomagent.graph.state import DoomState
from doomagent.nodes._call import call_model
from doomagent.prompts import render
from doomagent.providers.base import ModelRequest, Screenshot, user_message
from doomagent.schemas import VisionReport, parse_vision, strict_schema


def vision(state: DoomState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Describe the current screen with the vision model."""
    ctx = runtime.context
    role = ctx.recipe.roles.vision
    obs = ctx.observation
    assert obs is not None, "the run loop sets the observation before the first node"
    structured = role.structured != "off"
    text = render("vision", ctx.prompts_dir, structured=structured)
    image = Screenshot(obs.screen, role.image.format, role.image.quality, role.image.max_side, role.image.detail)
    request = ModelRequest(
        role="vision",
        messages=[user_message(text, image)],
        temperature=role.temperature,
        max_tokens=role.max_tokens,
        schema=strict_schema(VisionReport) if structured else None,
        schema_name="vision_report",
        frame=state["frame"],
    )
    response, usage = call_model(ctx, "vision", request)
    report = parse_vision(response.text) if response and response.text.strip() else None
    return {"vision": report.as_text() if report else "(no description: the vision model failed)", "usage": usage}
