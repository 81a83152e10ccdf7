"""publish: a benchmark's report lands in its results file and on stdout, same text."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks._report import publish


def test_publish_writes_and_prints_the_same_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "results" / "bench.md"
    publish(target, ["# Bench", "", "| a | b |", ""])
    assert target.read_text(encoding="utf-8") == "# Bench\n\n| a | b |\n"
    assert capsys.readouterr().out == "# Bench\n\n| a | b |\n"
