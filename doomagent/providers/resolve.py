"""One resolver from a model name (or a role's settings) to a Model: test doubles, embedded local models
served by llama.cpp, and every LiteLLM provider."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from doomagent.errors import ConfigError, ModelServerError, ProviderError
from doomagent.providers.base import Model, ModelRequest, ModelResponse
from doomagent.providers.settings import RoleSettings


@dataclass
class ServedLocalModel:
    """A `local/<name>` model: its llama.cpp server starts on `start()` (or the first call), shared by every
    role naming the same model in `servers`; LiteLLM then reaches it as `openai/<name>`."""

    settings: RoleSettings
    spec: str  # name[:weights]
    servers: dict[str, Any] = field(default_factory=dict)  # spec -> LocalServer, shared within a trial
    _inner: Model | None = None

    @property
    def name(self) -> str:
        """Return the name LiteLLM calls it by once served (`openai/<name>`), else the recipe's string."""
        return self._inner.name if self._inner is not None else self.settings.model

    def start(self) -> None:
        """Start (or join) the server and point a LiteLLM model at it."""
        from doomagent.providers.litellm_model import LiteLLMModel
        from doomagent.providers.local import server_for

        if self._inner is not None:
            return
        server = self.servers.get(self.spec)
        if server is None:
            server = self.servers[self.spec] = server_for(self.spec)
        if server.process is None:
            server.start()
        served = self.settings.model_copy(update={"model": f"openai/{server.alias}", "api_base": server.api_base})
        self._inner = LiteLLMModel(served)

    def complete(self, request: ModelRequest) -> ModelResponse:
        """Answer through the local server; raise ModelServerError once the server has exited."""
        self.start()
        assert self._inner is not None
        self._check_server()
        try:
            return self._inner.complete(request)
        except ProviderError:
            self._check_server()  # a refused connection because the server died: say that, not the refusal
            raise

    def _check_server(self) -> None:
        server = self.servers.get(self.spec)
        ended = server.exit_status() if server is not None else None
        if server is not None and ended is not None:
            tail = " | ".join(line for line in server.log_tail(1200).splitlines()[-6:] if line.strip())
            raise ModelServerError(
                f"the llama.cpp server of local/{self.spec} stopped ({ended}); its last log lines: {tail}",
                hint="`doomagent doctor` checks that each local model loads and answers on this machine; "
                "`doomagent eval` plays such a trial once more",
            )

    def close(self) -> None:
        """Stop the server (every role sharing it stops with it)."""
        server = self.servers.pop(self.spec, None)
        if server is not None:
            server.stop()
        self._inner = None


def resolve_model(spec: str | RoleSettings, *, servers: dict[str, Any] | None = None) -> Model:
    """Return the Model a name or a role's settings stand for.

    - `test` or `test:<seed>`: the seeded test model (`extra: {latency: s}` adds a fixed delay per call;
      with `sleep: false` the latency is reported but not waited, for the real-time protocol's tests;
      `cost: usd` prices each call, to try budgets);
    - `local/<name>[:<weights>]`: an embedded model served by llama.cpp on 127.0.0.1 (started on first use;
      roles sharing a `servers` dict share the server);
    - anything else: a LiteLLM model string (`gpt-4o`, `anthropic/...`, `ollama_chat/llava`,
      `openai/<name>` with `api_base`); a missing API key is a MissingApiKeyError now, not at the first call.
    """
    from doomagent.providers.local import check_local, is_local
    from doomagent.providers.testing import SeededTestModel

    settings = RoleSettings(model=spec) if isinstance(spec, str) else spec
    name = settings.model
    if name == "test" or name.startswith("test:"):
        raw = name.partition(":")[2] or "0"
        if not raw.isdigit():
            raise ConfigError(f"model {name!r}: the test model's seed must be a whole number", hint="e.g. test:3")
        latency = float(settings.extra.get("latency", 0.0))  # seconds per call, for benchmarks
        sleep = bool(settings.extra.get("sleep", True))  # False: report the latency without waiting it
        cost = settings.extra.get("cost")  # US dollars per call, to try budgets
        cost_each = None if cost is None else float(cost)
        # Nobody reads a recipe-built model's requests: keeping them would keep every screen of the trial.
        return SeededTestModel(int(raw), latency=latency, sleep=sleep, cost=cost_each, keep_calls=0)
    if is_local(name):
        local = name.split("/", 1)[1]
        check_local(local)
        return ServedLocalModel(settings, local, servers if servers is not None else {})
    from doomagent.providers.litellm_model import LiteLLMModel

    return LiteLLMModel(settings)
