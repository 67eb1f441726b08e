"""Vision: the screenshot goes to a vision model; a structured room-and-HUD description comes back."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from doomagent.graph.context import RunContext
from doomagent.graph.state import DoomState
from doomagent.nodes._call import call_model
from doomagent.perception import audit, engine_report
from doomagent.prompts import render
from doomagent.providers.base import ModelRequest, Screenshot, user_message
from doomagent.schemas import VisionReport, empty_failure, parse_vision, strict_schema


def vision(state: DoomState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Describe the current screen: with the vision model, the engine's facts, or both (recipe.perception)."""
    ctx = runtime.context
    obs = ctx.observation
    assert obs is not None, "the run loop sets the observation before the first node"
    perception = ctx.recipe.perception
    facts = engine_report(obs, ctx.env.rooms) if perception != "model" else None
    if perception == "engine":
        assert facts is not None
        return {"vision": facts.as_text()}
    role = ctx.recipe.roles.vision  # type: ignore[union-attr]
    assert role is not None, "the recipe validator requires a vision role unless perception is engine"
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
    response, usage = call_model(ctx, "vision", request, empty_failure)
    report = parse_vision(response.text) if response and response.text.strip() else None
    update: dict[str, Any] = {"usage": usage}
    if report is not None:
        scored = audit(report, obs, ctx.env.rooms)
        ctx.log.write("audit.jsonl", scored)
        update["audit"] = {"calls": 1, "hallucinated": int(scored["hallucinated"])}
    text = report.as_text() if report else "(no description: the vision model failed)"
    if facts is not None:
        text += "\n\nENGINE FACTS:\n" + facts.as_text()
    update["vision"] = text
    return update
