"""Deprecated: ``python -m structcrawl.devserver`` moved to ``python -m structcrawl.dev.devserver``.

This module stays so that the old command keeps working; it warns and runs the new one.
"""

from __future__ import annotations

import sys
import warnings

from structcrawl.dev.devserver import *  # noqa: F403  (the old import path keeps its names)
from structcrawl.dev.devserver import main

if __name__ != "__main__":
    warnings.warn(
        "structcrawl.devserver moved to structcrawl.dev.devserver; "
        "the old path will be removed in 0.3",
        DeprecationWarning,
        stacklevel=2,
    )
else:
    warnings.warn(
        "python -m structcrawl.devserver is deprecated: use python -m structcrawl.dev.devserver",
        DeprecationWarning,
        stacklevel=1,
    )
    sys.exit(main())
