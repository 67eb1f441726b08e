"""The four paper recipes send exactly what they sent before the graph became open: the same prompts,
call counts per role, settings and cadence (pinned in tests/data/paper_prompts.json)."""

import json

import pytest
from paper_golden import GOLDEN, RECIPES, record


@pytest.mark.engine
@pytest.mark.parametrize("name", RECIPES)
def test_paper_recipe_calls_match_the_pinned_record(name):
    pinned = json.loads(GOLDEN.read_text())[name]
    got = record(name)
    assert {r: len(c) for r, c in got.items()} == {r: len(c) for r, c in pinned.items()}
    assert got == pinned
