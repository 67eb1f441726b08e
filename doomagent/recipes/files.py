"""Where recipes and the files they name are found, and how those files are read and checked."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from doomagent.errors import ConfigError, NoPlanError, did_you_mean

if TYPE_CHECKING:
    from doomagent.recipes.model import Recipe

SHIPPED_RECIPES = Path(str(resources.files("doomagent._recipes")))  # recipes/ in a clone, package data in a wheel
REPO_RECIPES = SHIPPED_RECIPES
WALKTHROUGHS = Path(__file__).parent.parent / "walkthroughs"
PROFILES = Path(__file__).parent.parent / "env" / "profiles"


def read_text(path: Path, what: str) -> str:
    """Return a UTF-8 text file's contents; a typed error for a file that is not UTF-8 or cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{what} {path} is not UTF-8 text (byte {exc.start} is {exc.object[exc.start : exc.start + 1]!r})",
            hint="save it as UTF-8",
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def auto_walkthrough(map_name: str, wad: Path | None) -> str:
    """Return the walkthrough for a map: the shipped hand-written one when there is one, else one written from
    the map's progression plan (NoPlanError when the map has none)."""
    from doomagent.env.geometry import MapGeometry
    from doomagent.env.progression import plan_for
    from doomagent.env.rooms import build_rooms
    from doomagent.env.walkthrough import write_walkthrough

    stem = Path(wad).stem.lower() if wad is not None else "freedoom1"
    shipped = shipped_walkthrough(f"{stem}_{map_name.upper()}")
    if shipped is not None:
        return read_text(shipped, "walkthrough").strip()
    geometry = MapGeometry.load(map_name, wad)
    try:
        plan = plan_for(geometry)
    except NoPlanError as exc:
        raise NoPlanError(
            f"no walkthrough can be written for {geometry.wad_path.name} {geometry.name}: {exc.message}",
            hint="give a walkthrough file (walkthrough: my_map.md), or play the naive strategy, which needs none",
        ) from None
    return write_walkthrough(plan, build_rooms(geometry)).strip()


def shipped_walkthrough(name: str) -> Path | None:
    """Return the shipped walkthrough called `name` (e.g. freedoom1_E1M1), or None."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name) or name.startswith("."):
        return None
    path = WALKTHROUGHS / f"{name}.md"
    return path if path.is_file() else None


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def check_recipe_files(recipe: Recipe, folder: Path, *, allow_outside: bool = False) -> None:
    """Raise ConfigError when a file the recipe names (walkthrough, prompts_dir, room profile) lies outside
    the recipe's folder and is not a shipped one: opening a shared recipe must be as safe as opening YAML."""
    from doomagent.prompts import PROMPT_DIR

    if allow_outside:
        return
    named: list[tuple[str, Path, tuple[Path, ...]]] = []
    if (
        recipe.walkthrough is not None
        and not recipe.walkthrough_auto
        and shipped_walkthrough(recipe.walkthrough) is None
    ):
        named.append(("walkthrough", Path(recipe.walkthrough).expanduser(), ()))
    if recipe.prompts_dir is not None:
        named.append(("prompts_dir", Path(recipe.prompts_dir).expanduser(), (PROMPT_DIR,)))
    if recipe.env.room_profile is not None:
        named.append(("env.room_profile", Path(recipe.env.room_profile).expanduser(), (PROFILES,)))
    for field, path, shipped in named:
        full = path if path.is_absolute() else folder / path
        if not _inside(full, folder) and not any(_inside(full, s) for s in shipped):
            raise ConfigError(
                f"the recipe's {field} ({path}) lies outside the recipe's folder {folder}",
                hint="move the file next to the recipe, or pass --allow-outside-files if you trust this recipe",
            )


def find_recipe(name: str | Path) -> Path:
    """Return the file of a recipe given as a path or as a shipped name (plan, k-levels, ...)."""
    path = Path(name).expanduser()
    if path.is_file():
        return path
    for folder in (Path.cwd() / "recipes", SHIPPED_RECIPES):
        candidate = folder / f"{name}.yaml"
        if candidate.is_file():
            return candidate
    shipped = [p.stem for p in shipped_recipes()]
    raise ConfigError(
        f"recipe {str(name)!r} not found{did_you_mean(str(name), shipped)}",
        hint=f"give a YAML path or a shipped name: {', '.join(shipped) or 'none found'}",
    )


def shipped_recipes() -> list[Path]:
    """Return the recipe files that ship with doomagent, by name."""
    return sorted(SHIPPED_RECIPES.glob("*.yaml")) if SHIPPED_RECIPES.is_dir() else []
