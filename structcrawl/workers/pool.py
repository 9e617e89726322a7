"""The crawl's side of its worker processes: up to ``size`` children running
``python -m structcrawl.workers.serve``, started as work comes. Requests are asked from the
event loop and never block it: each child has a writer thread that sends it the requests in
order and a reader thread that hands the answers back to the loop in the same order, so a
child always has its next request waiting while it works on one (it does not idle while the
loop is busy with a page).

A child that ends without answering (killed, out of memory) fails every request it holds with
:class:`WorkerGone` and is not used again. A child ends when its input is closed
(:meth:`WorkerPool.close`) or when the crawl's process dies (the input's only writer), so no
worker outlives its crawl.
"""

from __future__ import annotations

import asyncio
import os
import queue
import subprocess
import sys
import threading
from collections import deque
from pathlib import Path
from typing import IO, Any, cast

from structcrawl.core.jsontext import loads_any
from structcrawl.workers.serve import read_frame, request, write_frame

__all__ = ["WorkerError", "WorkerGone", "WorkerPool"]

#: where the structcrawl package the crawl runs is found (the children import the same one)
_SOURCE = str(Path(__file__).resolve().parents[2])


class WorkerGone(Exception):
    """A worker process ended without answering."""


class WorkerError(Exception):
    """A worker's function raised (the worker goes on; its message is the function's error)."""


class _Worker:
    def __init__(self, module: str, loop: asyncio.AbstractEventLoop, env: dict[str, str]) -> None:
        env = {**os.environ, **env}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_SOURCE, env.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        self.loop = loop
        #: the futures of the requests asked, in order, until the loop takes their answers
        self.pending: deque[asyncio.Future[bytes]] = deque()
        #: requests asked and answers read, each counted by one thread only (the loop's, the
        #: reader's): :attr:`holds`
        self.asked = 0
        self.read = 0
        self.gone: str | None = None
        self._outbox: queue.SimpleQueue[tuple[bytes, ...] | None] = queue.SimpleQueue()
        for target in (self._write, self._read):
            threading.Thread(target=target, name=f"worker-{self.proc.pid}", daemon=True).start()

    def ask(self, data: tuple[bytes, ...]) -> asyncio.Future[bytes]:
        """The answer to the frame of ``data``'s parts, to come (called on the event loop)."""
        future: asyncio.Future[bytes] = self.loop.create_future()
        if self.gone is not None:
            future.set_exception(WorkerGone(self.gone))
            return future
        self.pending.append(future)
        self.asked += 1
        self._outbox.put(data)
        return future

    def _write(self) -> None:
        stdin = cast(IO[bytes], self.proc.stdin)
        while (data := self._outbox.get()) is not None:
            try:
                write_frame(stdin, *data)  # type: ignore[arg-type]
            except OSError:  # it is gone: the reader sees its output end
                break
        try:
            stdin.close()
        except OSError:
            pass

    def _read(self) -> None:
        stdout = cast(IO[bytes], self.proc.stdout)
        while (answer := read_frame(stdout)) is not None:  # type: ignore[arg-type]
            self.read += 1
            if not self._to_loop(self._answered, answer):
                return
        self._to_loop(self._ended, b"")

    @property
    def holds(self) -> int:
        """The requests it has not answered yet. ``pending`` also holds the answers read and
        not yet taken by the loop, which wait there while the loop is busy (a page read in
        process): counted as the child's work, they had the crawl read more pages itself
        while the child ran out of work. 0 once it ended (its requests are failed)."""
        return 0 if self.gone is not None else self.asked - self.read

    def _to_loop(self, callback: Any, answer: bytes) -> bool:
        try:
            self.loop.call_soon_threadsafe(callback, answer)
        except RuntimeError:  # the loop is closed: nobody waits any more
            return False
        return True

    def _answered(self, answer: bytes) -> None:
        future = self.pending.popleft()
        if not future.done():  # not cancelled meanwhile
            future.set_result(answer)

    def _ended(self, _: bytes) -> None:
        self.gone = f"worker {self.proc.pid} ended without answering (exit {self.proc.poll()})"
        while self.pending:
            future = self.pending.popleft()
            if not future.done():
                future.set_exception(WorkerGone(self.gone))

    def close(self, timeout: float = 5.0) -> None:
        """Close its input (it answers what it holds, then ends); killed after ``timeout``."""
        self._outbox.put(None)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class WorkerPool:
    """Up to ``size`` worker processes running ``module`` (see the module doc)."""

    def __init__(
        self,
        size: int,
        module: str = "structcrawl.workers.serve",
        env: dict[str, str] | None = None,
    ) -> None:
        self.size = max(size, 1)
        self.module = module
        self.env = dict(env or {})  # added to the crawl's environment for each child
        self.workers: list[_Worker] = []  # every child started and not gone
        self.lost = 0  # children that ended without answering

    async def ask(self, call: str, args: list[Any], data: bytes) -> Any:
        """What a child's ``call`` (``"module:function"``) returns for ``data`` and ``args``
        (:mod:`structcrawl.workers.serve`): :class:`WorkerError` where it raised,
        :class:`WorkerGone` where the child ended without answering."""
        worker = self._least_busy()
        try:
            answer = await worker.ask(request(call, args, data))
        except WorkerGone:
            self._drop(worker)
            raise
        ok, result = loads_any(answer)
        if not ok:
            raise WorkerError(result)
        return result

    def waiting(self) -> int:
        """Requests not answered yet, over every child (:attr:`_Worker.holds`)."""
        return sum(w.holds for w in self.workers)

    def _least_busy(self) -> _Worker:
        for gone in [w for w in self.workers if w.gone is not None]:
            self._drop(gone)
        live = self.workers
        idle = [w for w in live if not w.holds]
        if idle or len(live) >= self.size:
            return min(idle or live, key=lambda w: w.holds)
        worker = _Worker(self.module, asyncio.get_running_loop(), self.env)
        self.workers.append(worker)
        return worker

    def _drop(self, worker: _Worker) -> None:
        if worker in self.workers:
            self.workers.remove(worker)
            self.lost += 1
            worker.close(timeout=0.5)

    def close(self) -> None:
        """Stop every child (its input closed; killed if it does not end in 5 s)."""
        workers, self.workers = self.workers, []
        for worker in workers:
            worker.close()
