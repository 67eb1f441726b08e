"""History clipping: the newest moves that fit, dropped in blocks so consecutive prompts share a prefix."""

from doomagent.nodes.history import clip_history


def _moves(n):
    return [{"frame": 2 * i, "health": 100, "action": "UP", "reason": "go on", "tokens": 10} for i in range(n)]


def _first_move(text):
    return int(text.splitlines()[0].split()[1].rstrip(":")) // 2


def test_history_keeps_the_newest_moves_that_fit_the_budget():
    assert clip_history([], 100) == "none yet"
    lines = clip_history(_moves(30), budget_tokens=100).splitlines()
    assert len(lines) == 10 and lines[0] == "frame 40: health 100, UP - go on" and lines[-1].startswith("frame 58")


def test_chunked_history_drops_old_moves_in_blocks_and_otherwise_extends_the_last_prompt():
    drops, previous = [], ""
    for n in range(1, 60):
        text = clip_history(_moves(n), budget_tokens=100, chunk=8)
        first, shown = _first_move(text), len(text.splitlines())
        assert first % 8 == 0 and shown <= 10 and shown == n - first
        if previous and not text.startswith(previous):
            drops.append(n)
        previous = text
    assert drops == [11, 19, 27, 35, 43, 51, 59]  # every 8 moves once the budget is full; in between, append only


def test_brief_lines_name_the_health_only_where_it_changed_and_clip_the_same_way():
    moves = _moves(6)
    moves[3]["health"] = moves[4]["health"] = moves[5]["health"] = 80  # hit before frame 6
    moves[5]["parse_ok"] = False
    lines = clip_history(moves, budget_tokens=1000, brief=True).splitlines()
    assert lines[:4] == [
        "frame 0: UP - go on",
        "frame 2: UP - go on",
        "frame 4: UP - go on",
        "frame 6: UP - go on (health now 80)",
    ]
    assert lines[4:] == ["frame 8: UP - go on", "frame 10: UP (not understood, WAIT played) - go on"]
    shorter = clip_history(_moves(30), budget_tokens=100, brief=True).splitlines()
    assert len(shorter) > 10 and shorter[-1] == "frame 58: UP - go on"  # more moves fit the same budget
    chunked = clip_history(_moves(30), budget_tokens=100, chunk=8, brief=True)
    assert _first_move(chunked) % 8 == 0 and chunked.endswith("frame 58: UP - go on")
