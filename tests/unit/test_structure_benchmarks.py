"""Where the benchmarks stand (issue 51 item 5), read from the source with ``ast``:

- no test module outside ``tests/unit/benchmarks/`` (the tests of the benchmark code itself)
  imports ``benchmarks``: a product test reads the kit through ``tests.conftest.kit_path``
  and its own helpers, so it skips cleanly without the kit and never depends on a script;
- ``benchmarks/`` is at most a quarter of the Python lines outside ``tests/``.

Each rule is a function from sources (or line counts) to violations, tested on a planted one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK_TESTS = ("tests", "unit", "benchmarks")
MAX_BENCHMARK_SHARE = 0.25
SKIPPED_FOLDERS = {"build", "dist", "node_modules", "__pycache__"}


def _is_benchmarks(module: str) -> bool:
    return module == "benchmarks" or module.startswith("benchmarks.")


def benchmark_imports(sources: dict[str, str]) -> dict[str, list[str]]:
    """For each test module (by repository path) outside ``tests/unit/benchmarks/``, the
    ``benchmarks`` modules it imports anywhere (inside functions too, and by
    ``importlib.import_module("benchmarks...")``)."""
    found: dict[str, list[str]] = {}
    for path, source in sources.items():
        if Path(path).parts[: len(BENCHMARK_TESTS)] == BENCHMARK_TESTS:
            continue
        names: set[str] = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names if _is_benchmarks(alias.name)}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if _is_benchmarks(node.module):
                    names.add(node.module)
            elif (
                isinstance(node, ast.Call)
                and ast.unparse(node.func).endswith("import_module")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and _is_benchmarks(node.args[0].value)
            ):
                names.add(node.args[0].value)
        if names:
            found[path] = sorted(names)
    return found


def _python_files() -> list[Path]:
    return [
        path
        for path in sorted(ROOT.rglob("*.py"))
        if not any(
            part.startswith(".") or part in SKIPPED_FOLDERS for part in path.relative_to(ROOT).parts
        )
    ]


def _test_sources() -> dict[str, str]:
    return {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for path in _python_files()
        if path.relative_to(ROOT).parts[0] == "tests"
    }


def benchmark_share(lines: dict[str, int]) -> float:
    """The share of ``benchmarks/`` in the Python lines (by repository path) outside
    ``tests/``."""
    outside = {path: count for path, count in lines.items() if Path(path).parts[0] != "tests"}
    benchmark = sum(n for path, n in outside.items() if Path(path).parts[0] == "benchmarks")
    return benchmark / max(1, sum(outside.values()))


def _line_counts() -> dict[str, int]:
    """Lines of every Python file of the repository, counted as ``wc -l`` counts them."""
    return {str(path.relative_to(ROOT)): path.read_bytes().count(b"\n") for path in _python_files()}


def test_no_test_outside_the_benchmark_tests_imports_benchmarks() -> None:
    sources = _test_sources()
    assert len(sources) > 100  # the tests are read, not skipped
    assert benchmark_imports(sources) == {}


def test_benchmark_imports_finds_planted_imports() -> None:
    sources = {
        "tests/unit/sentence_align/test_x.py": (
            "from services.sentence_align.aligners.gold import cut_block\n"
            "def test_y():\n    from benchmarks.sentence_align.textberg import load\n"
        ),
        "tests/fuzz/_case.py": "import benchmarks.common as common\n",
        "tests/unit/page_match/test_z.py": (
            "import importlib\nimportlib.import_module('benchmarks.page_match.crawls')\n"
        ),
        "tests/unit/benchmarks/test_common.py": "from benchmarks.common import publish\n",
        "tests/unit/test_clean.py": "from benchmarks_like import x\n# benchmarks.common\n",
    }
    assert benchmark_imports(sources) == {
        "tests/unit/sentence_align/test_x.py": ["benchmarks.sentence_align.textberg"],
        "tests/fuzz/_case.py": ["benchmarks.common"],
        "tests/unit/page_match/test_z.py": ["benchmarks.page_match.crawls"],
    }


def test_benchmarks_are_at_most_a_quarter_of_the_code() -> None:
    lines = _line_counts()
    assert sum(n for path, n in lines.items() if path.startswith("benchmarks/")) > 1000
    assert benchmark_share(lines) <= MAX_BENCHMARK_SHARE


def test_benchmark_share_counts_only_the_code_outside_tests() -> None:
    lines = {
        "services/a.py": 600,
        "shared/b.py": 200,
        "benchmarks/sentence_align/long.py": 200,
        "tests/unit/benchmarks/test_c.py": 5_000,
        "tests/unit/test_d.py": 1_000,
    }
    assert benchmark_share(lines) == pytest.approx(0.2)
    lines["benchmarks/system/pipeline_load.py"] = 100  # planted: 300 of 1,100
    assert benchmark_share(lines) > MAX_BENCHMARK_SHARE
