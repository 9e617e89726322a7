"""Every alias kept for a renamed import or command warns (and still works)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

from structcrawl._aliases import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_module_paths_warn_and_resolve_to_the_new_module(old):
    was_imported = old in sys.modules
    sys.modules.pop(old, None)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = importlib.import_module(old)
    finally:  # leave sys.modules as it was: a later first import must warn again
        if not was_imported:
            sys.modules.pop(old, None)
    assert module is importlib.import_module(MOVED[old])
    assert any(issubclass(w.category, DeprecationWarning) and MOVED[old] in str(w.message) for w in caught)


@pytest.mark.parametrize(
    ("old", "new"),
    [("demo", "structcrawl demo"), ("deploy", "structcrawl deploy"), ("devserver", "structcrawl.dev.devserver")],
)
def test_old_commands_run_with_a_deprecation_warning(old, new):
    done = subprocess.run(
        [sys.executable, "-m", f"structcrawl.{old}", "--help"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and "usage:" in done.stdout
    assert "DeprecationWarning" in done.stderr and new in done.stderr
