"""Recovery time across hosts: runs the network-namespace tests (``pytest -m hosts``) and
writes benchmarks/results/hosts.md from the times each case records: seconds from the cut to
the page pairs that were in flight at the cut being stored, and to the last pair stored.

The cases and the cluster's configuration are the tests' (tests/hosts/): a worker host cut off
and healed after 60 s, a worker host cut off for good, the gateway cut off from Redis for about
30 s while requests come in. The test configuration shortens the lease (visibility timeout
10 s, renewed every 2 s) and the hard time limit (25 s); the bound for production values is
computed from shared/config.py's defaults in the report.

Run (as root, with Redis and PostgreSQL as for the tests):
``.venv/bin/python -m benchmarks.system.hosts_recovery``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import REPO, notes, publish
from benchmarks.common import RESULTS as RESULTS_FOLDER
from shared.config import QueueSettings

RESULTS = RESULTS_FOLDER / "hosts.md"
GOAL = 300.0  # seconds from the cut to the last pair stored (issue 39)


def run_tests(timings: Path) -> int:
    """``pytest -m hosts`` with the timings file set; its exit status."""
    env = {**os.environ, "PARAMINE_HOSTS_TIMINGS": str(timings)}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-m",
        "hosts",
        "tests/hosts",
        "-p",
        "no:randomly",
    ]
    return subprocess.run(command, env=env, cwd=REPO, check=False).returncode


def production_bound(queue: QueueSettings) -> float:
    """Worst case, in seconds, from a worker host's cut to its message running elsewhere with
    the production defaults: its lease runs out (the last renewal came just before the cut),
    the next restore sweep puts it back, and the database ends the cut worker's open
    transaction (ended after the soft limit + 10 s idle) whose locks the rerun waits for;
    then the rerun itself, under the soft limit (a page pair that takes longer is retried or
    dead-lettered, not stored)."""
    lease = queue.visibility_timeout + queue.lease_renewal_interval + queue.restore_interval
    locks = queue.soft_time_limit + 10
    return max(lease, locks) + queue.soft_time_limit


def report(rows: list[dict[str, Any]], status: int, note: str) -> list[str]:
    queue = QueueSettings()
    bound = production_bound(queue)
    lines = [
        "# Recovery across hosts (network partitions)",
        "",
        "`python -m benchmarks.system.hosts_recovery`: the network-namespace tests (`pytest -m "
        "hosts`,"
        " tests/hosts/), each case's times as it recorded them." + (f" {note}" if note else ""),
        "",
        notes("cluster-the-data"),
        "",
        "| case | pairs | in flight at the cut | cut → those stored (s) |"
        " cut → every message held at the cut acked (s) |"
        f" cut → last pair stored (s) | goal < {GOAL:.0f} s |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        last = row["last_pair_stored"]
        verdict = "met" if last < GOAL else "**not met**"
        lines.append(
            f"| {row['case']} | {row['pairs']} | {row['in_flight_at_cut']} |"
            f" {row['in_flight_stored']:.1f} | {row['held_acked']:.1f} | {last:.1f} | {verdict} |"
        )
    lines += [
        "",
        f"pytest exit status: {status}"
        + (" (every case passed)." if status == 0 else " (**a case failed**)."),
        "",
        "## Bound with the production defaults",
        "",
        f"Lease {queue.visibility_timeout:g} s renewed every {queue.lease_renewal_interval:g} s,"
        f" restore sweep every {queue.restore_interval} s, soft limit {queue.soft_time_limit:g} s:"
        " a message held by a cut-off worker is back on its queue within"
        f" {queue.visibility_timeout + queue.lease_renewal_interval + queue.restore_interval:g} s"
        " of the cut; the transaction the cut worker left open is ended within"
        f" {queue.soft_time_limit + 10:g} s of its last statement; the rerun of a pair that is"
        " stored takes less than the soft limit. Worst case from the cut to the pair stored:"
        f" {bound:.0f} s (goal {GOAL:.0f} s), plus the wait behind any backlog. A message lost"
        f" with the link (popped, never recorded as unacked) is resent by the reconciler"
        f" {queue.reconcile_age:g}-{queue.reconcile_age + queue.reconcile_interval:g} s after"
        " it was sent.",
    ]
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--note", default="", help="a sentence for the report (e.g. the commit)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="paramine-hosts-") as tmp:
        timings = Path(tmp) / "timings.jsonl"
        status = run_tests(timings)
        text = timings.read_text() if timings.exists() else ""
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    publish(args.out, report(rows, status, args.note))
    if status:
        raise SystemExit(status)


if __name__ == "__main__":
    main()
