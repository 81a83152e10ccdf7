"""The lexical model's modules and their users form no import cycle (imports inside functions
and under TYPE_CHECKING count) and reach no private name of another module (issue 38, step 1)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# The modules of the Model 1 split: the shared package and the modules that use it.
CHECKED = (
    "services.lexical.model1",
    "services.lexical.dictionary",
    "services.lexical.registry",
    "services.sentence_align.cli",
    "services.sentence_align.lexicon",
    "services.sentence_align.bead_llr",
    "services.sentence_align._two_pass",
    "services.sentence_align._batched",
    "services.tree_align.lexical",
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, ast.Module]:
    return {
        _module_name(path): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted((ROOT / "services").rglob("*.py"))
    }


def _imports(tree: ast.Module, known: set[str]) -> set[str]:
    """Modules of ``known`` that ``tree`` imports anywhere (``from pkg import module`` too)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module in known:
                found.add(node.module)
            found |= {
                f"{node.module}.{alias.name}"
                for alias in node.names
                if f"{node.module}.{alias.name}" in known
            }
    return found


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    stack = list(graph[start])
    while stack:
        module = stack.pop()
        if module not in seen:
            seen.add(module)
            stack.extend(graph.get(module, ()))
    return seen


def test_checked_modules_exist() -> None:
    assert set(CHECKED) <= set(_modules())


@pytest.mark.parametrize("module", CHECKED)
def test_no_import_cycle_through(module: str) -> None:
    modules = _modules()
    graph = {name: _imports(tree, set(modules)) - {name} for name, tree in modules.items()}
    assert module not in _reachable(graph, module)


@pytest.mark.parametrize("module", CHECKED)
def test_no_private_name_of_another_module(module: str) -> None:
    modules = _modules()
    tree = modules[module]
    aliases: dict[str, str] = {}  # local name -> imported module
    reached: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in modules:
                    aliases[alias.asname or alias.name] = full
                elif alias.name.startswith("_"):
                    reached.append(full)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            reached.append(f"{aliases[node.value.id]}.{node.attr}")
    assert reached == []
