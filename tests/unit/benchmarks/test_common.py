"""publish: a benchmark's report lands in its results file and on stdout, same text;
peak_rss_mb: a process's own peak memory, not its parent's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.common import peak_rss_mb, publish
from tests.conftest import REPO


def test_publish_writes_and_prints_the_same_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "results" / "bench.md"
    publish(target, ["# Bench", "", "| a | b |", ""])
    assert target.read_text(encoding="utf-8") == "# Bench\n\n| a | b |\n"
    assert capsys.readouterr().out == "# Bench\n\n| a | b |\n"


def test_peak_rss_is_read_from_the_high_water_mark(tmp_path: Path) -> None:
    status = tmp_path / "status"
    status.write_text("Name:\tpython\nVmPeak:\t  900000 kB\nVmHWM:\t   40960 kB\nVmRSS:\t 1 kB\n")
    assert peak_rss_mb(status) == 40.0
    status.write_text("Name:\tpython\n")
    with pytest.raises(RuntimeError):
        peak_rss_mb(status)


def test_a_subprocess_of_a_large_parent_reports_its_own_peak() -> None:
    # ru_maxrss would report at least this process's ~100 MB ballast in the child.
    ballast = bytearray(100 * 1024 * 1024)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page
    code = "from benchmarks.common import peak_rss_mb; print(peak_rss_mb())"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert float(done.stdout) < 90.0, done.stdout
    assert peak_rss_mb() >= 100.0
    del ballast
