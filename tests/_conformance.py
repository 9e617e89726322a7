"""Locating the public conformance suites that sit beside the project checkout.

The suites live in ``../shared/conformance/<name>`` relative to the repository root (see that
folder's README); they are read in place, never copied into the repository. A missing suite
skips the tests that need it on a developer machine and fails them in CI (``CI=true``), so a
CI run can never pass by silently testing nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

__all__ = ["CONFORMANCE_ROOT", "suite_dir"]

#: ``<repo>/../shared/conformance``: the repository root is the parent of ``tests/``. The
#: environment variable ``STRUCTCRAWL_CONFORMANCE_DIR`` points elsewhere (a git worktree that
#: does not sit beside ``shared/``, e.g. ``STRUCTCRAWL_CONFORMANCE_DIR=/work/shared/conformance``).
CONFORMANCE_ROOT = Path(
    os.environ.get("STRUCTCRAWL_CONFORMANCE_DIR")
    or Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
)


def suite_dir(name: str) -> Path:
    """The folder of the conformance suite ``name`` (e.g. ``"jsonld-html"``).

    When it is missing: ``pytest.fail`` if the environment variable ``CI`` is ``"true"``,
    ``pytest.skip`` otherwise. Usable at collection time (module level) and inside tests.
    """
    path = CONFORMANCE_ROOT / name
    if path.is_dir():
        return path
    message = (
        f"conformance suite {name!r} not found at {path} "
        "(expected beside the checkout in ../shared/conformance; see its README.md)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)
