"""Recipes: typed YAML naming a model per role, the prompt strategy, and the environment.

`model` holds the types (Recipe and its roles), `files` finds recipes and reads the files they name
(walkthroughs, prompts, room profiles), `loading` reads a recipe with the command line's overrides.
"""

from doomagent.errors import did_you_mean
from doomagent.recipes.files import (
    PROFILES,
    REPO_RECIPES,
    SHIPPED_RECIPES,
    WALKTHROUGHS,
    auto_walkthrough,
    check_recipe_files,
    find_recipe,
    read_text,
    shipped_recipes,
    shipped_walkthrough,
)
from doomagent.recipes.loading import load_recipe, set_path
from doomagent.recipes.model import (
    ROLE_NAMES,
    AgentRole,
    Budget,
    ExpertsRole,
    PlannerRole,
    Recipe,
    Roles,
    Strategy,
    VisionRole,
)

__all__ = [
    "PROFILES",
    "REPO_RECIPES",
    "ROLE_NAMES",
    "SHIPPED_RECIPES",
    "WALKTHROUGHS",
    "AgentRole",
    "Budget",
    "ExpertsRole",
    "PlannerRole",
    "Recipe",
    "Roles",
    "Strategy",
    "VisionRole",
    "auto_walkthrough",
    "check_recipe_files",
    "did_you_mean",
    "find_recipe",
    "load_recipe",
    "read_text",
    "set_path",
    "shipped_recipes",
    "shipped_walkthrough",
]
