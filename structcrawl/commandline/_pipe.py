"""A closed pipe (``structcrawl extract ... | head``) ends the command quietly."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TypeVar

__all__ = ["quiet_on_closed_pipe"]

T = TypeVar("T")


def quiet_on_closed_pipe(func: Callable[[], int]) -> int:
    """Run ``func``; when its reader went away (``BrokenPipeError``), stop writing and exit 0
    without a traceback (as the Python documentation recommends: point stdout at devnull so
    the interpreter's final flush does not fail again)."""
    try:
        code = func()
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # stdout is not a real file (captured)
            pass
        return 0
