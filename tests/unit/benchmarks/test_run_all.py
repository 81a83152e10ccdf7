"""``make bench`` runs every benchmark that writes a results file, and only those."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks.run_all import BENCHMARKS, main

BENCH_DIR = Path(__file__).resolve().parents[3] / "benchmarks"
# Runnable modules that ``make bench`` leaves out: itself, the shipped-model trainer and the
# load test (``make load``: it needs Redis and PostgreSQL) and
# the output digests (a check of a refactoring, not a benchmark) and the recovery across hosts
# (``make hosts-bench``: network namespaces, root), and sentence_align.scripts and
# page_match.languages (their data, the Bible corpus, is not in the kit: a repository
# brought by the search tool's fetch).
# Modules without a ``__main__`` block are helpers of others.
NOT_RUN = {
    "run_all",
    "tree_align.default_model",
    "system.pipeline_load",
    "system.output_digests",
    "system.hosts_recovery",
    "sentence_align.scripts",
    "page_match.languages",
    "system.process_cpu",  # needs a baseline checkout (--baseline)
    "system.site_growth",  # needs PostgreSQL and a baseline checkout
}


def test_every_runnable_benchmark_is_listed_once() -> None:
    runnable = {
        ".".join(path.relative_to(BENCH_DIR).with_suffix("").parts)
        for path in BENCH_DIR.rglob("*.py")
        if 'if __name__ == "__main__":' in path.read_text()
    }
    assert sorted(BENCHMARKS) == sorted(runnable - NOT_RUN)
    assert len(set(BENCHMARKS)) == len(BENCHMARKS)
    for name in BENCHMARKS:
        # its results file, benchmarks/results/<file>.md (RESULTS / "<file>.md", benchmarks.common)
        text = (BENCH_DIR / f"{name.replace('.', '/')}.py").read_text()
        assert re.search(r'RESULTS / "\w+\.md"', text), f"{name} writes no results"


def test_unknown_names_are_refused_before_anything_runs() -> None:
    assert main(["no_such_benchmark"]) == 2
