"""llama-cpp-python's OpenAI-compatible server, with llama.cpp's weight repacking as doomagent asks.

    python -m doomagent.providers._llama_server --repack off|on <llama_cpp.server options>

llama.cpp repacks weights at load into "extra" CPU buffer types (AMX tiles, interleaved layouts). On CPUs with
AMX the AMX path crashes on the first completion (a general protection fault in libggml-cpu; upstream issue
20824, unreleased fix), so the embedded models run with repacking off unless asked: the model parameters'
`use_extra_bufts` is set to False before the model loads. `Llama()` has no argument for it, hence this wrapper.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> None:
    """Start the server with `argv` (its own options after `--repack off|on`)."""
    repack = "off"
    if len(argv) >= 2 and argv[0] == "--repack":
        repack, argv = argv[1], argv[2:]
    if repack not in ("off", "on"):
        raise SystemExit(f"--repack must be off or on, not {repack!r}")
    if repack == "off":
        import llama_cpp.llama_cpp as low

        default_params = low.llama_model_default_params

        def no_repacking() -> object:
            params = default_params()
            params.use_extra_bufts = False
            return params

        low.llama_model_default_params = no_repacking  # read at every model load by llama_cpp.Llama
    from llama_cpp.server.__main__ import main as serve

    sys.argv = ["llama_cpp.server", *argv]
    serve()


if __name__ == "__main__":
    main(sys.argv[1:])
