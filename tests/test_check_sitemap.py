"""``structcrawl check --sitemap URL``: every page of the demo site, and of a site of the real
pages of ``../shared/corpus/pages/`` served on 127.0.0.1, checked as one page is, the problems
summarized by code and by URL template, in text, JSON and an HTML page; one URL or FILE, or
--sitemap, never both."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from structcrawl.dev.devserver import BackgroundServer
from structcrawl.validate.problems import fixes
from tests.servers import real_pages_corpus

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


def _corpus() -> Path:
    return real_pages_corpus()


def test_check_sitemap_over_the_real_pages(tmp_path):
    """The real pages as one site (their sitemap written once the server has its port): each
    checked, every problem a known code with its fix, within a time bound."""
    site = tmp_path / "site"
    site.mkdir()
    pages = sorted(_corpus().glob("*.html"))
    for page in pages:
        shutil.copyfile(page, site / page.name)
    report = tmp_path / "real.html"
    with BackgroundServer(site) as server:
        locs = "".join(f"<url><loc>{server.url}{p.name}</loc></url>" for p in pages)
        (site / "sitemap.xml").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>',
            encoding="utf-8",
        )
        started = time.monotonic()
        done = subprocess.run(
            [*CLI, "--sitemap", server.url + "sitemap.xml", "--format", "json", "--no-render",
             "--report", str(report)],
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        took = time.monotonic() - started
    assert done.returncode in (0, 1), done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["pages"] == len(pages) >= 100, (summary["pages"], len(pages))
    assert {p["status"] for p in summary["checked"]} == {200}
    assert summary["exit"] == done.returncode
    codes = {c["code"] for c in summary["by_code"]}
    assert codes and codes <= set(fixes()), codes - set(fixes())
    assert all(c["examples"] and c["fix"] for c in summary["by_code"])
    assert sum(t["pages"] for t in summary["by_template"]) == len(pages)
    assert "<code>" in report.read_text(encoding="utf-8")
    assert took < 300, f"{len(pages)} pages took {took:.0f} s"
