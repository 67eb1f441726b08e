"""Loading a recipe: its YAML, the command line's overrides, validation with errors that name the key."""

from __future__ import annotations

import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from doomagent.errors import ConfigError, did_you_mean
from doomagent.recipes.files import check_recipe_files, find_recipe, read_text
from doomagent.recipes.model import ROLE_NAMES, Recipe


def _field_names(loc: Sequence[str | int]) -> list[str]:
    """Return the keys a recipe allows at `loc` (a validation error's location, its last part dropped)."""
    model: type[BaseModel] | None = Recipe
    for part in loc:
        field = model.model_fields.get(str(part)) if model is not None else None
        if field is None:
            return []
        nested = [a for a in (field.annotation, *typing.get_args(field.annotation)) if isinstance(a, type)]
        model = next((a for a in nested if issubclass(a, BaseModel)), None)
    if model is None:
        return []
    names = list(model.model_fields)
    return [*names, *ROLE_NAMES] if model is Recipe else names


def _problem(error: Any) -> str:
    loc = tuple(error["loc"])
    where = ".".join(map(str, loc)) or "recipe"
    hint = did_you_mean(str(loc[-1]), _field_names(loc[:-1])) if error["type"] == "extra_forbidden" and loc else ""
    return f"{where}: {error['msg']}{hint}"


def set_path(data: dict[str, Any], dotted: str, value: Any) -> None:
    """Set `a.b.c` in nested dicts, creating levels as needed."""
    keys = dotted.split(".")
    node = data
    for key in keys[:-1]:
        nxt = node.get(key)
        if nxt is None:
            nxt = node[key] = {}
        if not isinstance(nxt, dict):
            raise ConfigError(f"--set {dotted}: {key!r} is not a section", hint="check the recipe's layout")
        node = nxt
    node[keys[-1]] = value


def load_recipe(
    name: str | Path,
    *,
    overrides: Sequence[str] = (),
    model: str | None = None,
    vision_model: str | None = None,
    max_frames: int | None = None,
    allow_outside_files: bool = False,
) -> tuple[Recipe, Path]:
    """Load and validate a recipe with CLI overrides applied; return it and its folder.

    Files the recipe names (walkthrough, prompts_dir, room profile) must lie in its folder or ship with
    doomagent, unless `allow_outside_files` (the CLI's --allow-outside-files) says the recipe is trusted.
    """
    path = find_recipe(name)
    try:
        data = yaml.safe_load(read_text(path, "recipe"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"recipe {path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"recipe {path} must be a mapping of keys to values")
    roles = data.get("roles") or {}
    if not isinstance(roles, dict):
        raise ConfigError(f"recipe {path}: roles must be a mapping")
    if model:
        for role, settings in roles.items():
            if role != "vision" and isinstance(settings, dict):
                settings["model"] = model  # every text role, custom ones included
    if vision_model and isinstance(roles.get("vision"), dict):
        roles["vision"]["model"] = vision_model
    if max_frames is not None:
        set_path(data, "env.max_frames", max_frames)
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set {item!r} is not KEY=VALUE", hint="e.g. --set agent.temperature=0.5")
        key = key.strip()
        if key.split(".")[0] in (*ROLE_NAMES, *roles):
            key = f"roles.{key}"
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            problem = str(exc).splitlines()[0]
            raise ConfigError(
                f"--set {item!r}: the value is not valid YAML ({problem})",
                hint="quote it: --set 'agent.extra={top_p: 0.5}' or --set agent.model=gpt-4o",
            ) from None
        set_path(data, key, value)
    try:
        recipe = Recipe.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(_problem(e) for e in exc.errors())
        raise ConfigError(
            f"recipe {path.name} is invalid: {problems}",
            hint="see `doomagent recipes show plan` for a complete example",
        ) from None
    check_recipe_files(recipe, path.parent.resolve(), allow_outside=allow_outside_files)
    return recipe, path.parent
