"""Peak memory of a process tree (the process and all its descendants: a browser and its
driver included), sampled from /proc while the process runs. Linux only (read by :mod:`structcrawl.core.procfs`).

Two figures: the sum of RSS over the tree (pages shared between processes, such as
Chromium's libraries and its shared memory, counted once in every process that maps them,
so it overstates what the machine lost), and the sum of PSS (``/proc/PID/smaps_rollup``:
each shared page divided among the processes that map it, so the sum is what the tree
really holds). Asked for (``detail``), the PSS at the tree's peak is also kept by kind of
process (:func:`kind`: ``python``, ``node``, ``browser``, ``renderer``, ``gpu-process``, ...),
and the Chromium processes running outside the tree are counted. The sampling thread
(:class:`Periodic`) is also that of the CPU by role (``bench/bench_cores.py``)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Self

from structcrawl.core.procfs import descendants, pss_bytes, rss_bytes

__all__ = ["Periodic", "TreeSampler", "kind"]

_BROWSERS = (b"chromium\n", b"chrome\n", b"headless_shell\n")


def _tree(pid: int) -> list[int]:
    return [pid, *descendants(pid)]


def _rss(pid: int) -> int:
    return rss_bytes(pid) or 0


def _pss(pid: int) -> int:
    return pss_bytes(pid) or 0


def kind(pid: int) -> str:
    """What the process is: Chromium's ``--type=`` (``renderer``, ``gpu-process``,
    ``utility:NetworkService``, ``zygote``), ``browser`` for Chromium's main process, else its program's
    name (``python``, ``node``)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "gone"
    # Chromium's children rewrite their command line as one string: split on spaces too
    args = cmdline.replace(b"\0", b" ").split()
    found = dict(arg.split(b"=", 1) for arg in args if arg.startswith(b"--") and b"=" in arg)
    if b"--type" in found:
        sub = found.get(b"--utility-sub-type", b"").rsplit(b".", 1)[-1]  # NetworkService
        name = found[b"--type"] + (b":" + sub if sub else b"")
        return name.decode(errors="replace")
    program = Path(args[0].decode(errors="replace")).name if args and args[0] else "?"
    if "chrom" in program:
        return "browser"
    return "python" if program.startswith("python") else program


class Periodic:
    """Calls :meth:`_sample` every ``interval`` seconds in a thread while its ``with`` block
    runs, and once more as the block ends: the thread :class:`TreeSampler` and the core
    sampler of ``bench/bench_cores.py`` share."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        raise NotImplementedError

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)
        self._sample()

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class TreeSampler(Periodic):
    """Samples the memory of ``pid`` and its descendants every ``interval`` seconds in a
    thread: ``peak`` (the highest summed RSS), ``peak_pss`` (the highest summed PSS) and, with
    ``detail`` (each sample then reads every process's command line and scans all of
    ``/proc``: work the crawls measured without it do not compete with), ``at_peak`` (PSS
    by :func:`kind` in the sample of ``peak_pss``), ``others`` (the most Chromium processes
    seen running outside the tree)."""

    def __init__(self, pid: int, interval: float = 0.1, *, detail: bool = False) -> None:
        super().__init__(interval)
        self.pid, self.peak, self.peak_pss = pid, 0, 0
        self.detail = detail
        self.at_peak: dict[str, int] = {}
        self.count_at_peak: dict[str, int] = {}  # processes by kind in that sample
        self.others = 0  # the most Chromium processes seen outside the tree at once
        self._mine: set[int] = set()

    def _others(self, tree: list[int]) -> int:
        """Chromium processes on the machine outside the tree: they map the same libraries,
        so the tree's PSS reads lower while they run."""
        self._mine.update(tree)  # orphaned as the tree ends: still the tree's
        count = 0
        for pid in descendants(1):
            if pid not in self._mine:
                try:
                    # not chrome_crashpad_handler: the tree's own browser double-forks it
                    count += Path(f"/proc/{pid}/comm").read_bytes() in _BROWSERS
                except OSError:
                    pass
        return count

    def _sample(self) -> None:
        rss = pss = 0
        by_kind: dict[str, int] = {}
        count: dict[str, int] = {}
        tree = _tree(self.pid)
        if self.detail:
            self.others = max(self.others, self._others(tree))
        for pid in tree:
            rss += _rss(pid)
            size = _pss(pid)
            pss += size
            if self.detail:
                name = kind(pid)  # read each time: a child is its parent until its exec
                by_kind[name] = by_kind.get(name, 0) + size
                count[name] = count.get(name, 0) + 1
        self.peak = max(self.peak, rss)
        if pss > self.peak_pss:
            self.peak_pss, self.at_peak, self.count_at_peak = pss, by_kind, count
