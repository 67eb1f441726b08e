"""Record what the four paper recipes send: per role, each call's frame, settings and prompt hash.

`python tests/paper_golden.py` rewrites tests/data/paper_prompts.json; test_paper_recipes.py compares a
fresh run against it, so a refactor that changes a prompt, a call count or the cadence fails loudly.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from doomagent.providers import ScriptedModel

GOLDEN = Path(__file__).parent / "data" / "paper_prompts.json"
RECIPES = ("naive", "walkthrough", "plan", "k-levels")
VISION = '{"room": "a hall", "enemies": [], "items": [], "hazards": [], "hud": ["health 100%"]}'


def scripted() -> dict[str, ScriptedModel]:
    """Return fixed models for every paper role; the agent alternates a move with an unreadable answer."""
    return {
        "vision": ScriptedModel([VISION]),
        "planner": ScriptedModel(["1. Walk east.\n2. Open the door."]),
        "experts": ScriptedModel(["ACTION: LEFT\nREASON: look around"]),
        "agent": ScriptedModel(["ACTION: UP\nREASON: onward", "hmm", "ACTION: FIRE\nREASON: imp"]),
    }


def record(name: str, frames: int = 120) -> dict[str, list[list[object]]]:
    """Play `name` for `frames` frames with scripted models; return each role's calls."""
    from doomagent.graph import run_trial
    from doomagent.recipes import load_recipe

    recipe, folder = load_recipe(name, max_frames=frames)
    models = scripted()
    run_trial(recipe, models=models, recipe_dir=folder)
    return {
        role: [
            [c.frame, c.temperature, c.max_tokens, hashlib.sha256(c.text().encode()).hexdigest()[:16]]
            for c in model.calls
        ]
        for role, model in models.items()
    }


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps({name: record(name) for name in RECIPES}, indent=1) + "\n")
    print(f"wrote {GOLDEN}")
