"""Redis for the frontier benchmark: its own server on 127.0.0.1, memory sampling, and what
is left in a crawl's frontier."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from structcrawl.distributed.config import CrawlKeys
from structcrawl.distributed.frontier import unpack

__all__ = ["Memory", "frontier_memory", "redis_server", "remaining"]


@contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """A redis-server of our own on 127.0.0.1 (a free port, no persistence, stopped by PID)."""
    exe = shutil.which("redis-server")
    if exe is None:
        raise SystemExit("redis-server is not installed: make redis")
    directory.mkdir(parents=True, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            exe,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
            "--protected-mode",
            "yes",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        for _ in range(400):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        client.close()
        yield url
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


class Memory:
    """``used_memory`` now, and sampled every second between :meth:`start` and :meth:`stop`."""

    def __init__(self, client: redis.Redis):
        self.client = client
        self.base = self.used()
        self.samples: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def used(self) -> int:
        return int(self.client.info("memory")["used_memory"])

    def per_url(self, urls: int) -> float:
        return (self.used() - self.base) / max(urls, 1)

    @property
    def peak(self) -> int:
        return max(self.samples, default=self.used())

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(1.0):
            self.samples.append(self.used())


def _host_lists(client: redis.Redis, keys: CrawlKeys) -> Iterator[bytes]:
    yield from client.scan_iter(match=keys.base + "q:*", count=1000)


def frontier_memory(client: redis.Redis, keys: CrawlKeys) -> int:
    """Bytes of the host frontier: its per-host lists and its shared keys."""
    total = 0
    for key in [*_host_lists(client, keys), keys.queued, *keys.frontier]:
        total += client.memory_usage(key, samples=0) or 0
    return total


def remaining(client: redis.Redis, keys: CrawlKeys) -> set[str]:
    """``"h<i> <page>"`` of every URL still queued or claimed."""
    origins = {k.decode(): v for k, v in client.hgetall(keys.base + "origins").items()}
    out: set[str] = set()

    def add(url: str) -> None:
        host = url.split("/")[2].split(".")[0]
        out.add(f"{host} {url.rsplit('/', 1)[1]}")

    for key in _host_lists(client, keys):
        host = key.decode()[len(keys.base) + 2 :]
        for entry in client.lrange(key, 0, -1):
            add(unpack(entry, origins.get(host, b""))["url"])
    for key in client.scan_iter(match=keys.claims_prefix + "*", count=1000):
        for field in client.hkeys(key):
            host, _, entry = field.decode().partition(" ")
            if entry and not host.startswith("!"):  # "#<host>": the slots it holds
                add(unpack(entry, origins.get(host, b""))["url"])
    return out
