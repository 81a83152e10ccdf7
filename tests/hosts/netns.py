"""Hosts on one machine: Linux network namespaces joined to the root namespace by veth pairs.

The root namespace is the data host: Redis and PostgreSQL listen on addresses of its loopback
(``10.<n>.0.1``, ``10.<n>.0.2``), reached from every other host through its own veth pair
(``10.<n>.<k>.2`` inside the host, ``10.<n>.<k>.1`` on the root side, default route through
it). Faults a cluster sees:

- :meth:`Network.cut` / :meth:`Network.heal`: the host's link down / up (its root-side end;
  the host sees no carrier, packets both ways are dropped silently, nothing closes its TCP
  connections: a host cut off the network, not a killed process);
- :meth:`Network.block` / :meth:`Network.unblock`: a blackhole route in the host to one
  address (e.g. the gateway still answers clients but cannot reach Redis).

Needs root and iproute2 (``ip``). Names and the subnet are derived from the process id, so
test runs of several worktrees do not collide; :meth:`Network.close` removes everything.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field


def ip(*args: str) -> None:
    """Run ``ip <args>``; a failure raises with iproute2's message."""
    result = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {result.stderr.strip()}")


@dataclass(frozen=True)
class Host:
    name: str  # the network namespace
    link: str  # the root-side end of its veth pair
    address: str  # its address inside the namespace

    def exec_prefix(self) -> tuple[str, ...]:
        """The command prefix that runs a program on this host."""
        return ("ip", "netns", "exec", self.name)


@dataclass
class Network:
    """The data host's addresses and the hosts added with :meth:`add_host`."""

    tag: str = field(default_factory=lambda: f"pm{os.getpid() % 100_000}")
    octet: int = field(default_factory=lambda: 100 + os.getpid() % 100)
    hosts: dict[str, Host] = field(default_factory=dict)
    _addresses: list[str] = field(default_factory=list)

    @property
    def redis_address(self) -> str:
        return f"10.{self.octet}.0.1"

    @property
    def postgres_address(self) -> str:
        return f"10.{self.octet}.0.2"

    def open(self) -> None:
        """Put the data host's addresses on the root loopback; a blackhole for the rest of
        the subnet, so replies to a cut host are dropped here, not sent to the default route."""
        for address in (self.redis_address, self.postgres_address):
            ip("addr", "add", f"{address}/32", "dev", "lo")
            self._addresses.append(address)
        ip("route", "add", "blackhole", f"10.{self.octet}.0.0/16")

    def add_host(self, role: str) -> Host:
        number = len(self.hosts) + 1
        name = f"{self.tag}{role}"[:15]
        peer = f"{name[:13]}-p"
        host = Host(name, name, f"10.{self.octet}.{number}.2")
        self.hosts[role] = host
        ip("netns", "add", name)
        ip("link", "add", name, "type", "veth", "peer", "name", peer)
        ip("link", "set", peer, "netns", name)
        ip("-n", name, "link", "set", peer, "name", "eth0")
        ip("addr", "add", f"10.{self.octet}.{number}.1/24", "dev", name)
        ip("link", "set", name, "up")
        ip("-n", name, "addr", "add", f"{host.address}/24", "dev", "eth0")
        ip("-n", name, "link", "set", "lo", "up")
        ip("-n", name, "link", "set", "eth0", "up")
        ip("-n", name, "route", "add", "default", "via", f"10.{self.octet}.{number}.1")
        return host

    def cut(self, host: Host) -> None:
        ip("link", "set", host.link, "down")

    def heal(self, host: Host) -> None:
        ip("link", "set", host.link, "up")

    def block(self, host: Host, address: str) -> None:
        ip("-n", host.name, "route", "add", "blackhole", f"{address}/32")

    def unblock(self, host: Host, address: str) -> None:
        ip("-n", host.name, "route", "del", "blackhole", f"{address}/32")

    def close(self) -> None:
        """Remove the hosts (their veth pairs go with them) and the data host's addresses."""
        for host in self.hosts.values():
            subprocess.run(["ip", "netns", "del", host.name], capture_output=True, timeout=30)
        self.hosts.clear()
        subprocess.run(
            ["ip", "route", "del", "blackhole", f"10.{self.octet}.0.0/16"],
            capture_output=True,
            timeout=30,
        )
        for address in self._addresses:
            subprocess.run(
                ["ip", "addr", "del", f"{address}/32", "dev", "lo"], capture_output=True, timeout=30
            )
        self._addresses.clear()
