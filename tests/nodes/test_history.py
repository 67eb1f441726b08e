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
