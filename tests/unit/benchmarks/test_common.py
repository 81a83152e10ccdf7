"""publish: a benchmark's report lands in its results file and on stdout, same text, keeping
the file's hand-written notes (keep_notes); peak_rss_mb: a process's own peak memory, not its
parent's; best_of and child_json, the timing and child-process helpers."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.common import (
    NOTES_END,
    RESULTS,
    best_of,
    child_json,
    keep_notes,
    notes,
    peak_rss_mb,
    publish,
)
from tests.conftest import REPO


def test_publish_writes_and_prints_the_same_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "results" / "bench.md"
    publish(target, ["# Bench", "", "| a | b |", ""])
    assert target.read_text(encoding="utf-8") == "# Bench\n\n| a | b |\n"
    assert capsys.readouterr().out == "# Bench\n\n| a | b |\n"


RESULTS_FILE = (
    "# Bench\n\n| a | 1 |\n\n<!-- notes: tuning -->\nTried 0.3, 0.4: kept 0.4.\n\n"
    "| hand | table |\n<!-- /notes -->\n\n- Goal: met.\n  <!-- notes: end -->\n  See x.md.\n"
    "  <!-- /notes -->\n"
)


def test_keep_notes_keeps_the_hand_written_blocks_and_regenerates_the_rest() -> None:
    generated = "# Bench\n\n| a | 2 |\n\n" + notes("tuning") + "\n\n- Goal: not met.\n"
    generated += notes("end") + "\n"
    expected = RESULTS_FILE.replace("| a | 1 |", "| a | 2 |").replace("met.", "not met.")
    assert keep_notes(generated, RESULTS_FILE) == expected
    assert keep_notes("# Bench\n\n| a | 2 |\n", RESULTS_FILE) == "# Bench\n\n| a | 2 |\n"


def test_keep_notes_leaves_a_missing_block_empty_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    kept = keep_notes(f"# Bench\n{notes('gone')}\n", RESULTS_FILE)
    assert kept == f"# Bench\n<!-- notes: gone -->\n{NOTES_END}\n"
    assert "no notes 'gone'" in capsys.readouterr().err


def test_a_rerun_with_the_same_measurements_writes_the_same_bytes(tmp_path: Path) -> None:
    target = tmp_path / "bench.md"
    target.write_text(RESULTS_FILE, encoding="utf-8")
    lines = ["# Bench", "", "| a | 1 |", "", notes("tuning"), "", "- Goal: met.", notes("end")]
    publish(target, lines)
    assert target.read_bytes() == RESULTS_FILE.encode("utf-8")
    publish(target, [*lines[:2], "| a | 3 |", *lines[3:]])
    assert target.read_text(encoding="utf-8") == RESULTS_FILE.replace("| a | 1 |", "| a | 3 |")


def test_every_notes_line_of_the_scripts_has_its_block_in_the_results() -> None:
    # Each name once in the code and once in the results files, so no block is lost or orphaned.
    named = [
        name
        for script in sorted((REPO / "benchmarks").rglob("*.py"))
        for name in re.findall(r'notes\("([\w-]+)"\)', script.read_text(encoding="utf-8"))
    ]
    blocks = [
        name
        for results in sorted(RESULTS.glob("*.md"))
        for name in re.findall(r"^ *<!-- notes: ([\w-]+) -->$", results.read_text("utf-8"), re.M)
    ]
    assert len(named) > 30 and len(set(named)) == len(named)
    assert sorted(named) == sorted(blocks)


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


def test_best_of_runs_the_call_each_time_and_keeps_the_last_result_and_best_times() -> None:
    calls: list[int] = []

    def call() -> int:
        calls.append(len(calls))
        sum(range(20_000 * len(calls)))  # the later runs take longer
        return len(calls)

    result, wall, cpu = best_of(3, call)
    assert result == 3 and calls == [0, 1, 2]
    assert 0 <= wall < 1 and 0 <= cpu < 1


def test_child_json_reads_the_last_line_a_fresh_interpreter_prints(tmp_path: Path) -> None:
    lines = tmp_path / "lines.jsonl"
    lines.write_text('{"first": 1}\n[2, {"last": 3}]\n', encoding="utf-8")
    args = ("--json-lines", "--compact", str(lines))
    assert child_json("json.tool", *args) == [2, {"last": 3}]
    with pytest.raises(subprocess.CalledProcessError):
        child_json("json.tool", str(tmp_path / "missing.json"))
