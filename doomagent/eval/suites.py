"""Suites: named sets of maps of one WAD to evaluate on (`doomagent eval RECIPE --suite freedoom1-e1`).

A suite file is YAML: `name`, `description`, `wad` (a shipped IWAD name or a path, relative to the file) and
`maps` (`E1M1-E1M9`, `MAP01,MAP05`: what `--maps` takes). The shipped ones live in the repository's suites/
folder and install as the package doomagent._suites.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from doomagent.errors import ConfigError

SHIPPED_SUITES = Path(str(resources.files("doomagent._suites")))


class Suite(BaseModel):
    """A named set of maps of one WAD."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    wad: str = Field("freedoom1.wad", description="a shipped IWAD (freedoom1.wad, freedoom2.wad) or a path")
    maps: str = Field(description="the maps, as --maps takes them: E1M1-E1M9, MAP01,MAP05")

    def wad_path(self, base: Path | None) -> Path:
        """Return the WAD as a path: a shipped name as is (the engine finds it), else relative to `base`."""
        path = Path(self.wad).expanduser()
        if path.name in ("freedoom1.wad", "freedoom2.wad") and path.parent == Path():
            return path
        return path if path.is_absolute() or base is None else base / path


def shipped_suites() -> list[Path]:
    """Return the shipped suite files, by name."""
    return sorted(SHIPPED_SUITES.glob("*.yaml"))


def load_suite(name_or_path: str) -> tuple[Suite, Path | None]:
    """Return a suite by shipped name or YAML path, with the folder its relative WAD path starts from."""
    import yaml

    from doomagent.recipes import did_you_mean

    path = Path(name_or_path).expanduser()
    folder: Path | None = path.parent
    if not path.is_file():
        names = [p.stem for p in shipped_suites()]
        if name_or_path not in names:
            raise ConfigError(
                f"suite {name_or_path!r} is neither a shipped suite nor a file{did_you_mean(name_or_path, names)}",
                hint=f"shipped: {', '.join(names)}; or give a YAML file with name, wad and maps",
            )
        path, folder = SHIPPED_SUITES / f"{name_or_path}.yaml", None
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return Suite.model_validate(data), folder
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read suite {path}: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'suite'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"suite {path} is not valid: {problems}", hint="a suite has name, wad and maps") from None
