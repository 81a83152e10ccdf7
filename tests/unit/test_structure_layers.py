"""The layer rule of the stages' code (issue 51), read from the source with ``ast``:

algorithm and kernel modules — every module of a stage (``services/<stage>/``, its subpackages
included) but its service modules, and every module of the shared ground below the stages
(``services/html``, ``services/lexical``) — import no store, configuration, metrics,
delivery, Celery, FastAPI, Redis or SQLAlchemy. They compute on what they are given; the
service modules (``handler.py``, ``tasks.py``, ``cli*.py``, ``repository.py`` at a stage's
top) read settings and the store and pass values in. Imports inside functions and under
``TYPE_CHECKING`` count: a hidden dependency is still one.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGES = ("page_match", "tree_align", "sentence_align", "paraphrase", "thesaurus")
GROUND = ("html", "lexical")
# A stage's service code: messages in, store writes, messages out, commands.
SERVICE_MODULES = ("handler", "tasks", "repository")
FORBIDDEN = (
    "shared.store",
    "shared.config",
    "shared.metrics",
    "shared.delivery",
    "celery",
    "fastapi",
    "redis",
    "sqlalchemy",
    "kombu",
)


def is_service_module(module: str) -> bool:
    """A stage's top-level service module (``services.<stage>.handler``, ``….cli_x``)."""
    parts = module.split(".")
    if len(parts) != 3 or parts[0] != "services" or parts[1] not in STAGES:
        return False
    return parts[2] in SERVICE_MODULES or parts[2] == "cli" or parts[2].startswith("cli_")


def is_algorithm_module(module: str) -> bool:
    """A module the layer rule holds: of a stage (not its service code) or of the ground."""
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "services" or parts[1] not in STAGES + GROUND:
        return False
    return not is_service_module(module)


def _imported_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def forbidden_imports(module: str, source: str) -> list[str]:
    """What an algorithm module imports of the forbidden layers (empty for other modules)."""
    if not is_algorithm_module(module):
        return []
    found = {
        name
        for name in _imported_names(ast.parse(source))
        for layer in FORBIDDEN
        if name == layer or name.startswith(f"{layer}.")
    }
    # ``from shared import config`` names the module as shared.config too.
    return sorted(found)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_algorithm_and_kernel_modules_import_no_service_layer() -> None:
    violations = {
        _module_name(path): found
        for path in sorted((ROOT / "services").rglob("*.py"))
        if (found := forbidden_imports(_module_name(path), path.read_text(encoding="utf-8")))
    }
    assert violations == {}


def test_the_rule_sees_algorithm_modules_of_every_stage_and_the_ground() -> None:
    modules = {_module_name(path) for path in (ROOT / "services").rglob("*.py")}
    algorithm = {m for m in modules if is_algorithm_module(m)}
    for package in STAGES + GROUND:
        assert any(m.startswith(f"services.{package}.") for m in algorithm), package
    # each stage's handler is service code
    assert not any(m.endswith(".handler") for m in algorithm)


def test_forbidden_imports_finds_planted_violations() -> None:
    planted = (
        "from shared.store import Store\n"
        "from shared import metrics\n"
        "def f():\n"
        "    import celery\n"
        "    from sqlalchemy.orm import Session\n"
        "from shared.text import words\n"
    )
    assert forbidden_imports("services.tree_align.dp.scan", planted) == [
        "celery",
        "shared.metrics",
        "shared.store",
        "shared.store.Store",
        "sqlalchemy.orm",
        "sqlalchemy.orm.Session",
    ]
    # the same lines in service code, the wiring or shared are not this rule's business
    for module in ("services.tree_align.handler", "services.page_match.cli", "services.cli.x"):
        assert forbidden_imports(module, planted) == []
    assert forbidden_imports("services.sentence_align.cli_comparable", planted) == []
    assert forbidden_imports("services.html.parse", "import fastapi\n") == ["fastapi"]
