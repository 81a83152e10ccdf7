"""The soak report's readings (pure logic, in ``make test``): recovery after a fault and
RSS growth, on made-up samples."""

from __future__ import annotations

from pathlib import Path

from tests.soak.report import FaultRecord, RunFigures, recovery_seconds, rss_growth, write_report


def _steady(rate: float, seconds: int, stall: tuple[int, int] | None = None) -> RunFigures:
    """Completions sampled every second at ``rate`` a second, none during ``stall``."""
    figures = RunFigures(faults=True, submitted=10_000)
    done = 0.0
    for at in range(seconds + 1):
        if stall is None or not stall[0] <= at < stall[1]:
            done += rate if at else 0
        figures.completions.append((float(at), int(done)))
    return figures


def test_recovery_is_when_the_rate_is_back_to_half() -> None:
    figures = _steady(10.0, 200, stall=(60, 90))
    record = FaultRecord("kill -9 worker", at=60.0, completed_before=600)
    seconds = recovery_seconds(figures, record, rate=10.0)
    # stalled 60-90 s; over the 10 s window the rate is >= 5/s once 5 s of it run again
    assert seconds is not None and 34.0 <= seconds <= 36.0


def test_a_fault_nothing_noticed_recovers_after_one_window() -> None:
    figures = _steady(10.0, 100)
    record = FaultRecord("gateway restart", at=20.0, completed_before=200)
    assert recovery_seconds(figures, record, rate=10.0) == 10.0


def test_a_stall_to_the_end_is_not_recovered() -> None:
    figures = _steady(10.0, 100, stall=(50, 101))
    assert recovery_seconds(figures, FaultRecord("Redis restart", 50.0, 500), rate=10.0) is None


def test_rss_growth_reads_from_the_tenth_minute() -> None:
    figures = RunFigures(faults=True)
    figures.rss = [(0.0, {"a": 100}), (600.0, {"a": 200}), (1200.0, {"a": 230})]
    label, growth = rss_growth(figures)
    assert label == "from the 10th minute"
    assert abs(growth["a"] - 0.15) < 1e-9


def test_the_report_says_what_was_not_met(tmp_path: Path) -> None:
    clean = _steady(10.0, 100)
    clean.seconds, clean.submitted, clean.completed, clean.export = 100.0, 1000, 1000, b"x\n"
    faulty = _steady(10.0, 200, stall=(60, 190))
    faulty.seconds, faulty.submitted, faulty.completed, faulty.export = 200.0, 1000, 999, b"y\n"
    faulty.fault_records = [FaultRecord("Redis restart", 60.0, 600, repaired=62.0)]
    path = tmp_path / "soak.md"
    write_report(path, clean, faulty, pairs=1000, fault_seconds=60)
    text = path.read_text()
    assert "1 lost" in text and "identical to the fault-free run's: False -> not met" in text
    assert "throughput >= 80% of fault-free: 50% -> not met" in text
    assert "| 60 | Redis restart | 2.0 |" in text


def test_a_rerun_keeps_the_reading_written_by_hand(tmp_path: Path) -> None:
    clean = _steady(10.0, 50)
    clean.seconds, clean.submitted, clean.completed, clean.export = 50.0, 500, 500, b"x\n"
    path = tmp_path / "soak.md"
    write_report(path, clean, clean, pairs=500, fault_seconds=60)
    text = path.read_text()
    assert "<!-- reading -->\n<!-- /reading -->" in text
    path.write_text(text.replace("<!-- /reading -->", "By hand.\n<!-- /reading -->"))
    write_report(path, clean, clean, pairs=500, fault_seconds=60)
    assert "<!-- reading -->\nBy hand.\n<!-- /reading -->" in path.read_text()
