"""A function a worker process runs to say how its garbage collector is set (tests only)."""

from __future__ import annotations

import gc


def collector(data: bytes) -> list[int]:
    """The young generation's threshold and how many objects are frozen."""
    return [gc.get_threshold()[0], gc.get_freeze_count()]
