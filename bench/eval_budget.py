"""Measure how closely an eval-wide `--max-cost` stops an eval: W trials at once on a priced test model
(every call costs $0.001), a cap of $C. Prints the spend against the cap, in calls and in decisions per
running trial (target: within one decision per running trial), and the trials never started.

    python bench/eval_budget.py [--max-cost 0.5] [--workers 2] [--trials 4]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from typer.testing import CliRunner

from doomagent.cli import app

PRICE = 0.001  # dollars per call
CALLS_PER_DECISION = 2  # naive: Vision and Agent


def main() -> None:
    """Print the spend and how far past the cap it went."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-cost", type=float, default=0.5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--trials", type=int, default=4)
    args = parser.parse_args()
    priced = [f"{role}.extra={{cost: {PRICE}}}" for role in ("agent", "vision")]
    with tempfile.TemporaryDirectory() as tmp:
        result = CliRunner().invoke(
            app,
            ["eval", "naive", "--model", "test", "--vision-model", "test", "--max-frames", "2000"]
            + [x for s in priced for x in ("--set", s)]
            + ["--trials", str(args.trials), "--workers", str(args.workers), "--max-cost", str(args.max_cost)]
            + ["--out", tmp],
        )
        assert result.exit_code == 0, result.output
        summaries = [json.loads(p.read_text()) for p in Path(tmp).rglob("summary.json")]
        record = json.loads((Path(tmp) / "eval.json").read_text())
    spent = sum(s["totals"]["cost"] for s in summaries)
    over = spent - args.max_cost
    over_decisions = over / PRICE / CALLS_PER_DECISION
    print(
        f"cap ${args.max_cost:.3f}; {args.workers} trials at once; ${PRICE} per call, {CALLS_PER_DECISION} per decision"
    )
    print(f"spent ${spent:.3f} in {round(spent / PRICE)} calls; outcomes: {sorted(s['outcome'] for s in summaries)}")
    print(
        f"past the cap: ${over:.3f} = {over_decisions:.1f} decisions over {len(summaries)} running trials"
        f" ({over_decisions / max(1, len(summaries)):.2f} per trial; target <= 1)"
    )
    print(f"eval.json: cut={record['cut']}, trials not started: {record['not_started']}")


if __name__ == "__main__":
    main()
