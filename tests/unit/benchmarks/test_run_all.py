"""``make bench`` runs every benchmark that writes a results file, and only those."""

from __future__ import annotations

from pathlib import Path

from benchmarks.run_all import BENCHMARKS, main

BENCH_DIR = Path(__file__).resolve().parents[3] / "benchmarks"
# Not run by ``make bench``: helpers of other benchmarks, and the load test (``make load``).
NOT_BENCHMARKS = {"__init__", "run_all", "tree_align_pagegen", "tree_align_default_model"}
SEPARATE = {"pipeline_load"}


def test_every_benchmark_module_is_listed_once() -> None:
    modules = {path.stem for path in BENCH_DIR.glob("[!_]*.py")} - NOT_BENCHMARKS - SEPARATE
    assert sorted(BENCHMARKS) == sorted(modules)
    assert len(set(BENCHMARKS)) == len(BENCHMARKS)
    for name in BENCHMARKS:
        source = (BENCH_DIR / f"{name}.py").read_text()
        assert 'if __name__ == "__main__":' in source, name
        assert "results" in source, f"{name} writes no results file"


def test_unknown_names_are_refused_before_anything_runs() -> None:
    assert main(["no_such_benchmark"]) == 2
