"""Measure a shared rate limit from the provider's side: W workers of one eval against an OpenAI-compatible
server on 127.0.0.1, with a limit of R requests per window. Prints the most requests the server's own log
shows in any window (must never exceed R) and the achieved rate against R.

    python bench/rate_limit.py [--requests 5] [--window 1] [--workers 4] [--frames 60]
"""

from __future__ import annotations

import argparse
import os
import tempfile

from typer.testing import CliRunner

from doomagent.cli import app
from doomagent.providers.stub_server import StubServer


def main() -> None:
    """Print the server-side figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5, help="R: requests per window")
    parser.add_argument("--window", type=float, default=1.0, help="the window, seconds")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--frames", type=int, default=60, help="frames per trial (one Agent call per 2)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, StubServer() as server:
        sets = ["--set", f"agent.api_base={server.url}/v1", "--set", "vision.model=test"]
        limit = f"openai/stub={args.requests}/{args.window:g}s"
        result = CliRunner().invoke(
            app,
            [
                "eval",
                "naive",
                "--model",
                "openai/stub",
                *sets,
                "--trials",
                str(args.workers),
                "--workers",
                str(args.workers),
                "--rate-limit",
                limit,
                "--max-frames",
                str(args.frames),
                "--out",
                tmp,
            ],
        )
        assert result.exit_code == 0, result.output
        arrived = sorted(r.at for r in server.requests if r.path.endswith("/chat/completions"))
    busiest = max(sum(t <= u < t + args.window for u in arrived) for t in arrived)
    span = arrived[-1] - arrived[0]
    rate = (len(arrived) - 1) / span * args.window if span > 0 else float("inf")
    print(f"{args.workers} workers, limit {args.requests} requests per {args.window:g} s, {len(arrived)} requests")
    print(f"most requests the server saw in any {args.window:g} s window: {busiest}  (limit {args.requests})")
    print(f"achieved rate: {rate:.2f} per window = {rate / args.requests:.0%} of the limit")


if __name__ == "__main__":
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    main()
