"""Test doubles shared by test modules (importable: the tests folder is on sys.path through its conftest)."""

from doomagent.providers import ScriptedModel

VISION = '{"room": "a hall", "enemies": [], "items": [], "hazards": [], "hud": ["health 100%"]}'


def scripted(agent_replies=("ACTION: UP\nREASON: onward",)):
    """Return scripted models for the paper's four roles (the Agent's replies in turn, the last one repeated)."""
    return {
        "vision": ScriptedModel([VISION]),
        "planner": ScriptedModel(["1. Walk east.\n2. Open the door."]),
        "experts": ScriptedModel(["ACTION: LEFT\nREASON: look around"]),
        "agent": ScriptedModel(list(agent_replies)),
    }
