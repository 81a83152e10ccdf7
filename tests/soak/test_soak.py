"""The soak (issue 54 item 3): page pairs through the gateway and the workers on PostgreSQL
and Redis for a long run with a fault every ``PARAMINE_SOAK_FAULT_SECONDS`` (60), against a
fault-free run of the same input on a fresh cluster. ``make soak`` (not in CI, not in
``make test``); the figures go to ``benchmarks/results/soak.md``.

Each run has its own cluster, as tests/chaos builds it (``tests/chaos/conftest.py``: a private
Redis with AOF, a fresh PostgreSQL database behind a TCP proxy the harness can cut, one
worker process per alignment stage with the fault tests' short delivery settings, site
learning on) plus the real gateway (``paramine serve``). A submitter posts the pairs to
``POST /v1/page-pairs`` in batches, one job per batch, keeping about ``BACKLOG`` pairs
waiting, and retries a batch the gateway did not answer (the same content gives the same
pair ids: a batch posted twice is one batch). The faults, in a seeded shuffled cycle:

- kill -9 of a random worker's process group, then a new worker;
- SIGTERM of a random worker (warm shutdown), then a new worker;
- Redis restart (SHUTDOWN with its AOF, start again on the same port);
- PostgreSQL away for 10 s (every connection through the proxy cut and refused), then back:
  what a database restart looks like to its clients (the machine's PostgreSQL itself is not
  this harness's to restart);
- gateway restart (SIGTERM, a new ``paramine serve`` on the same port).

A worker host partitioned from the broker and database needs network namespaces and root:
``make hosts`` covers it (tests/hosts), not this harness.

Checked here (correctness only; speed is measured, not asserted): every submitted page pair
completed, no dead letter, the sorted TSV export of the faulty run byte-identical to the
fault-free run's (nothing lost, nothing duplicated). Reported: pairs submitted, completed,
dead-lettered, duplicated rows, throughput against the fault-free run, recovery time per fault
(until the completion rate over the last 10 s is back to half the fault-free run's mean) and
the workers' RSS (parent and pool children) over time.
"""

from __future__ import annotations

import os
import random
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from services.cli.worker_process import warm_up
from shared.store import Store
from tests.chaos.conftest import ALIGNMENT_STAGES, ChaosCluster, page_pairs, running_cluster
from tests.integration.processes import PARAMINE, free_port, start_paramine, stop, wait_for_http
from tests.soak.report import FaultRecord, RunFigures, write_report

pytestmark = [pytest.mark.soak, pytest.mark.timeout(8 * 3600)]

PAIRS = int(os.environ.get("PARAMINE_SOAK_PAIRS", "20000"))
FAULT_SECONDS = float(os.environ.get("PARAMINE_SOAK_FAULT_SECONDS", "60"))
RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "soak.md"
BATCH = 50  # pairs per POST (one job each)
BACKLOG = 200  # pairs submitted but not completed the submitter keeps at most
SAMPLE_SECONDS = 1.0  # completions are counted this often
RSS_SECONDS = 10.0
WINDOW_SECONDS = 10.0  # the rate a recovery is judged on
SEED = 54
FAULTS = ("kill -9 worker", "SIGTERM worker", "Redis restart", "PostgreSQL away 10 s",
          "gateway restart")  # fmt: skip


@dataclass
class Cluster:
    """One run's services: ChaosCluster's workers and servers, and the gateway."""

    chaos: ChaosCluster
    gateway_port: int
    gateway: subprocess.Popen[bytes] | None = None
    store: Store = field(init=False)

    def __post_init__(self) -> None:
        self.store = Store(self.chaos.database_url)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.gateway_port}"

    def start_gateway(self) -> None:
        self.gateway = start_paramine(
            ["serve", "--host", "127.0.0.1", "--port", str(self.gateway_port)],
            self.chaos.env,
            self.chaos.logs / f"gateway-{time.monotonic_ns()}.log",
        )
        wait_for_http(f"{self.url}/healthz", process=self.gateway)

    def completed(self) -> int:
        """Page pairs sentence_align finished (its progress rows), read directly."""
        statement = sa.text("SELECT COUNT(*) FROM pair_progress WHERE stage = 'sentence_align'")
        try:
            with self.store.begin() as conn:
                return int(conn.execute(statement).scalar_one())
        except sa.exc.OperationalError:
            return -1  # not readable this instant (the harness reads directly, no proxy)


@contextmanager
def cluster(logs: Path) -> Iterator[Cluster]:
    """The fault tests' cluster (``tests.chaos.conftest.running_cluster``) and the gateway."""
    logs.mkdir(parents=True, exist_ok=True)
    with running_cluster(logs) as chaos:
        run = Cluster(chaos, free_port())
        try:
            run.start_gateway()
            yield run
        finally:
            if run.gateway is not None:
                stop(run.gateway)
            run.store.engine.dispose()


