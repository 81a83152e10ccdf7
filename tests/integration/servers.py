"""Servers the fault tests run privately: a redis-server (AOF, restartable on its port) and a
TCP forwarder that can be cut, each bound to loopback or to a given address (the data host's
address in the network-namespace tests)."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import threading
import time
from pathlib import Path

import redis

from tests.integration.conftest import unavailable
from tests.integration.processes import free_port


class TcpProxy:
    """A loopback TCP forwarder that can be cut (existing connections closed, new ones refused)."""

    def __init__(self, target_port: int, hosts: tuple[str, ...] = ("127.0.0.1",)) -> None:
        self.target_port = target_port
        self.hosts = hosts
        self.port = free_port()
        self.open = True
        self.accepted_while_cut = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._handle, list(self.hosts), self.port)
        )
        self._ready.set()
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.open:
            self.accepted_while_cut += 1
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65_536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()

    def cut(self) -> None:
        self.open = False

        def close_all() -> None:
            for writer in list(self._writers):
                writer.close()
            self._writers.clear()

        self._loop.call_soon_threadsafe(close_all)

    def restore(self) -> None:
        self.open = True

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._server.close)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


class RedisServer:
    """A private redis-server with AOF in a temp directory, restartable on the same port."""

    def __init__(self, directory: Path, host: str = "127.0.0.1") -> None:
        if shutil.which("redis-server") is None:
            unavailable("redis-server", FileNotFoundError("not on PATH"))
        self.directory = directory
        self.host = host
        self.port = free_port()
        self.url = f"redis://{host}:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        log = (self.directory / "redis.log").open("ab")
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", self.host, "--appendonly", "yes",
             "--appendfsync", "always", "--save", "", "--dir", str(self.directory),
             # no password: an address of the namespace tests' data host is not loopback
             "--protected-mode", "yes" if self.host == "127.0.0.1" else "no"],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if client.ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.1)
        raise TimeoutError("private redis-server did not start")

    def shutdown(self) -> None:
        """SHUTDOWN (AOF is fsynced on every write), then wait for the process to exit."""
        with contextlib.suppress(redis.ConnectionError):
            redis.Redis.from_url(self.url).shutdown(nosave=False)
        if self.process is not None:
            self.process.wait(20)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(20)
