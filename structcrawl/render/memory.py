"""The browser's memory per page, bounded from the browser's side.

The egress proxy (:mod:`structcrawl.render.egress`) cuts responses on the wire, but a gzip
body inflates inside Chromium and a script can build a DOM of any size: what a page costs is
only seen in the memory of the renderer process that runs it. :class:`MemoryWatch` samples
the Chromium renderer processes under this process (``--type=renderer`` in their command
line, found in ``/proc``) every :data:`INTERVAL` seconds while pages are being rendered, and
kills (``SIGKILL``) a renderer past a bound: its own (``STRUCTCRAWL_BROWSER_PAGE_MEMORY``), or
the largest one when all renderers together (those killed but not yet gone included) pass
``STRUCTCRAWL_BROWSER_MEMORY``. Chromium survives a renderer's death; the page it ran
crashes, and the render handler ends that page with a ``too-large`` error record naming the
bound and the figure measured (:meth:`MemoryWatch.overrun_since`).

Memory is a process's PSS (``/proc/PID/smaps_rollup``: its private pages plus its share of the
pages it shares, the libraries above all), RSS where PSS cannot be read; summed over
processes, PSS is what they really hold, RSS counts a shared page once per process. PSS is
dear to read: the kernel walks the process's page tables under the lock of its memory map,
which a renderer allocating hundreds of MB a second holds often (reads took up to 0.2 s and
held the sampling up). So each renderer's PSS is read every :data:`REFRESH` seconds in a
thread of its own, and each sample estimates it from the renderer's anonymous RSS
(``/proc/PID/statm``: counters, read without that lock) plus what the PSS held besides it
when last read (its share of the libraries and shared memory; before its first read, the
most another renderer's held): what a page allocates (its heap, its DOM, a body
inflating) is anonymous memory, and counts fully in both. The sampling thread asks for a
higher priority (niceness :data:`_NICE`; granted with ``CAP_SYS_NICE``, as root): with the
browser keeping the cores busy, an ordinary thread was woken 0.1-0.4 s late.

The decision (:func:`judge`: samples and bounds in, the renderers to stop out) is pure; the
sampling reads ``/proc`` (Linux; elsewhere nothing is found and nothing bounded). No Scrapy
imports.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from structcrawl.core.procfs import ProcessTree, anon_bytes, pss_bytes, rss_bytes

__all__ = [
    "INTERVAL",
    "REFRESH",
    "MemoryWatch",
    "Overrun",
    "Sample",
    "judge",
    "read_renderers",
    "renderer_pids",
]

logger = logging.getLogger("structcrawl.render")

#: Seconds between two samples of the renderers' memory (RSS) while pages are rendered.
INTERVAL = 0.02
#: Seconds between two reads of each renderer's PSS (in a thread of their own).
REFRESH = 0.25
_MB = 1024 * 1024
#: The niceness asked for the sampling thread (only granted with CAP_SYS_NICE, as root): on
#: a machine whose cores the browser keeps busy, an ordinary thread waited 0.1-0.4 s.
_NICE = -10


@dataclass(frozen=True, slots=True)
class Sample:
    """One renderer process's memory now: ``pss`` bytes (RSS when PSS is not readable)."""

    pid: int
    pss: int


@dataclass(frozen=True, slots=True)
class Overrun:
    """A renderer stopped for its memory: which bound (``page``: its own, ``all``: every
    renderer's together), the bound and the figure measured (bytes), when (monotonic)."""

    pid: int
    bound: str
    limit: int
    measured: int
    at: float = 0.0

    def message(self) -> str:
        """The ``too-large`` error's text."""
        if self.bound == "page":
            return (
                f"the browser's renderer process of the page held {self.measured // _MB} MB, "
                f"over STRUCTCRAWL_BROWSER_PAGE_MEMORY ({self.limit // _MB} MB); stopped"
            )
        return (
            f"the browser's renderers held {self.measured // _MB} MB together, over "
            f"STRUCTCRAWL_BROWSER_MEMORY ({self.limit // _MB} MB); the page's, the largest, "
            "was stopped"
        )


