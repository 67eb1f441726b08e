"""A local chat server speaking OpenAI's, Ollama's, Anthropic's or Gemini's wire format, for offline tests and demos.

It binds 127.0.0.1 only, answers from a function of the request body, and keeps every request it
got, so tests can check from the server side what LiteLLM really sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from doomagent.providers._stub_formats import ROUTES, Body, StubAnswer, payload

Reply = Callable[[Body], "str | StubAnswer | tuple[int, str]"]


def default_reply(body: Body) -> str:
    """Answer like every role at once: parsable as an action, a plan step and a description."""
    return "ACTION: UP\nREASON: the way ahead is open"


@dataclass
class Received:
    """One request as the server saw it."""

    path: str
    body: Body
    headers: dict[str, str]
    at: float = field(default_factory=time.monotonic)  # when it arrived (for rate-limit checks)


FAULTS = ("server_error", "rate_limit", "timeout", "disconnect", "malformed_json", "empty", "garbage", "off_schema")


@dataclass
class StubServer:
    """Serve chat completions on 127.0.0.1 in a background thread; use as a context manager.

    With `fault_rate` > 0 a seeded share of chat requests fails, each in one of FAULTS: HTTP 500, HTTP 429,
    no answer for `stall` seconds, the connection dropped, a body that is not JSON, empty text, garbage
    text, or text that ignores the requested schema. `faults` records what each request got.
    """

    kind: Literal["openai", "ollama", "anthropic", "gemini"] = "openai"
    reply: Reply = default_reply
    requests: list[Received] = field(default_factory=list)
    fault_rate: float = 0.0
    seed: int = 0
    stall: float = 2.0
    faults: list[str | None] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    def _fault(self) -> str | None:
        if self.fault_rate <= 0:
            return None
        rng = getattr(self, "_rng", None)
        if rng is None:
            import random

            rng = self._rng = random.Random(self.seed)
        return rng.choice(FAULTS) if rng.random() < self.fault_rate else None

    @property
    def url(self) -> str:
        """Return the base URL: append /v1 for OpenAI clients; Ollama clients take it as is."""
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}" if isinstance(host, str) else f"http://{host.decode()}:{port}"

    def __enter__(self) -> StubServer:
        handler = type("Handler", (_Handler,), {"stub": self, "lock": threading.Lock()})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def _payload(self, body: Body, answer: str | StubAnswer) -> dict[str, Any]:
        reply = answer if isinstance(answer, StubAnswer) else StubAnswer(text=answer)
        return payload(self.kind, body, reply, len(self.requests))


_OLLAMA_SHOW = {
    "details": {"family": "stub", "parameter_size": "0B"},
    "model_info": {"general.architecture": "stub", "stub.context_length": 32768},
    "capabilities": ["completion", "vision"],
    "template": "",
    "parameters": "",
}
_FAULT_TEXT = {"empty": "", "garbage": "\u2591\u2592 %$#@!! qwzx", "off_schema": '{"move": "forward"}'}


class _Handler(BaseHTTPRequestHandler):
    """Answer one request to a StubServer (`stub`): record it, maybe inject a fault, else reply."""

    stub: StubServer
    lock: threading.Lock

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        stub = self.stub
        length = int(self.headers.get("Content-Length", 0))
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            body = {}
        stub.requests.append(Received(self.path, body, {k.lower(): v for k, v in self.headers.items()}))
        if stub.kind == "ollama" and self.path.rstrip("/").endswith("/api/show"):
            self._send(200, _OLLAMA_SHOW)
            return
        if not self.path.split("?")[0].rstrip("/").endswith(ROUTES[stub.kind]):
            self._send(404, {"error": f"no route {self.path}"})
            return
        with self.lock:
            fault = stub._fault()
            stub.faults.append(fault)
        if fault is not None:
            self._inject(fault, body)
            return
        answer = stub.reply(body)
        status, text = answer if isinstance(answer, tuple) else (200, answer)
        if status != 200:
            self._send(status, {"error": {"message": text, "type": "stub_error"}})
        else:
            self._send(200, stub._payload(body, text))

    def _inject(self, fault: str, body: Body) -> None:
        """Answer with the fault instead of a reply."""
        if fault == "server_error":
            self._send(500, {"error": {"message": "injected server error", "type": "server_error"}})
        elif fault == "rate_limit":
            self._send(429, {"error": {"message": "injected rate limit", "type": "rate_limit"}})
        elif fault == "timeout":
            time.sleep(self.stub.stall)  # nothing is sent; the client gave up long ago
        elif fault == "disconnect":
            self.close_connection = True
            self.connection.shutdown(2)
        elif fault == "malformed_json":
            self._send_raw(200, b'{"id": "x", "choices": [{"message": {"content": "ACTI')
        else:  # empty, garbage, off_schema: a well-formed reply with unusable text
            self._send(200, self.stub._payload(body, _FAULT_TEXT[fault]))

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        self._send_raw(status, json.dumps(payload).encode())

    def _send_raw(self, status: int, raw: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)
