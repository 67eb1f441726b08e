"""Every clear answer counts, whatever its shape; unclear ones stay WAIT with the reason said."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doomagent.answers.decisions import parse_decision
from doomagent.env.actions import Action
from doomagent.errors import ActionParseError

DATA = Path(__file__).parent.parent / "data"
CORPUS = [json.loads(line) for line in (DATA / "answers.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: repr(c["text"])[:40])
def test_answer_corpus(case):
    if case["action"] is None:
        with pytest.raises(ActionParseError) as info:
            parse_decision(case["text"])
        assert info.value.message  # the reason is said (and logged by the graph)
    else:
        action, reason = parse_decision(case["text"])
        assert action == Action(case["action"])
        assert isinstance(reason, str) and len(reason) <= 200


def test_the_corpus_covers_clear_and_unclear_answers():
    clear = [c for c in CORPUS if c["action"]]
    assert len(clear) >= 45 and len(CORPUS) - len(clear) >= 15


def test_reasons_are_read_from_labels_json_and_the_paper_form():
    assert parse_decision("ACTION: UP\nREASON: the hall continues")[1] == "the hall continues"
    assert parse_decision('{"action": "FIRE", "reason": "imp ahead"}')[1] == "imp ahead"
    assert parse_decision("|Action| LEFT |Explanation| The door is to the left.")[1] == "The door is to the left."


def test_an_action_outside_the_recipe_is_refused():
    with pytest.raises(ActionParseError, match="not allowed"):
        parse_decision("ACTION: FIRE", frozenset({Action.UP}))


@pytest.mark.slow  # 400 drawn texts: seconds
@settings(max_examples=400, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_an_action_or_a_typed_error(text):
    try:
        action, reason = parse_decision(text)
    except ActionParseError:
        return
    assert isinstance(action, Action) and isinstance(reason, str)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(list(Action)), st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60))
def test_labelled_actions_survive_any_reason(action, reason):
    reason = " ".join(reason.split())
    got, _ = parse_decision(f"ACTION: {action.value}\nREASON: {reason}")
    assert got is action


def test_an_action_label_inside_the_reason_line_does_not_count_beside_the_answers_own():
    # Found by the property test above: reasons that look like labels or JSON answers.
    assert parse_decision("ACTION: UP\nREASON: MOVE:1") == (Action.UP, "MOVE:1")
    assert parse_decision('ACTION: UP\nREASON: {"MOVE":""}') == (Action.UP, '{"MOVE":""}')
    assert parse_decision("REASON: the door\nACTION: LEFT")[0] is Action.LEFT  # reason first, then the label
    with pytest.raises(ActionParseError, match="two different actions"):
        parse_decision("ACTION: UP\nREASON: x\nACTION: LEFT")  # a second label on a line of its own