def judge(
    samples: Iterable[Sample], page_limit: int, total_limit: int, dying: int = 0
) -> list[Overrun]:
    """The renderers to stop: each one over ``page_limit``; then, while the others together
    (with ``dying``: bytes still held by renderers stopped before, not yet gone) are still
    over ``total_limit``, the largest of them if it holds more than half of ``page_limit``
    (ordinary pages open together are not stopped for their number). A limit of 0: no bound.

    >>> judge([Sample(1, 300), Sample(2, 50)], page_limit=256, total_limit=0)
    [Overrun(pid=1, bound='page', limit=256, measured=300, at=0.0)]
    >>> judge([Sample(1, 200), Sample(2, 150), Sample(3, 100)], 256, 400)
    [Overrun(pid=1, bound='all', limit=400, measured=450, at=0.0)]
    >>> judge([Sample(n, 120) for n in range(4)], 256, 400)  # none over 128
    []
    >>> judge([Sample(1, 200), Sample(2, 150)], 256, 400), judge([Sample(1, 10**12)], 0, 0)
    ([], [])
    >>> judge([Sample(2, 150), Sample(3, 100)], 256, 400, dying=200)  # 1 is not gone yet
    [Overrun(pid=2, bound='all', limit=400, measured=450, at=0.0)]
    """
    kept: list[Sample] = []
    stopped: list[Overrun] = []
    for sample in samples:
        if page_limit and sample.pss > page_limit:
            stopped.append(Overrun(sample.pid, "page", page_limit, sample.pss))
        else:
            kept.append(sample)
    kept.sort(key=lambda s: s.pss, reverse=True)
    total = sum(s.pss for s in kept) + dying
    floor = page_limit // 2
    while total_limit and kept and total > total_limit and kept[0].pss > floor:
        largest = kept.pop(0)
        stopped.append(Overrun(largest.pid, "all", total_limit, total))
        total -= largest.pss
    return stopped


# -- /proc -----------------------------------------------------------------------------------


def _is_renderer(pid: int) -> bool | None:
    """Whether ``pid`` is a renderer; None while it may still become one (a renderer is
    forked from Chromium's zygote and carries the zygote's command line until it rewrites
    its own)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    if b"--type=renderer" in cmdline:
        return True
    return None if b"--type=zygote" in cmdline else False


def _memory(pid: int) -> int | None:
    """The process's PSS, else its RSS, else ``None`` (gone meanwhile)."""
    pss = pss_bytes(pid)
    return pss if pss is not None else rss_bytes(pid)


def renderer_pids(
    root: int, known: dict[int, bool] | None = None, tree: ProcessTree | None = None
) -> list[int]:
    """The pids of the Chromium renderer processes under ``root`` now. ``known`` caches
    whether a pid is a renderer (a process's command line does not change; the pids no
    longer under ``root`` are forgotten); ``tree`` keeps what was read of ``/proc`` from one
    call to the next."""
    pids = (tree or ProcessTree()).descendants(root)
    if known is not None:
        for gone in known.keys() - set(pids):
            del known[gone]
    found = []
    for pid in pids:
        renderer = known.get(pid) if known is not None else None
        if renderer is None:
            renderer = _is_renderer(pid)
            if known is not None and renderer is not None:
                known[pid] = renderer
        if renderer:
            found.append(pid)
    return found


def read_renderers(root: int, known: dict[int, bool] | None = None) -> list[Sample]:
    """The memory (PSS, else RSS) of every Chromium renderer process under ``root`` now."""
    return [
        Sample(pid, memory)
        for pid in renderer_pids(root, known)
        if (memory := _memory(pid)) is not None
    ]


# -- the watch -------------------------------------------------------------------------------


