"""One crawl of the ``site`` spider whose feeds are read back: what ``check`` reads a page or a
sitemap's pages through (the crawl's own pipelines, rendering included)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["crawl_feeds"]


def crawl_feeds(
    spider_args: list[str], render: bool, overrides: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], str]:
    """One crawl of the ``site`` spider with ``spider_args`` (``-a name=value`` pairs): its
    pages, records and typed items read back from the feeds, and its stderr."""
    with tempfile.TemporaryDirectory(prefix="structcrawl-check-") as tmp:
        out = Path(tmp)
        cmd = [
            sys.executable, "-m", "scrapy", "crawl", "site", *spider_args,
            "-O", f"{out / 'records.jsonl'}:records", "-O", f"{out / 'pages.jsonl'}:pages",
            "-O", f"{out / 'items.jsonl'}:items",
            "-s", f"STRUCTCRAWL_REPORT_DIR={out / 'report'}",
            "-s", "STRUCTCRAWL_BODY_STORE_ENABLED=False",
            "-s", "STRUCTCRAWL_ENTITIES_ENABLED=False",
            "-s", "STRUCTCRAWL_CHANGES_ENABLED=False",
            "-s", "LOG_LEVEL=ERROR",
        ]  # fmt: skip
        if not render:
            cmd += ["-s", "STRUCTCRAWL_RENDER_ENABLED=False"]
        for pair in overrides:
            cmd += ["-s", pair]
        env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "structcrawl.settings"}
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        pages = _lines(out / "pages.jsonl")
        records = _lines(out / "records.jsonl")
        items = _lines(out / "items.jsonl")
    return pages, records, items, done.stderr


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")  # "\n" only: U+2028 and kin stay inside strings
    return [json.loads(line) for line in text.split("\n") if line.strip()]
