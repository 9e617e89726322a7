"""The package's optional compiled passes, found once per process (pure; no Scrapy).

Two passes over a page's tree are also built in Cython where the install had a C compiler
(``setup.py``; docs/dependencies.md): the element index's pass (:mod:`structcrawl.core._cindex`)
and the visible walk (:mod:`structcrawl.visible._cwalk`). Each module that has one asks for it
here when it is imported, and keeps its Python pass, the reference, where it is not built, was
built for another lxml (its import fails) or ``STRUCTCRAWL_NO_EXTENSIONS=1`` is in the
environment (read in each process: a crawl's page workers inherit it).

>>> compiled("structcrawl.core.no_such_module", "scan") is None
True
"""

from __future__ import annotations

import importlib
import os
from typing import Any

__all__ = ["NO_EXTENSIONS_ENV", "compiled"]

#: set (to anything but ``0``) in the environment, the Python passes serve
NO_EXTENSIONS_ENV = "STRUCTCRAWL_NO_EXTENSIONS"


def compiled(module: str, name: str) -> Any | None:
    """``module``'s ``name`` where the compiled module is built and wanted, else None."""
    if os.environ.get(NO_EXTENSIONS_ENV, "") not in ("", "0"):
        return None
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, ValueError):  # not built (no compiler at install), another lxml
        return None
