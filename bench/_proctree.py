"""Peak memory of a process tree (the process and all its descendants: a browser and its
driver included), sampled from /proc while the process runs. Linux only (read by :mod:`structcrawl.core.procfs`).

Two figures: the sum of RSS over the tree (pages shared between processes, such as
Chromium's libraries and its shared memory, counted once in every process that maps them,
so it overstates what the machine lost), and the sum of PSS (``/proc/PID/smaps_rollup``:
each shared page divided among the processes that map it, so the sum is what the tree
really holds)."""

from __future__ import annotations

import threading

from structcrawl.core.procfs import descendants, pss_bytes, rss_bytes

__all__ = ["TreeSampler", "tree_memory", "tree_rss"]


def _tree(pid: int) -> list[int]:
    return [pid, *descendants(pid)]


def _rss(pid: int) -> int:
    return rss_bytes(pid) or 0


def _pss(pid: int) -> int:
    return pss_bytes(pid) or 0


def tree_rss(pid: int) -> int:
    """Bytes of resident memory summed over ``pid`` and its descendants now."""
    return sum(_rss(p) for p in _tree(pid))


def tree_memory(pid: int) -> tuple[int, int]:
    """``(summed RSS, summed PSS)`` in bytes over ``pid`` and its descendants now."""
    pids = _tree(pid)
    return sum(_rss(p) for p in pids), sum(_pss(p) for p in pids)


class TreeSampler:
    """Samples :func:`tree_memory` of ``pid`` every ``interval`` seconds in a thread:
    ``peak`` (the highest summed RSS) and ``peak_pss`` (the highest summed PSS)."""

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        self.pid, self.interval, self.peak, self.peak_pss = pid, interval, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            rss, pss = tree_memory(self.pid)
            self.peak, self.peak_pss = max(self.peak, rss), max(self.peak_pss, pss)
            self._stop.wait(self.interval)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
