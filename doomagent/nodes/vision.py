"""Vision: the screenshot goes to a vision model; a structured room-and-HUD description comes back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from langgraph.runtime import Runtime

from doomagent import rundir
from doomagent.answers.perception import audit, engine_report
from doomagent.answers.schemas import VisionReport, empty_failure, parse_vision, strict_schema
from doomagent.prompts import render
from doomagent.runtime.context import RunContext

Perception = Literal["model", "engine", "hybrid"]


@dataclass(frozen=True)
class VisionNode:
    """The Vision node: `perception` says what it reports (the builder sets it from the recipe):
    `model` the vision model's description, `engine` the engine's facts (no model), `hybrid` both."""

    perception: Perception = "model"
    role: str = "vision"

    @property
    def roles(self) -> tuple[str, ...]:
        """Return the recipe roles this node calls (none with engine perception)."""
        return () if self.perception == "engine" else (self.role,)

    def __call__(self, state: Mapping[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
        """Describe the current screen."""
        ctx = runtime.context
        obs = ctx.observation
        assert obs is not None, "the run loop sets the observation before the first node"
        facts = engine_report(obs, ctx.env.rooms) if self.perception != "model" else None
        if facts is not None and self.perception == "engine":
            return {"vision": facts.as_text()}
        role = ctx.role(self.role)
        structured = role.structured != "off"
        text = render("vision", ctx.prompts_dir, structured=structured, aim=ctx.aim)
        schema = strict_schema(VisionReport) if structured else None
        request = ctx.request(
            self.role, text, image=True, schema=schema, schema_name="vision_report", frame=state["frame"]
        )
        response = ctx.call(self.role, request, empty_failure)
        report = parse_vision(response.text) if response and response.text.strip() else None
        update: dict[str, Any] = {}
        if report is not None:
            scored = audit(report, obs, ctx.env.rooms)
            ctx.log.write(rundir.AUDIT, scored)
            update["audit"] = {"calls": 1, "hallucinated": int(scored["hallucinated"])}
        text = report.as_text() if report else "(no description: the vision model failed)"
        if facts is not None:
            text += "\n\nENGINE FACTS:\n" + facts.as_text()
        update["vision"] = text
        return update


vision = VisionNode()
