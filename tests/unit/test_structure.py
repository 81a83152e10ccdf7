"""The product code's structure (issue 38), read from the source with ``ast`` (nothing imported):

- no import cycle among the modules of ``services/`` and ``shared/``; imports inside functions
  and under ``TYPE_CHECKING`` count, as they only hide a cycle;
- no module reaches another module's private name (``from x import _y``, ``x._y``); a private
  module (``_dp.py``) is imported only by the modules of its own package;
- no product module is over 600 lines;
- no stage imports another stage (``STAGES``): shared ground (``services.html``,
  ``services.lexical``, ``shared``) sits below the stages, and only the wiring above them
  (``services.cli``, ``services.gateway``, ``services.wiring``, ``services.export``) may
  import several;
- ``shared`` imports nothing from ``services`` (it is the ground the services stand on);
- the benchmarks (``benchmarks/``) keep the same two rules: no module over 600 lines, no
  private name of a product module or of another benchmark module;
- every repository path that ``docs/README.md``'s module map names exists;
- at most five comment or docstring lines of product code quote a tuning result (a metric
  beside a measured figure): those records belong in ``benchmarks/results/``.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("services", "shared")
BENCHMARKS = ("benchmarks",)
MAX_LINES = 600

# Modules exempt from the rules: none (services.cli and shared.store were, until they became
# packages); an entry here needs a reason beside it.
ALLOWED: frozenset[str] = frozenset()
STAGES = ("page_match", "tree_align", "sentence_align", "paraphrase", "thesaurus")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _sources(packages: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    return {
        _module_name(path): path.read_text(encoding="utf-8")
        for package in packages
        for path in sorted((ROOT / package).rglob("*.py"))
    }


@cache
def _trees(packages: tuple[str, ...] = PACKAGES) -> dict[str, ast.Module]:
    return {name: ast.parse(source) for name, source in _sources(packages).items()}


def _is_package(module: str) -> bool:
    return (ROOT / module.replace(".", "/") / "__init__.py").exists()


def _absolute(module: str, node: ast.ImportFrom) -> str:
    """The module that ``from ... import`` names, relative imports resolved."""
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    base = parts if _is_package(module) else parts[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imported_modules(module: str, tree: ast.Module, known: set[str]) -> set[str]:
    """Modules of ``known`` that ``tree`` imports anywhere (``from pkg import module`` too)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            if source in known:
                found.add(source)
            found |= {f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in known}
    return found - {module}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _package_of(module: str) -> str:
    return module if _is_package(module) else module.rpartition(".")[0]


def private_reaches(module: str, tree: ast.Module, known: set[str]) -> list[str]:
    """Private names of other modules that ``tree`` imports or reads as ``module._name``, and
    private modules of other packages that it imports."""
    aliases: dict[str, str] = {}  # local name -> imported module
    reached: list[str] = []

    def check_module(target: str) -> None:
        parts = target.split(".")
        for depth, part in enumerate(parts):
            if _private(part) and _package_of(module) != ".".join(parts[:depth]):
                reached.append(target)
                return

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            check_module(source)
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if full in known:
                    check_module(full)
                    aliases[alias.asname or alias.name] = full
                elif _private(alias.name):
                    reached.append(full)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                check_module(alias.name)
                aliases[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = ast.unparse(node.value)
            target = aliases.get(owner, owner if owner in known else None)
            if target is not None and target != module:
                reached.append(f"{target}.{node.attr}")
    return sorted(set(reached))


def test_no_import_cycle() -> None:
    trees = _trees()
    known = set(trees)
    graph = {name: imported_modules(name, tree, known) for name, tree in trees.items()}
    cycles = [c for c in import_cycles(graph) if not set(c) <= ALLOWED]
    assert cycles == []


def test_no_private_name_of_another_module() -> None:
    trees = _trees()
    known = set(trees)
    reached = {
        name: found
        for name, tree in trees.items()
        if name not in ALLOWED and (found := private_reaches(name, tree, known))
    }
    assert reached == {}


def stage_of(module: str) -> str | None:
    """The stage ``module`` belongs to (``services.<stage>...``), or None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "services" and parts[1] in STAGES else None


def stage_reaches(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Modules of one stage that import a module of another stage."""
    found: dict[str, list[str]] = {}
    for module, imported in graph.items():
        own = stage_of(module)
        other = sorted(m for m in imported if own and stage_of(m) not in (None, own))
        if own and other:
            found[module] = other
    return found


def test_no_stage_imports_another_stage() -> None:
    trees = _trees()
    known = set(trees)
    graph = {name: imported_modules(name, tree, known) for name, tree in trees.items()}
    assert stage_reaches(graph) == {}


def test_stage_reaches_finds_a_planted_violation() -> None:
    graph = {
        "services.page_match.features": {"services.tree_align.align", "services.html.parse"},
        "services.tree_align.align": {"services.tree_align.decoder", "shared.text"},
        "services.cli.pages": {"services.tree_align.align", "services.page_match.cli"},
    }
    assert stage_reaches(graph) == {"services.page_match.features": ["services.tree_align.align"]}


def test_no_product_module_over_600_lines() -> None:
    lengths = {name: source.count("\n") for name, source in _sources().items()}
    assert {n: k for n, k in lengths.items() if k > MAX_LINES and n not in ALLOWED} == {}


def test_no_benchmark_module_over_600_lines() -> None:
    lengths = {name: source.count("\n") for name, source in _sources(BENCHMARKS).items()}
    assert {n: k for n, k in lengths.items() if k > MAX_LINES} == {}


def test_no_benchmark_reaches_a_private_name() -> None:
    """A benchmark measures the product through its public names (a benchmark-only variant
    that swaps a private table is not the product) and shares helpers by public names."""
    trees = _trees((*PACKAGES, *BENCHMARKS))
    known = set(trees)
    benchmarks = _trees(BENCHMARKS)
    reached = {
        name: found
        for name, tree in benchmarks.items()
        if (found := private_reaches(name, tree, known))
    }
    assert reached == {}


def test_allowed_modules_exist() -> None:
    """A stale exception is removed, not kept (a module renamed away needs no allowance)."""
    assert set(ALLOWED) <= set(_sources())


# The checks themselves, on small graphs and sources whose answers are known by construction.


def test_import_cycles_finds_a_cycle_and_only_it() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]
    graph["c"] = set()
    assert import_cycles(graph) == []


