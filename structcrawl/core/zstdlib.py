"""Zstandard, from the standard library where it is (Python 3.14's ``compression.zstd``), else
from its backport (``backports.zstd``, declared for older Pythons): one import for the body
store and the render path's ``Content-Encoding: zstd``."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 14):
    from compression import zstd
else:  # pragma: no cover - the backport, a declared dependency before Python 3.14
    from backports import zstd

__all__ = ["zstd"]
