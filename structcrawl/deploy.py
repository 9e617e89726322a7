"""Deprecated: ``python -m structcrawl.deploy`` moved to ``python -m structcrawl.ops.deploy``.

This module stays so that the old command keeps working; it warns and runs the new one.
"""

from __future__ import annotations

import sys
import warnings

from structcrawl.ops.deploy import *  # noqa: F403  (the old import path keeps its names)
from structcrawl.ops.deploy import main

if __name__ != "__main__":
    warnings.warn(
        "structcrawl.deploy moved to structcrawl.ops.deploy; the old path will be removed in 0.3",
        DeprecationWarning,
        stacklevel=2,
    )
else:
    warnings.warn(
        "python -m structcrawl.deploy is deprecated: use structcrawl deploy "
        "(or python -m structcrawl.ops.deploy)",
        DeprecationWarning,
        stacklevel=1,
    )
    sys.exit(main())
