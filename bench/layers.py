"""Print doomagent's import graph by package: cycles, the layer order, and modules and functions over size.

Imports are read from the source (ast), top-level and function-level alike, so a lazy import counts as an
edge too; `if TYPE_CHECKING:` imports are left out (they never run). A package is `doomagent.<first part>`
(`doomagent.env`, `doomagent.cli`, ...), a top-level module counts as a package of its own.

    python bench/layers.py [--max-lines 400] [--max-function 60]
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent / "doomagent"


def _unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                lines.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
    return lines


def _imports(path: Path, tree: ast.Module) -> set[str]:
    skip = _type_checking_lines(tree)
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", 0) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("doomagent"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target.startswith("doomagent"):
                found.add(target)
                # `from doomagent import nodes` imports the submodule doomagent.nodes
                found.update(
                    f"{target}.{a.name}"
                    for a in node.names
                    if (ROOT.parent / target.replace(".", "/") / a.name).exists()
                    or (ROOT.parent / target.replace(".", "/") / f"{a.name}.py").exists()
                )
    return found


def _package_init_cycle(cycle: list[str]) -> bool:
    """Return True for a package importing its own submodule that names the package (not a real cycle)."""
    return len(cycle) == 2 and (cycle[0].startswith(cycle[1] + ".") or cycle[1].startswith(cycle[0] + "."))


def main() -> None:
    """Print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-lines", type=int, default=400)
    parser.add_argument("--max-function", type=int, default=60)
    args = parser.parse_args()
    graph: nx.DiGraph[str] = nx.DiGraph()  # packages
    modules: nx.DiGraph[str] = nx.DiGraph()
    big_modules: list[tuple[int, str]] = []
    big_functions: list[tuple[int, str]] = []
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        name = _module_name(path)
        unit = _unit(name)
        graph.add_node(unit)
        modules.add_node(name)
        for target in _imports(path, tree):
            if target != name and target != "doomagent":
                modules.add_edge(name, target)
            other = _unit(target)
            if other != unit and other != "doomagent":
                graph.add_edge(unit, other)
        lines = text.count("\n")
        if lines > args.max_lines:
            big_modules.append((lines, str(path.relative_to(ROOT.parent))))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > args.max_function:
                    big_functions.append((length, f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name}"))
    cycles = sorted(sorted(c) for c in nx.simple_cycles(graph))
    print(f"packages: {graph.number_of_nodes()}, import edges between them: {graph.number_of_edges()}")
    print(f"cycles: {len(cycles)}")
    for cycle in cycles[:20]:
        print("  " + " -> ".join(cycle))
    if not cycles:
        order = list(reversed(list(nx.topological_sort(graph))))
        print("layer order (bottom first): " + ", ".join(o.removeprefix("doomagent.") for o in order))
    module_cycles = sorted(sorted(c) for c in nx.simple_cycles(modules) if not _package_init_cycle(c))
    print(f"module-level cycles (inside packages): {len(module_cycles)}")
    for cycle in module_cycles[:20]:
        print("  " + " -> ".join(m.removeprefix("doomagent.") for m in cycle))
    print(f"modules over {args.max_lines} lines: {len(big_modules)}")
    for lines, where in sorted(big_modules, reverse=True):
        print(f"  {lines:5d}  {where}")
    print(f"functions over {args.max_function} lines: {len(big_functions)}")
    for length, where in sorted(big_functions, reverse=True):
        print(f"  {length:5d}  {where}")


if __name__ == "__main__":
    main()