class MemoryWatch:
    """Samples the renderers while pages are rendered (between :meth:`begin` and :meth:`end`),
    in a thread of its own (a busy event loop does not delay it), and stops those
    :func:`judge` names; remembers the last overruns for the pages that crashed of them
    (:meth:`overrun_since`)."""

    def __init__(
        self,
        page_limit: int,
        total_limit: int,
        *,
        root: int | None = None,
        on_stop: Callable[[Overrun], None] | None = None,
        find: Callable[[int, dict[int, bool]], list[int]] | None = None,
        pss: Callable[[int], int | None] = _memory,
        anon: Callable[[int], int | None] = anon_bytes,
        kill: Callable[[int], None] | None = None,
        interval: float = INTERVAL,
        refresh: float = REFRESH,
    ) -> None:
        self.page_limit, self.total_limit = max(page_limit, 0), max(total_limit, 0)
        self.root = os.getpid() if root is None else root
        self.on_stop = on_stop
        tree = ProcessTree()
        self.find = find or (lambda root, known: renderer_pids(root, known, tree))
        self.pss, self.anon, self.kill = pss, anon, kill or _sigkill
        self.interval, self.refresh = interval, refresh
        self._pids: list[int] = []  # the renderers last sampled
        #: pid: what its PSS held besides its anonymous RSS when last read, bytes
        self._offset: dict[int, int] = {}
        self.overruns: deque[Overrun] = deque(maxlen=64)
        self.peak = 0  # the highest sum of the renderers' memory seen, bytes
        self.page_peak = 0  # the most one renderer held when sampled, bytes
        self._known: dict[int, bool] = {}
        self._stopped: set[int] = set()  # killed, perhaps not gone yet: not judged again
        self._active = 0
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()
        self._told = False

    @property
    def enabled(self) -> bool:
        return bool(self.page_limit or self.total_limit)

    def begin(self) -> float:
        """A page starts rendering; returns the time to ask :meth:`overrun_since` with."""
        if self.enabled and not self._told and not os.path.isdir(f"/proc/{self.root}"):
            self._told = True  # not Linux: nothing to sample, said once
            logger.warning("browser memory: no /proc here, the browser's pages are not bounded")
        with self._lock:
            self._active += 1
            if self.enabled and self._thread is None and not self._closed.is_set():
                self._thread = threading.Thread(
                    target=self._run, name="structcrawl-browser-memory", daemon=True
                )
                self._thread.start()
                threading.Thread(
                    target=self._run_pss, name="structcrawl-browser-pss", daemon=True
                ).start()
        return time.monotonic()

    def end(self) -> None:
        with self._lock:
            self._active = max(self._active - 1, 0)

    def overrun_since(self, started: float) -> Overrun | None:
        """The last renderer stopped since ``started`` (a page that crashed since then)."""
        return next((o for o in reversed(self.overruns) if o.at >= started), None)

    def sample(self) -> list[Sample]:
        """Every renderer's memory now, estimated: its anonymous RSS now plus what its PSS
        held besides when last read (:meth:`read_pss`; before its first read, the most that
        another renderer's did)."""
        samples = []
        pids = self.find(self.root, self._known)
        offset = self._offset
        unread = max(offset.values(), default=0)  # they all map the same libraries
        for pid in pids:
            anon = self.anon(pid)
            if anon is not None:  # else gone, or a zombie
                samples.append(Sample(pid, max(anon + offset.get(pid, unread), 0)))
        self._pids = pids
        return samples

    def read_pss(self) -> None:
        """Read the PSS of each renderer last sampled (slow for a large process: done apart
        from the sampling), keeping what it holds besides its anonymous RSS."""
        pids = list(self._pids)
        offset = {pid: self._offset[pid] for pid in pids if pid in self._offset}  # if unread
        for pid in pids:
            before = self.anon(pid)
            pss = self.pss(pid) if before is not None else None
            after = self.anon(pid)
            if pss is not None and before is not None and after is not None:
                offset[pid] = pss - (before + after) // 2  # it may grow while read
        self._offset = offset

    def check(self) -> list[Overrun]:
        """Sample once and stop the renderers over a bound; the overruns."""
        samples = self.sample()
        self.peak = max(self.peak, sum(s.pss for s in samples))
        self.page_peak = max([self.page_peak, *(s.pss for s in samples)])
        self._stopped &= {s.pid for s in samples}
        live = [s for s in samples if s.pid not in self._stopped]
        dying = sum(s.pss for s in samples if s.pid in self._stopped)
        stopped = []
        for overrun in judge(live, self.page_limit, self.total_limit, dying):
            overrun = Overrun(
                overrun.pid, overrun.bound, overrun.limit, overrun.measured, time.monotonic()
            )
            self.overruns.append(overrun)  # before the kill: its page's crash may be quick
            try:
                self.kill(overrun.pid)
            except OSError:  # gone meanwhile
                self.overruns.remove(overrun)
                continue
            self._stopped.add(overrun.pid)
            stopped.append(overrun)
            logger.warning("browser memory: %s (pid %d)", overrun.message(), overrun.pid)
            if self.on_stop is not None:
                self.on_stop(overrun)
        return stopped

    def _run(self) -> None:
        with contextlib.suppress(OSError, AttributeError):  # not permitted: as it is
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), _NICE)
        while not self._closed.is_set():
            with self._lock:
                if self._active <= 0:
                    self._thread = None
                    return
            try:
                self.check()
            except Exception:  # never let sampling break a render
                logger.exception("browser memory: sampling failed")
            self._closed.wait(self.interval)

    def _run_pss(self) -> None:
        thread = self._thread
        while not self._closed.is_set() and thread is not None and thread.is_alive():
            try:
                self.read_pss()
            except Exception:  # never let sampling break a render
                logger.exception("browser memory: reading PSS failed")
            self._closed.wait(self.refresh)

    def close(self) -> None:
        self._closed.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout=5)


def _sigkill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
