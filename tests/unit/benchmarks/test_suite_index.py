"""benchmarks/ reads like a suite: its package docstring names every script (as
``<stage>.<name>``) and every results file, every stage folder is a package that says what
is in it, and ``run_all`` runs only scripts that exist."""

from __future__ import annotations

from pathlib import Path

import benchmarks
from benchmarks.run_all import BENCHMARKS

FOLDER = Path(benchmarks.__file__).parent
INDEX = benchmarks.__doc__ or ""


def scripts() -> set[str]:
    """Every module of benchmarks/ as its dotted name below ``benchmarks``."""
    return {
        ".".join(path.relative_to(FOLDER).with_suffix("").parts)
        for path in FOLDER.rglob("*.py")
        if path.name != "__init__.py"
    }


def test_every_script_is_in_the_index() -> None:
    assert len(scripts()) > 40
    assert sorted(name for name in scripts() if name not in INDEX) == []


def test_every_stage_folder_is_a_package_with_a_docstring() -> None:
    folders = {path.parent for path in FOLDER.rglob("*.py")} - {FOLDER}
    assert len(folders) >= 6
    for folder in folders:
        init = folder / "__init__.py"
        assert init.is_file(), folder
        assert init.read_text(encoding="utf-8").startswith('"""'), init


def test_every_results_file_is_in_the_index() -> None:
    results = {path.name for path in (FOLDER / "results").glob("*.md")}
    results |= {path.name for path in (FOLDER / "results").glob("*.json")}
    assert sorted(name for name in results if name not in INDEX) == []


def test_run_all_runs_scripts_that_exist() -> None:
    assert set(BENCHMARKS) <= scripts()
