"""The manual builds (``mkdocs build --strict``), and the README stays a short front door."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_manual_builds_strictly(tmp_path):
    if importlib.util.find_spec("mkdocs") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("mkdocs is missing (pip install -e '.[test]')", pytrace=False)
        pytest.skip("mkdocs is not installed (pip install -e '.[test]')")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "settings" / "index.html").exists()
    assert (tmp_path / "site" / "politeness" / "index.html").exists()


def test_the_readme_is_short_and_links_the_manual():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    for needle in ("make demo", "make test", "structcrawl.Addon", "structcrawl check", "docs/"):
        assert needle in readme, needle


def test_every_manual_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert [p for p in pages if p not in nav] == []


def test_there_is_a_changelog_with_this_version():
    from structcrawl import __version__

    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {__version__}" in changelog or "## Unreleased" in changelog
