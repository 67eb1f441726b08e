import pytest

from doomagent.env import ACTION_NAMES, Action, parse_action
from doomagent.errors import ActionParseError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("UP", Action.UP),
        ("  up ", Action.UP),
        ("Strafe Left", Action.STRAFE_LEFT),
        ("strafe_right", Action.STRAFE_RIGHT),
        ("STRAFELEFT", Action.STRAFE_LEFT),
        ("'fire'", Action.FIRE),
        ("use.", Action.USE),
        ("wait", Action.WAIT),
        ("Speed", Action.SPEED),
        ("3", Action.WEAPON_3),
        (" 7 ", Action.WEAPON_7),
        (Action.LEFT, Action.LEFT),
    ],
)
def test_parse_accepts_the_vocabulary_loosely(text, expected):
    assert parse_action(text) is expected


@pytest.mark.parametrize("text", ["", "JUMP", "8", "0", "UP UP", "move forward", "LEFTT"])
def test_parse_rejects_everything_else_with_a_typed_error(text):
    with pytest.raises(ActionParseError) as info:
        parse_action(text)
    assert info.value.text == text
    assert "UP" in info.value.hint


def test_vocabulary_is_the_papers_seventeen_keys():
    assert ACTION_NAMES == (
        "UP",
        "DOWN",
        "LEFT",
        "RIGHT",
        "STRAFE LEFT",
        "STRAFE RIGHT",
        "FIRE",
        "USE",
        "WAIT",
        "SPEED",
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
    )
    assert {a for a in Action if a.is_motion} == {
        Action.UP,
        Action.DOWN,
        Action.LEFT,
        Action.RIGHT,
        Action.STRAFE_LEFT,
        Action.STRAFE_RIGHT,
    }
