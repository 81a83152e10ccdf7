"""benchmarks/ reads like a suite: its package docstring names every script and every
results file, and ``run_all`` runs only scripts that exist."""

from __future__ import annotations

import re
from pathlib import Path

import benchmarks
from benchmarks.run_all import BENCHMARKS

FOLDER = Path(benchmarks.__file__).parent
INDEX = benchmarks.__doc__ or ""


def test_every_script_is_in_the_index() -> None:
    scripts = {path.stem for path in FOLDER.glob("*.py")} - {"__init__"}
    named = set(re.findall(r"\b\w+\b", INDEX))
    assert sorted(scripts - named) == []


def test_every_results_file_is_in_the_index() -> None:
    results = {path.name for path in (FOLDER / "results").glob("*.md")}
    results |= {path.name for path in (FOLDER / "results").glob("*.json")}
    assert sorted(name for name in results if name not in INDEX) == []


def test_run_all_runs_scripts_that_exist() -> None:
    assert all((FOLDER / f"{name}.py").is_file() for name in BENCHMARKS)
