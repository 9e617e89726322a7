"""Deprecated: ``python -m structcrawl.demo`` moved to ``python -m structcrawl.dev.demo``.

This module stays so that the old command keeps working; it warns and runs the new one.
"""

from __future__ import annotations

import sys
import warnings

from structcrawl.dev.demo import *  # noqa: F403  (the old import path keeps its names)
from structcrawl.dev.demo import main

if __name__ != "__main__":
    warnings.warn(
        "structcrawl.demo moved to structcrawl.dev.demo; the old path will be removed in 0.3",
        DeprecationWarning,
        stacklevel=2,
    )
else:
    warnings.warn(
        "python -m structcrawl.demo is deprecated: use structcrawl demo "
        "(or python -m structcrawl.dev.demo)",
        DeprecationWarning,
        stacklevel=1,
    )
    sys.exit(main())
