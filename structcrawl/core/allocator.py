"""The C allocator's threshold for large blocks (glibc), for processes that parse large pages.

glibc's ``malloc`` serves a large block (128 KiB and more, at first) from a mapping of its own,
returned to the system when freed; but each time such a block is freed it raises that threshold
to the block's size (up to 32 MiB), so a process that once handled a 2 MB page serves every
later page's bodies, decoded text and parse buffers from its heap, whose freed memory it keeps.
A long crawl of large pages holds tens of megabytes so (docs/speed.md). A fixed threshold
(``mallopt(M_MMAP_THRESHOLD)``, or the ``MALLOC_MMAP_THRESHOLD_`` environment variable a child
is started with) keeps large blocks in mappings of their own, given back when freed.
"""

from __future__ import annotations

import ctypes
import ctypes.util

__all__ = ["MMAP_THRESHOLD_ENV", "set_mmap_threshold"]

#: glibc's environment variable with the same effect, read when a process starts
MMAP_THRESHOLD_ENV = "MALLOC_MMAP_THRESHOLD_"
_M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)


def set_mmap_threshold(size: int) -> bool:
    """Serve blocks of ``size`` bytes and more from mappings of their own, from now on in this
    process; False where the C library is no glibc (nothing changed).

    >>> set_mmap_threshold(0)
    False
    """
    if size <= 0:
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl, macOS): its own policy stays
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, size))