def test_imported_modules_counts_imports_inside_functions() -> None:
    tree = ast.parse("def f():\n    from p import m\n    import q\n")
    assert imported_modules("x", tree, {"p.m", "q", "r"}) == {"p.m", "q"}


def test_private_reaches_flags_private_names_across_modules() -> None:
    source = "from p.m import _hidden, shown\nimport p.m as pm\npm._other\n"
    source += "from p import m\nm._third\n"
    found = private_reaches("x", ast.parse(source), {"p.m", "p"})
    assert found == ["p.m._hidden", "p.m._other", "p.m._third"]
    assert private_reaches("x", ast.parse("from p.m import shown\nimport p.m\n"), {"p.m"}) == []


def shared_reaches(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """The ``shared`` modules that import a ``services`` module, and those imports."""
    return {
        module: sorted(m for m in imported if m == "services" or m.startswith("services."))
        for module, imported in graph.items()
        if module.split(".")[0] == "shared"
        and any(m == "services" or m.startswith("services.") for m in imported)
    }


def test_shared_imports_nothing_from_services() -> None:
    trees = _trees()
    known = set(trees)
    graph = {name: imported_modules(name, tree, known) for name, tree in trees.items()}
    assert shared_reaches(graph) == {}


def test_shared_reaches_finds_a_planted_violation() -> None:
    graph = {
        "shared.delivery.pipeline": {"services.wiring.registry", "shared.config"},
        "shared.config": set(),
        "services.cli.common": {"shared.config", "services.wiring.registry"},
    }
    assert shared_reaches(graph) == {"shared.delivery.pipeline": ["services.wiring.registry"]}


def mapped_paths(text: str) -> set[str]:
    """The repository paths a document names in backticks (``services/...``, ``shared/...``,
    ``benchmarks/...``, ``tests/...``, ``docs/...``; a trailing ``/`` names a folder)."""
    import re

    roots = "services|shared|benchmarks|tests|docs"
    return set(re.findall(rf"`((?:{roots})/[\w./-]*)`", text))


def missing_paths(text: str) -> list[str]:
    return sorted(path for path in mapped_paths(text) if not (ROOT / path).exists())


def test_the_module_map_of_docs_readme_names_only_paths_that_exist() -> None:
    text = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    assert len(mapped_paths(text)) > 30  # the map is read, not skipped
    assert missing_paths(text) == []


def test_missing_paths_finds_a_planted_stale_path() -> None:
    text = "`shared/delivery/pipeline.py` and `shared/pipeline.py`, `services/html/`"
    assert missing_paths(text) == ["shared/pipeline.py"]


# A tuning record quoted beside the code: a metric and a measured figure on one comment or
# docstring line ("F1 0.87", "precision 0.95", "AER 12.3%", "0.81 -> 0.84"). Such records
# belong in benchmarks/results/ (tuning_history.md); issue 51 allows at most five, for help
# texts and limits that must say where a default comes from.
MAX_TUNING_LINES = 5
_METRIC = r"\b(?:F1|F-score|precision|recall|accuracy|AER|ECE|BLEU|error rate)\b"
_FIGURE = r"(?:\b0?\.\d{2,}\b|\b\d{1,3}(?:\.\d+)?\s?%)"
TUNING_LINE = re.compile(
    rf"{_METRIC}.{{0,40}}?{_FIGURE}|{_FIGURE}.{{0,40}}?{_METRIC}"
    r"|\b\d\.\d{2,}\s*(?:->|→)\s*\d\.\d{2,}",
    re.IGNORECASE,
)


def tuning_lines(source: str) -> list[str]:
    """The comment and docstring lines of a module that quote a tuning result."""
    texts = [
        token.string
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                texts.extend(docstring.splitlines())
    return [
        line.strip() for text in texts for line in text.splitlines() if TUNING_LINE.search(line)
    ]


def test_product_comments_quote_at_most_five_tuning_results() -> None:
    found = {name: lines for name, source in _sources().items() if (lines := tuning_lines(source))}
    assert sum(map(len, found.values())) <= MAX_TUNING_LINES, found


def test_tuning_lines_finds_planted_records_and_only_them() -> None:
    source = (
        '"""A module.\n\nStrict F1 0.874 on validation (was 0.861)."""\n'
        "LIMIT = 0.25  # share of the page, a bound, not a result\n"
        "x = 1  # dev: 0.802 -> 0.815\n"
        "y = 2  # keeps 91% recall at the default\n"
        "z = 3  # at most 12 links per block\n"
    )
    assert tuning_lines(source) == [
        "# dev: 0.802 -> 0.815",
        "# keeps 91% recall at the default",
        "Strict F1 0.874 on validation (was 0.861).",
    ]
