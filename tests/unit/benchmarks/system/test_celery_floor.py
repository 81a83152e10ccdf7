"""The summary of back-to-back task spans in benchmarks/system/celery_floor.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.system.celery_floor import cycle


def test_cycle_reads_gaps_between_one_task_end_and_the_next_start() -> None:
    # three tasks of 10 ms, 2 ms and 4 ms apart (given out of order: sorted by start)
    spans = [(1.012, 1.022), (1.000, 1.010), (1.026, 1.036)]
    summary = cycle(spans)
    assert summary.tasks == 3
    assert summary.gap_mean_ms == pytest.approx(3.0)
    assert summary.gap_median_ms == pytest.approx(3.0)
    assert summary.task_mean_ms == pytest.approx(10.0)
    assert summary.tasks_per_second == pytest.approx(3 / 0.036)
    assert summary.gap_p90_ms == pytest.approx(3.8)


@given(st.lists(st.tuples(st.floats(0.0, 0.05), st.floats(0.001, 0.05)), min_size=2, max_size=40))
def test_gaps_and_task_times_add_up_to_the_span_of_the_run(
    parts: list[tuple[float, float]],
) -> None:
    spans, now = [], 100.0
    for gap, length in parts:
        now += gap
        spans.append((now, now + length))
        now += length
    summary = cycle(spans)
    total_ms = 1000 * (spans[-1][1] - spans[0][0])
    gaps_ms = summary.gap_mean_ms * (len(spans) - 1)
    assert gaps_ms + summary.task_mean_ms * len(spans) == pytest.approx(total_ms, abs=1e-6)
    assert summary.tasks_per_second == pytest.approx(len(spans) / (total_ms / 1000))


def test_cycle_needs_two_spans() -> None:
    with pytest.raises(ValueError, match="two task spans"):
        cycle([(0.0, 1.0)])
