"""Register `doomagent/Doom-v0` with Gymnasium without importing Gymnasium: `import doomagent` stays light
(Gymnasium 1.x no longer loads plugin entry points, so the registration must come from doomagent).

When Gymnasium is already imported, the id is registered at once; otherwise a finder on sys.meta_path
waits for Gymnasium's first import and registers the id as soon as that import finishes.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

ENV_ID = "doomagent/Doom-v0"
ENTRY_POINT = "doomagent.env.gym_env:DoomGymEnv"  # a string: registering imports nothing of doomagent's


def register_env() -> None:
    """Register `doomagent/Doom-v0` with Gymnasium (a string entry point: nothing of doomagent is imported)."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point=ENTRY_POINT)


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        register_env()


class _RegisterWhenImported(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _RegisterWhenImported)]
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader)
        return spec


def install() -> None:
    """Register now if Gymnasium is loaded, else as soon as it is."""
    if "gymnasium" in sys.modules:
        register_env()
    elif not any(isinstance(f, _RegisterWhenImported) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterWhenImported())
