"""The crawl's side of its worker processes: up to ``size`` children running
``python -m structcrawl.workers.serve``, started as work comes, each answering one request at
a time. A request is asked from the event loop; the blocking exchange with the child runs in a
thread meanwhile, so the loop goes on with other pages.

A child that ends without answering (killed, out of memory) fails its request with
:class:`WorkerGone` and is not used again. A child ends when its input is closed
(:meth:`WorkerPool.close`) or when the crawl's process dies (the input's only writer), so no
worker outlives its crawl.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from structcrawl.workers.serve import read_frame, write_frame

__all__ = ["WorkerGone", "WorkerPool"]

#: where the structcrawl package the crawl runs is found (the children import the same one)
_SOURCE = str(Path(__file__).resolve().parents[2])


class WorkerGone(Exception):
    """A worker process ended without answering."""


class _Worker:
    def __init__(self, module: str) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_SOURCE, env.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )

    def ask(self, data: bytes) -> bytes:
        stdin: IO[bytes] = self.proc.stdin  # type: ignore[assignment]
        stdout: IO[bytes] = self.proc.stdout  # type: ignore[assignment]
        try:
            write_frame(stdin, data)  # type: ignore[arg-type]
        except OSError as exc:  # BrokenPipeError: it is gone
            raise WorkerGone(f"worker {self.proc.pid} is gone ({exc})") from exc
        answer = read_frame(stdout)  # type: ignore[arg-type]
        if answer is None:
            code = self.proc.poll()
            raise WorkerGone(f"worker {self.proc.pid} ended without answering (exit {code})")
        return answer

    def close(self, timeout: float = 5.0) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class WorkerPool:
    """Up to ``size`` worker processes running ``module`` (see the module doc)."""

    def __init__(self, size: int, module: str = "structcrawl.workers.serve") -> None:
        self.size = max(size, 1)
        self.module = module
        self.workers: list[_Worker] = []  # every child started and not failed
        self._idle: asyncio.Queue[_Worker] | None = None

    async def ask(self, request: Any) -> Any:
        """A child's answer to ``request`` (JSON both ways)."""
        data = json.dumps(request).encode()
        worker = await self._take()
        try:
            answer = await asyncio.to_thread(worker.ask, data)
        except BaseException:  # failed, or cancelled mid-exchange: not used again
            self.workers.remove(worker)
            worker.close(timeout=0.5)
            raise
        assert self._idle is not None
        self._idle.put_nowait(worker)
        return json.loads(answer)

    async def _take(self) -> _Worker:
        if self._idle is None:
            self._idle = asyncio.Queue()
        if self._idle.empty() and len(self.workers) < self.size:
            worker = _Worker(self.module)
            self.workers.append(worker)
            return worker
        return await self._idle.get()

    def close(self) -> None:
        """Stop every child (its input closed; killed if it does not end in 5 s)."""
        workers, self.workers = self.workers, []
        for worker in workers:
            worker.close()
