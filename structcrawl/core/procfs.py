"""A process tree's members and memory, read from ``/proc`` (Linux; pure reads, no
dependency): what the browser's memory bound (:mod:`structcrawl.render.memory`) and the
benchmarks' memory figures (``bench/_proctree.py``) both read.

A process may end while it is read: each reader then says nothing of it (``None``, or it is
left out of the tree) rather than fail.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["ProcessTree", "anon_bytes", "descendants", "pss_bytes", "rss_bytes"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _ppid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        return int(text[text.rindex(b")") + 2 :].split()[1])
    except (OSError, ValueError, IndexError):  # gone meanwhile
        return None


def _below(root: int, parents: dict[int, int]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def _pids() -> list[int]:
    with contextlib.suppress(OSError):
        return [int(e.name) for e in os.scandir("/proc") if e.name.isdigit()]
    return []


def descendants(root: int) -> list[int]:
    """The pids of every process below ``root`` (its children, theirs, ...), now."""
    return ProcessTree().descendants(root)


class ProcessTree:
    """:func:`descendants`, read again and again cheaply: each process's parent is read once
    (when its pid first appears in ``/proc``), so a scan lists ``/proc`` and reads only the
    processes new since the last one. A process whose parent dies meanwhile is taken to be
    where it was (reparenting is rare among a browser's processes, and leaves one more
    process looked at, not one less)."""

    def __init__(self) -> None:
        self._parents: dict[int, int] = {}

    def descendants(self, root: int) -> list[int]:
        now = _pids()
        parents = {pid: ppid for pid in now if (ppid := self._parents.get(pid)) is not None}
        for pid in now:
            if pid not in parents and (ppid := _ppid(pid)) is not None:
                parents[pid] = ppid
        self._parents = parents
        return _below(root, parents)


def pss_bytes(pid: int) -> int | None:
    """The process's proportional set size (``smaps_rollup``: each shared page divided among
    the processes mapping it), or ``None`` where it cannot be read."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def anon_bytes(pid: int) -> int | None:
    """The process's resident anonymous memory (``statm``: resident less file-backed and
    shared memory; plain counters, read without the lock of its memory map), or ``None``
    where it cannot be read or the process holds nothing resident (gone, a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/statm").read_text().split()
        resident, shared = int(fields[1]), int(fields[2])
    except (OSError, ValueError, IndexError):
        return None
    return (resident - shared) * _PAGE if resident else None


def rss_bytes(pid: int) -> int | None:
    """The process's resident set size (``statm``), or ``None`` where it cannot be read."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None
