"""Suites: named sets of maps of one WAD to evaluate on (`doomagent eval RECIPE --suite freedoom1-e1`).

A suite file is YAML: `name`, `description`, `wad` (a shipped IWAD name or a path, relative to the file) and
`maps` (`E1M1-E1M9`, `MAP01,MAP05`: what `--maps` takes). The shipped ones live in the repository's suites/
folder and install as the package doomagent._suites.
"""

from __future__ import annotations

import dataclasses
import html
import json
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from doomagent.errors import ConfigError

if TYPE_CHECKING:
    from doomagent.eval.report import Row

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


def write_suite(suite: dict[str, list[Row]], out: Path) -> None:
    """Write the suite table (maps x rows: progress, finishes, deaths) as suite.md, suite.html and suite.json."""
    from doomagent.eval.tables import STYLE, html_table, suite_markdown

    out.mkdir(parents=True, exist_ok=True)
    md = suite_markdown(suite)
    links = "".join(f'<li><a href="{key}/report.html">{html.escape(key)}</a></li>' for key in suite)
    note = (
        "Each cell: mean progress (share of the progression route walked, objectives in order), finishes, deaths "
        "over the row's trials."
    )
    (out / "suite.md").write_text(f"# Suite: {len(suite)} maps\n\n{note}\n\n{md}\n", encoding="utf-8")
    (out / "suite.html").write_text(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>doomagent suite</title>{STYLE}'
        f"</head><body><h1>Suite: {len(suite)} maps</h1><p>{note}</p>{html_table(md)}<h2>Maps</h2><ul>{links}</ul>"
        "</body></html>\n",
        encoding="utf-8",
    )
    data = {
        key: [{"label": r.label, "summary": dataclasses.asdict(r.summary) if r.summary else None} for r in rows]
        for key, rows in suite.items()
    }
    (out / "suite.json").write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
