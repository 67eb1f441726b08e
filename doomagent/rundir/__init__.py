"""The run folder: what `run` and `eval` write, in one place.

A trial folder holds these files (names below); an eval folder holds `<recipe>__<model>/` folders (under
`<wad>_<map>/` for an eval over several maps), each with `recipe.json` beside its `trial-NNN/` folders.
`log` writes and reads the JSONL logs (a last line cut short by a crash is left out when read), `summary` is
the one trial summary type, `folders` claims folders (locks, writable checks).
"""

from __future__ import annotations

RECIPE = "recipe.json"  # the resolved recipe, beside the trial folders (secrets masked)
SUMMARY = "summary.json"  # the trial's summary (TrialResult), written last
STEPS = "steps.jsonl"  # one line per decision
CALLS = "calls.jsonl"  # one line per model call
PROMPTS = "prompts.jsonl"  # each distinct prompt once, by hash
AUDIT = "audit.jsonl"  # the Vision audit's verdicts
DEMO = "episode.lmp"  # the ViZDoom demo
WALKTHROUGH = "walkthrough.md"  # the walkthrough the trial's prompts read
LIVE = "live"  # what a playing trial shows (the live view reads it)
CHECKPOINT = "checkpoint"  # the trial's last checkpoint, until it ends
CHECKPOINT_FILES = ("meta.json", "graph.sqlite")  # what a complete checkpoint holds

__all__ = [
    "AUDIT",
    "CALLS",
    "CHECKPOINT",
    "CHECKPOINT_FILES",
    "DEMO",
    "LIVE",
    "PROMPTS",
    "RECIPE",
    "STEPS",
    "SUMMARY",
    "WALKTHROUGH",
]
