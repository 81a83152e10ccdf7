"""A cluster across hosts (network namespaces, tests/hosts/netns.py): the data host (the root
namespace: a private redis-server and a TCP forwarder to the machine's PostgreSQL, both bound to
the data host's own addresses), a gateway host and two worker hosts, each worker host running a
tree_align and a sentence_align worker.

PostgreSQL is reached through the forwarder (tests/integration/servers.py) rather than a
private cluster or socat: the machine's server listens on 127.0.0.1 only, and the forwarder is
what the chaos tests already use, so CI needs no other package than iproute2.

Test configuration (production values in shared/config.py): visibility timeout (the lease)
10 s renewed every 2 s, restore sweep every 2 s, broker socket timeout and health checks 3 s,
reconciler every 2 s for pairs sent more than 10 s ago, soft/hard limits 20/25 s. Each test
starts from every link up and every worker running (:meth:`HostsCluster.ensure_up`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.chaos.conftest import ALIGNMENT_STAGES, ChaosCluster, cluster_env, postgres_database
from tests.hosts.netns import Host, Network
from tests.integration.conftest import unavailable
from tests.integration.processes import (
    REPO,
    listening_port,
    start_paramine,
    stop,
    wait_for_http,
    wait_for_worker_ready,
)
from tests.integration.servers import RedisServer, TcpProxy

WORKER_HOSTS = ("w1", "w2")
LEASE = 10.0  # visibility timeout: a message not renewed this long is restored
API_KEY = "hosts-ingest-key"


@dataclass
class HostsCluster(ChaosCluster):
    """The chaos cluster's services (Redis, the PostgreSQL forwarder, the environment), its
    workers keyed ``<host>/<stage>`` on the worker hosts, and a gateway on its own host."""

    network: Network = field(default_factory=Network)
    gateway: str = ""
    log_files: dict[str, Path] = field(default_factory=dict)
    ports: set[int] = field(default_factory=set)  # listening ports handed out

    def host(self, role: str) -> Host:
        return self.network.hosts[role]

    def start_on(self, role: str, stage: str) -> None:
        host = self.host(role)
        self.starts += 1
        port = listening_port(self.ports)
        metrics_dir = self.logs / f"metrics-{role}-{stage}-{self.starts}"
        metrics_dir.mkdir()
        key = f"{role}/{stage}"
        args = ["worker", "--stage", stage, "--concurrency", "1"]
        args += ["--metrics-host", "0.0.0.0", "--metrics-port", str(port)]
        self.log_files[key] = self.logs / f"{role}-{stage}-{self.starts}.log"
        self.processes[key] = start_paramine(
            args,
            {**self.env, "PARAMINE_METRICS_DIR": str(metrics_dir)},
            self.log_files[key],
            prefix=host.exec_prefix(),
        )
        self.metrics[key] = f"http://{host.address}:{port}/metrics"

    def wait_ready(self, role: str, stage: str) -> None:
        key = f"{role}/{stage}"
        wait_for_worker_ready(self.metrics[key], stage, self.processes[key])

    def workers_on(self, role: str) -> list[str]:
        return [key for key in self.processes if key.startswith(f"{role}/")]

    def kill_host(self, role: str) -> None:
        """The host is gone: kill -9 its workers (their messages stay unacked in Redis)."""
        for key in self.workers_on(role):
            process = self.processes[key]
            if process.poll() is None:
                os.killpg(process.pid, 9)
                process.wait(10)

    def ensure_up(self) -> None:
        """Every link up, no route blocked, every worker running and consuming."""
        for host in self.network.hosts.values():
            self.network.heal(host)
            subprocess.run(
                ["ip", "-n", host.name, "route", "del", "blackhole", self.network.redis_address],
                capture_output=True,
                timeout=30,
            )
        started = []
        for role in WORKER_HOSTS:
            for stage in ALIGNMENT_STAGES:
                process = self.processes.get(f"{role}/{stage}")
                if process is None or process.poll() is not None:
                    self.start_on(role, stage)
                    started.append((role, stage))
        for role, stage in started:
            self.wait_ready(role, stage)
        wait_for_http(f"{self.gateway}/healthz", process=self.processes["gateway"])


def _require_namespaces() -> None:
    if os.geteuid() != 0 or shutil.which("ip") is None:
        unavailable("network namespaces (root and iproute2)", PermissionError("not root or no ip"))


@pytest.fixture
def cluster(hosts_cluster: HostsCluster) -> HostsCluster:
    """The hosts cluster with every link up and every worker running."""
    hosts_cluster.ensure_up()
    return hosts_cluster


@pytest.fixture(scope="package")
def hosts_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostsCluster]:
    from services.cli.worker_process import warm_up
    from shared.store import Store

    _require_namespaces()
    logs = tmp_path_factory.mktemp("hosts")
    network = Network()
    network.open()
    database = postgres_database()
    database_started = False
    server: RedisServer | None = None
    proxy: TcpProxy | None = None
    cluster: HostsCluster | None = None
    try:
        for role in ("gw", *WORKER_HOSTS):
            network.add_host(role)
        server = RedisServer(logs, host=network.redis_address)
        database_url, pg_port = next(database)
        database_started = True
        schema_store = Store(database_url)
        schema_store.ensure_schema()
        schema_store.engine.dispose()
        proxy = TcpProxy(pg_port, hosts=(network.postgres_address,))
        host_url = database_url.replace(
            f"127.0.0.1:{pg_port}/", f"{network.postgres_address}:{proxy.port}/"
        )
        assert host_url != database_url, "the PostgreSQL URL must name 127.0.0.1 and its port"
        env = cluster_env(
            server.url,
            host_url,
            API_KEY=API_KEY,
            QUEUE__VISIBILITY_TIMEOUT=str(LEASE),
            QUEUE__LEASE_RENEWAL_INTERVAL="2",
            QUEUE__BROKER_SOCKET_TIMEOUT="3",
            QUEUE__BROKER_HEALTH_CHECK_INTERVAL="3",
            GATEWAY_PUBLISH_PATIENCE="5",
        )
        cluster = HostsCluster(server, proxy, database_url, env, logs, network=network)
        warm_up("tree_align")  # compiles (or loads) every kernel both alignment stages run
        gateway = network.hosts["gw"]
        port = listening_port(cluster.ports)
        gateway_dir = logs / "metrics-gateway"
        gateway_dir.mkdir()
        cluster.processes["gateway"] = start_paramine(
            ["serve", "--host", "0.0.0.0", "--port", str(port)],
            {**env, "PARAMINE_METRICS_DIR": str(gateway_dir)},
            logs / "gateway.log",
            prefix=gateway.exec_prefix(),
        )
        cluster.gateway = f"http://{gateway.address}:{port}"
        cluster.ensure_up()
        yield cluster
    finally:
        if cluster is not None:
            for process in cluster.processes.values():
                stop(process)
        if proxy is not None:
            proxy.close()
        if server is not None:
            server.stop()
        from tests.chaos.jobs import close_stores

        close_stores()
        if database_started:
            next(database, None)
        network.close()
        if os.environ.get("PARAMINE_KEEP_LOGS"):
            shutil.copytree(logs, REPO / "var" / "hosts-logs", dirs_exist_ok=True)
