"""``structcrawl check --sitemap URL``: every page of the demo site checked as one page is, the
problems summarized by code and by URL template, in text, JSON and an HTML page; one URL or
FILE, or --sitemap, never both."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from structcrawl.dev.devserver import BackgroundServer

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
CLI = [sys.executable, "-m", "structcrawl.commandline", "check"]


def test_check_sitemap_summarizes_the_demo_site(tmp_path):
    report = tmp_path / "site.html"
    with BackgroundServer(SITE) as server:
        done = subprocess.run(
            [*CLI, "--sitemap", server.url + "sitemap.xml", "--format", "json", "--no-render",
             "--report", str(report)],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["pages"] >= 20 and summary["by_template"] and summary["by_code"]
    assert summary["exit"] == done.returncode
    assert any("products" in t["template"] for t in summary["by_template"])
    assert "<html" in report.read_text(encoding="utf-8").lower()


def test_check_takes_one_source_or_a_sitemap():
    both = subprocess.run(
        [*CLI, "page.html", "--sitemap", "http://127.0.0.1:9/sitemap.xml"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    neither = subprocess.run([*CLI], capture_output=True, text=True, timeout=60, check=False)
    for done in (both, neither):
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "--sitemap" in done.stderr
