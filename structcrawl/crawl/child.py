"""A crawl run as a child process dies with the process that started it.

``structcrawl crawl`` and ``make demo`` run ``scrapy crawl`` as a child. :func:`run_child`
keeps that child from outliving its parent: ``SIGTERM`` and ``SIGHUP`` sent to the parent
are passed on to the child (Scrapy then shuts down gracefully, a second one forces it), and
on Linux the child asks the kernel for ``SIGTERM`` when its parent dies (``PR_SET_PDEATHSIG``),
so even a ``kill -9`` of the wrapper ends its crawl. ``Ctrl-C`` reaches both already (one
process group).

No Scrapy imports.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["run_child"]

_PR_SET_PDEATHSIG = 1
_FORWARDED = (signal.SIGTERM, signal.SIGHUP)


def _die_with_parent() -> None:  # runs in the child, between fork and exec
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except Exception:  # not Linux: the forwarded signals still hold
        pass


def run_child(
    cmd: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float | None = None
) -> int:
    """Run ``cmd`` to its end and return its exit status (see the module docstring). On
    ``timeout`` the child is terminated (killed 10 s later) and ``TimeoutExpired`` raised."""
    linux = sys.platform.startswith("linux")
    proc = subprocess.Popen(
        list(cmd),
        env=dict(env) if env is not None else None,
        preexec_fn=_die_with_parent if linux else None,  # noqa: PLW1509 (no threads fork here)
    )
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in _FORWARDED:
            previous[sig] = signal.signal(sig, lambda signum, frame: proc.send_signal(signum))
    try:
        return proc.wait(timeout=timeout)
    except BaseException:  # a timeout, Ctrl-C: the child does not outlive this call
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
