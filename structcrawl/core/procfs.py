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

__all__ = ["descendants", "pss_bytes", "rss_bytes"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def descendants(root: int) -> list[int]:
    """The pids of every process below ``root`` (its children, theirs, ...), now."""
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    text = stat.read()
                # "pid (comm) state ppid ...": comm may hold spaces and parentheses
                ppid = int(text[text.rindex(b")") + 2 :].split()[1])
            except (OSError, ValueError, IndexError):  # gone meanwhile
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


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


def rss_bytes(pid: int) -> int | None:
    """The process's resident set size (``statm``), or ``None`` where it cannot be read."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None
