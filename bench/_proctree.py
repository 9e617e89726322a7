"""Peak RSS of a process tree (the process and all its descendants: a browser and its driver
included), sampled from /proc while the process runs. Linux only; no dependency."""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["TreeSampler", "tree_rss"]

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    return children


def tree_rss(pid: int) -> int:
    """Bytes of resident memory summed over ``pid`` and its descendants now."""
    children = _children_map()
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            resident = int(Path(f"/proc/{current}/statm").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
        total += resident * _PAGE
        todo.extend(children.get(current, ()))
    return total


class TreeSampler:
    """Samples :func:`tree_rss` of ``pid`` every ``interval`` seconds in a thread; ``peak``."""

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        self.pid, self.interval, self.peak = pid, interval, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss(self.pid))
            self._stop.wait(self.interval)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
