"""The load benchmark's reading of the tree_align log (task spans, free-process waits) and of
its goals."""

from __future__ import annotations

from benchmarks.system.pipeline_load_profile import host_speed_line
from benchmarks.system.pipeline_load_report import goals, refused_line
from benchmarks.system.pipeline_load_summary import (
    found_free_process,
    log_time,
    task_spans,
    task_waits,
)

TASK = "Task paramine.tree_align.process"
LOG = (
    f"[2026-11-22 03:00:00,100: INFO/MainProcess] {TASK}[aaaa-1] received\n"
    f"[2026-11-22 03:00:00,200: INFO/MainProcess] {TASK}[bbbb-2] received\n"
    f"[2026-11-22 03:00:00,150: INFO/ForkPoolWorker-1] {TASK}[aaaa-1] succeeded in 0.04s: None\n"
    f"[2026-11-22 03:00:00,300: INFO/MainProcess] {TASK}[cccc-3] received\n"
)


def test_task_spans_in_delivery_order() -> None:
    spans = task_spans(LOG)
    base = log_time("2026-11-22 03:00:00,000")
    assert [(round(a - base, 3), round(b - base, 3)) for a, b in spans] == [
        (0.11, 0.15),  # succeeded at .150 after 0.04 s
        (0.2, 0.2),  # no success line: starts and ends when received
        (0.3, 0.3),
    ]


def test_task_waits_follow_delivery_order_from_the_workers_lines() -> None:
    log = LOG + (
        f"[2026-11-22 03:00:00,301: INFO/ForkPoolWorker-1] {TASK}[cccc-3] waited 2.5 ms in its"
        " queue\n"
        f"[2026-11-22 03:00:00,111: INFO/ForkPoolWorker-1] {TASK}[aaaa-1] waited 11.0 ms in its"
        " queue\n"
    )
    waits = task_waits(log)
    assert waits[0] == 0.011 and waits[2] == 0.0025
    assert waits[1] != waits[1]  # no line for bbbb-2: nan


def test_free_process_needs_no_waiting_task_and_a_free_slot() -> None:
    spans = [(0.0, 1.0), (1.0, 2.0), (2.0, 2.5), (3.0, 3.1)]
    sent = [0.0, 0.5, 0.6, 2.9]
    # task 0: nothing before; task 1: task 0 runs and the single process is busy;
    # task 2: task 1 still waits (starts at 1.0 > 0.6); task 3: all earlier tasks finished
    assert found_free_process(sent, spans, processes=1) == [True, False, False, True]
    # with two processes task 1 finds the second process free; task 2 still sees task 1 waiting
    assert found_free_process(sent, spans, processes=2) == [True, True, False, True]


def _row(processes: int, hop_p99: float, wait_p99: float = 0.3) -> dict[str, float]:
    return {
        "processes": processes, "throughput": 30.0 + processes, "wait_p99": wait_p99,
        "paced_p99": 0.05, "free_p99": hop_p99 + 0.04, "hop_p99": hop_p99,
        "pairs_per_pool_cpu_second": 30.0, "pairs_per_worker_cpu_second": 27.0,
        "backlog_pairs": 900, "backlog_drain": 31.5,
    }  # fmt: skip


def test_hop_goal_is_read_on_the_worst_configuration_of_tasks_that_found_a_free_process() -> None:
    # One configuration over 50 ms fails the goal, however good the others are; the wait of
    # every task (queueing behind a busy process) is reported but decides nothing, nor does
    # the upper bound from the request's send time (the gateway's handling added).
    line = goals([_row(1, 0.02), _row(2, 0.061), _row(4, 0.03)])[1]
    assert "worst configuration 61 ms → **not met**" in line
    line = goals([_row(1, 0.02, wait_p99=0.9), _row(2, 0.049)])[1]
    assert "worst configuration 49 ms → met" in line and "Poisson worst 900 ms" in line
    assert "handling: 89 ms" in line


def test_backlog_drain_is_reported_per_configuration() -> None:
    line = goals([_row(1, 0.02), _row(2, 0.02)])[2]
    assert "1 process(es): 900 pairs in 31.5 s" in line and "2 process(es)" in line


def test_host_speed_and_code_cost_are_read_apart_against_the_reference_run() -> None:
    # the host as fast as the reference's, the code 1.5x as costly: the code, not the host
    costlier = {
        "pairs": 40, "loop": 0.52, "cpu": {"tree_algorithm": 0.030, "sentence_algorithm": 0.0137}
    }  # fmt: skip
    line = host_speed_line(costlier)
    assert "this host is 1.00x slower" in line
    assert "43.7 ms of CPU" in line and "1.50x, of which the host explains 1.00x" in line
    faster = {"pairs": 40, "loop": 0.26, "cpu": {"tree_algorithm": 0.01455}}
    assert "this host is 2.00x as fast" in host_speed_line(faster)
    # other pairs, other page sizes: the code's cost is not compared, the host's speed is
    other = host_speed_line({**faster, "pairs": 20})
    assert "Code cost: not compared" in other and "2.00x as fast" in other
    assert "Host speed: not measured" in host_speed_line({"pairs": 40, "cpu": {}})


def test_refused_requests_are_reported_by_configuration_and_reason() -> None:
    rows = [
        {"processes": 1, "http_errors": {}},
        {"processes": 2, "http_errors": {"RemoteProtocolError": 1, "HTTP 429": 2}},
    ]
    assert refused_line(rows) == (
        "Requests not answered 202 (not enqueued, not in 'submitted'): "
        "2 process(es): 2 HTTP 429, 1 RemoteProtocolError."
    )
    assert refused_line(rows[:1]) == "Every request was answered 202 (accepted and enqueued)."
