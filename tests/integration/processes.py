"""Real paramine processes on loopback: free ports, start/stop, readiness checks.

Shared by the integration and chaos tests and by ``benchmarks.system.pipeline_load``. Readiness is
asked of the process itself (an HTTP answer, the worker's ``paramine_worker_ready`` gauge),
never assumed after a sleep; every wait is bounded and fails early when the process exits.
"""

from __future__ import annotations

import os
import random
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
PARAMINE = str(Path(sys.executable).with_name("paramine"))
# A cold worker compiles its numba kernels before it consumes (about a minute per stage on a
# busy 2-core machine when the cache is empty, e.g. in a fresh clone).
WORKER_READY_SECONDS = 300.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening_port(taken: set[int]) -> int:
    """A port below the kernel's ephemeral range, free here and not in ``taken`` (added to
    it), for a server in a network namespace: there the namespace's own outgoing
    connections take ephemeral ports, so a :func:`free_port` of this namespace could be
    in use by a client socket in that one ("Address already in use")."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.Random()
    while True:
        port = rng.randrange(max(1024, low - 12000), low)
        if port in taken:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("0.0.0.0", port))
            except OSError:
                continue
        taken.add(port)
        return port


def start_paramine(
    args: list[str], env: dict[str, str], log: Path, prefix: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    """``paramine <args>`` in its own session (so kill -9 of the group takes its children);
    ``prefix`` runs it through another command that execs it (``ip netns exec <host>``)."""
    handle = log.open("wb")
    return subprocess.Popen(
        [*prefix, PARAMINE, *args],
        env=env,
        stdout=handle,
        stderr=subprocess.STDOUT,
        cwd=REPO,
        start_new_session=True,
    )


def stop(process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """SIGTERM (warm shutdown), then kill -9 of the process group if it lingers."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait(5)


def _poll(
    url: str, ok: object, timeout: float, process: subprocess.Popen[bytes] | None, what: str
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process for {url} exited with {process.returncode}")
        try:
            response = httpx.get(url, timeout=2)
            if response.status_code < 500 and ok(response):  # type: ignore[operator]
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} {what} within {timeout} s")


def wait_for_http(
    url: str, timeout: float = 60.0, process: subprocess.Popen[bytes] | None = None
) -> None:
    """Until ``url`` answers with a status below 500."""
    _poll(url, lambda _response: True, timeout, process, "did not answer")


def wait_for_worker_ready(
    metrics_url: str,
    stage: str,
    process: subprocess.Popen[bytes] | None = None,
    timeout: float = WORKER_READY_SECONDS,
) -> None:
    """Until the worker's /metrics shows ``paramine_worker_ready{stage}`` 1: warmed up and
    consuming its queue (its metrics endpoint answers earlier, during the warm-up)."""
    pattern = re.compile(rf'^paramine_worker_ready\{{[^}}]*stage="{stage}"[^}}]*\}} 1\.0$', re.M)
    _poll(
        metrics_url,
        lambda response: pattern.search(response.text) is not None,
        timeout,
        process,
        "did not report the worker ready",
    )
