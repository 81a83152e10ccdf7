"""The soak's figures and its results file (``benchmarks/results/soak.md``)."""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

WINDOW_SECONDS = 10.0  # a recovery is judged on the completion rate over this window
RECOVERED_SHARE = 0.5  # of the fault-free run's mean rate
RSS_FROM_SECONDS = 600.0  # RSS growth is read from the 10th minute on
# What is written by hand in the results file (the reading of a run) stands between these
# and a rerun keeps it.
READING_START, READING_END = "<!-- reading -->", "<!-- /reading -->"


@dataclass
class FaultRecord:
    fault: str
    at: float  # seconds into the run
    completed_before: int
    repaired: float = 0.0  # when the harness's own repair (restart) was done


@dataclass
class RunFigures:
    faults: bool
    seconds: float = 0.0
    submitted: int = 0
    completed: int = 0
    dead_letters: int = 0
    duplicated_rows: int = 0
    gateway_retries: int = 0
    export: bytes = b""
    completions: list[tuple[float, int]] = field(default_factory=list)
    rss: list[tuple[float, dict[str, int]]] = field(default_factory=list)
    fault_records: list[FaultRecord] = field(default_factory=list)

    @property
    def throughput(self) -> float:
        return self.completed / self.seconds if self.seconds else 0.0


def recovery_seconds(figures: RunFigures, record: FaultRecord, rate: float) -> float | None:
    """Seconds from the fault until the completion rate over the last WINDOW_SECONDS is back
    to RECOVERED_SHARE of ``rate`` (None: never, before the run ended)."""
    samples = figures.completions
    for k, (at, done) in enumerate(samples):
        if at < record.at + WINDOW_SECONDS:
            continue
        earlier = [(t, d) for t, d in samples[:k] if t <= at - WINDOW_SECONDS]
        if not earlier:
            continue
        t0, d0 = earlier[-1]
        if (done - d0) / (at - t0) >= RECOVERED_SHARE * rate or done >= figures.submitted:
            return at - record.at
    return None


def rss_growth(figures: RunFigures) -> tuple[str, dict[str, float]]:
    """(from when, stage → growth of RSS to the end): from the 10th minute, or from the
    first sample after a minute in a shorter run."""
    if not figures.rss:
        return "no sample", {}
    start = next((s for s in figures.rss if s[0] >= RSS_FROM_SECONDS), None)
    label = "from the 10th minute"
    if start is None or start is figures.rss[-1]:
        start = next((s for s in figures.rss if s[0] >= 60.0), figures.rss[0])
        label = f"from {start[0]:.0f} s (the run is shorter than 10 minutes)"
    end = figures.rss[-1]
    return label, {s: end[1][s] / start[1][s] - 1 for s in start[1] if start[1][s]}


def kept_reading(path: Path) -> str:
    """The hand-written reading of the results file at ``path`` (its markers included), or
    an empty block to write one in."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        text = ""
    start, end = text.find(READING_START), text.find(READING_END)
    if start < 0 or end < start:
        return f"{READING_START}\n{READING_END}"
    return text[start : end + len(READING_END)]


def write_report(
    path: Path, clean: RunFigures, faulty: RunFigures, *, pairs: int, fault_seconds: float
) -> None:
    ratio = faulty.throughput / clean.throughput if clean.throughput else 0.0
    recoveries = [(r, recovery_seconds(faulty, r, clean.throughput)) for r in faulty.fault_records]
    label, growth = rss_growth(faulty)
    lost = faulty.submitted - faulty.completed
    identical = faulty.export == clean.export and bool(faulty.export)
    rows = [
        f"| {name} | {f.seconds:.0f} | {f.submitted} | {f.completed} | {f.dead_letters} "
        f"| {f.duplicated_rows} | {f.throughput:.2f} | {f.gateway_retries} |"
        for name, f in (("fault-free", clean), ("faults", faulty))
    ]
    fault_rows = [
        f"| {r.at:.0f} | {r.fault} | {r.repaired - r.at:.1f} | "
        + ("not recovered" if s is None else f"{s:.1f}")
        + " |"
        for r, s in recoveries
    ]
    worst = max((s for _, s in recoveries if s is not None), default=0.0)
    all_recovered = all(s is not None and s < 60 for _, s in recoveries)
    reading = kept_reading(path)
    lines = [
        "# Soak: page pairs through the gateway and workers under faults",
        "",
        f"Run `{time.strftime('%Y-%m-%d %H:%M')}` by `make soak` (tests/soak/test_soak.py; its"
        " docstring gives the protocol): "
        f"{pairs} page pairs (PARAMINE_SOAK_PAIRS), a fault every {fault_seconds:.0f} s "
        "(PARAMINE_SOAK_FAULT_SECONDS), each run on a fresh cluster (private Redis with AOF,"
        " a fresh PostgreSQL database behind a cuttable proxy, one worker per alignment stage"
        " with the fault tests' delivery settings: lease 30 s, restore sweep 2 s; the gateway;"
        " site learning on).",
        "",
        "| run | seconds | submitted | completed | dead letters | duplicated rows "
        "| page pairs/s | gateway retries |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        "| at s | fault | harness repair s | recovered after s |",
        "|---|---|---|---|",
        *fault_rows,
        "",
        f"Workers' RSS (parent and pool children), growth {label} to the end: "
        + ", ".join(f"{stage} {value:+.1%}" for stage, value in growth.items()),
        "",
        "Goals (issue 54):",
        f"- 0 pairs lost: {lost} lost; 0 duplicated: {faulty.duplicated_rows} duplicated rows; "
        f"sorted TSV export identical to the fault-free run's: {identical} "
        f"-> {'met' if lost == 0 and faulty.duplicated_rows == 0 and identical else 'not met'}",
        f"- throughput >= 80% of fault-free: {ratio:.0%} -> {'met' if ratio >= 0.8 else 'not met'}",
        f"- every fault recovered in < 60 s: worst {worst:.1f} s -> "
        f"{'met' if all_recovered else 'not met'}",
        "- worker RSS growth < 20% from the 10th minute: "
        + ("met" if growth and max(growth.values()) < 0.2 else "not met")
        + ("" if label == "from the 10th minute" else " (read on a shorter run: indicative only)"),
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} logical CPUs shared with other work,"
        f" load average {' '.join(f'{v:.1f}' for v in os.getloadavg())} at the end.",
        "",
        reading,
        "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