class Submitter(threading.Thread):
    """Posts the pairs in batches, keeping at most BACKLOG waiting; retries what failed."""

    def __init__(self, run: Cluster, pairs: list[dict[str, object]]) -> None:
        super().__init__(daemon=True)
        self.run_ = run
        self.batches = [pairs[k : k + BATCH] for k in range(0, len(pairs), BATCH)]
        self.submitted = 0
        self.retries = 0
        self.stop_ = threading.Event()

    def run(self) -> None:
        with httpx.Client(timeout=30) as client:
            for number, batch in enumerate(self.batches):
                while self.submitted - max(self.run_.completed(), 0) > BACKLOG:
                    if self.stop_.wait(0.2):
                        return
                body = {"job_id": f"soak-{number:05d}", "pairs": batch}
                while not self.stop_.is_set():
                    try:
                        answer = client.post(f"{self.run_.url}/v1/page-pairs", json=body)
                        if answer.status_code < 500:
                            answer.raise_for_status()
                            break
                    except httpx.TransportError:
                        pass
                    self.retries += 1
                    self.stop_.wait(0.5)
                self.submitted += len(batch)


def rss_kb(pid: int) -> int:
    """Resident memory of a process and its descendants (kB, from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
    family, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        family.update(children)
        frontier += children
    total = 0
    for member in family:
        try:
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


def inject(run: Cluster, fault: str, rng: random.Random) -> None:
    """Apply one fault and what an operator's supervisor does after it."""
    chaos = run.chaos
    if fault in ("kill -9 worker", "SIGTERM worker"):
        stage = rng.choice(ALIGNMENT_STAGES)
        if fault == "kill -9 worker":
            chaos.kill_worker(stage)
        else:
            chaos.terminate_worker(stage, timeout=120)
        chaos.start_worker(stage)
    elif fault == "Redis restart":
        chaos.redis.shutdown()
        chaos.redis.start()
        for stage in ALIGNMENT_STAGES:  # a worker that gave up on the broker is restarted
            if chaos.processes[stage].poll() is not None:
                chaos.start_worker(stage)
    elif fault == "PostgreSQL away 10 s":
        chaos.proxy.cut()
        time.sleep(10)
        chaos.proxy.restore()
    elif fault == "gateway restart":
        assert run.gateway is not None
        stop(run.gateway)
        run.start_gateway()


def soak_run(logs: Path, pairs: list[dict[str, object]], faults: bool) -> RunFigures:
    """One run through a fresh cluster; with ``faults``, one every FAULT_SECONDS."""
    rng = random.Random(SEED)
    with cluster(logs) as run:
        started = time.monotonic()
        submitter = Submitter(run, pairs)
        submitter.start()
        figures = RunFigures(faults=faults)
        done, next_rss, next_fault, cycle = 0, started, started + FAULT_SECONDS, []
        next_line = started + 60
        while done < len(pairs):
            now = time.monotonic()
            if now - started > 6 * 3600:
                break
            done = max(run.completed(), done)
            figures.completions.append((now - started, done))
            if now >= next_rss:
                figures.rss.append((now - started, {s: rss_kb(run.chaos.processes[s].pid)
                                                    for s in ALIGNMENT_STAGES}))  # fmt: skip
                next_rss = now + RSS_SECONDS
            if faults and now >= next_fault and done < len(pairs):
                if not cycle:
                    cycle = rng.sample(FAULTS, len(FAULTS))
                fault = cycle.pop()
                record = FaultRecord(fault, now - started, done)
                inject(run, fault, rng)
                record.repaired = time.monotonic() - started
                figures.fault_records.append(record)
                next_fault = time.monotonic() + FAULT_SECONDS
            if now >= next_line:
                print(f"soak {'faults' if faults else 'fault-free'}: {now - started:.0f} s, "
                      f"{done} of {len(pairs)} done", flush=True)  # fmt: skip
                next_line = now + 60
            time.sleep(SAMPLE_SECONDS)
        submitter.stop_.set()
        submitter.join(10)
        figures.seconds = time.monotonic() - started
        figures.submitted, figures.completed = submitter.submitted, max(run.completed(), 0)
        figures.gateway_retries = submitter.retries
        letters = run.store.list_dead_letters(limit=1_000_000)
        figures.dead_letters = len(letters)
        figures.duplicated_rows = duplicated_rows(run.store)
        figures.export = sorted_export(run.chaos.database_url)
    return figures


def sorted_export(database_url: str) -> bytes:
    """The whole corpus as a user exports it (``paramine export --format tsv``, default
    settings), its lines sorted."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARAMINE_")}
    env["PARAMINE_DATABASE_URL"] = database_url
    command = [PARAMINE, "export", "--format", "tsv"]
    done = subprocess.run(command, env=env, capture_output=True, check=True, timeout=600)
    return b"".join(sorted(done.stdout.splitlines(keepends=True)))


def duplicated_rows(store: Store) -> int:
    """Sentence-pair rows beyond the first of their (page pair, position)."""
    statement = sa.text(
        "SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM sentence_pairs"
        " GROUP BY pair_id, position) AS runs"
    )
    with store.begin() as conn:
        return int(conn.execute(statement).scalar_one())


def test_soak(tmp_path: Path) -> None:
    warm_up("tree_align")  # compile once here, so workers load the cache
    pairs: list[dict[str, object]] = page_pairs(PAIRS, seed=SEED)
    clean = soak_run(tmp_path / "fault-free", pairs, faults=False)
    faulty = soak_run(tmp_path / "faults", pairs, faults=True)
    write_report(RESULTS, clean, faulty, pairs=PAIRS, fault_seconds=FAULT_SECONDS)
    for figures in (clean, faulty):
        assert figures.completed == figures.submitted == PAIRS
        assert figures.dead_letters == 0
        assert figures.duplicated_rows == 0
    assert faulty.export and faulty.export == clean.export
