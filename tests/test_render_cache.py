"""End to end with the real browser: a recrawl of the demo renders no unchanged page twice.

The demo site (a copy of fixtures/site) is crawled twice into one output folder, as
``make demo`` crawls it (the rendered-snapshot cache sits beside the change store, in
``<out>/state/``). Between the runs one page the first run rendered is changed on the server:
the second run renders that page again and reuses the snapshot of every other page, with the
same records. Under ``CI=true`` a missing browser is a failure, never a skip.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer
from structcrawl.render.browser import locate_chromium
from tests.servers import require

pytestmark = pytest.mark.crawl
SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"


def _read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x]


def _run(url: str, out: Path, site: Path) -> dict:
    code = run_crawl(url, out, "-s", f"STRUCTCRAWL_RULES_DIR={site / 'rules'}", timeout=280)
    log = (out / "crawl.log").read_text()
    (out / "crawl.log").unlink()  # the next run's log starts afresh
    return {
        "code": code,
        "log": log,
        "stats": {k: int(v) for k, v in re.findall(r"'(structcrawl/[^']+)': (\d+)", log)},
        "pages": _read(out / "pages.jsonl"),
        "records": _read(out / "records.jsonl"),
        "report": json.loads((out / "report" / "report.json").read_text()),
    }


def _rendered(run: dict) -> set[str]:
    """Pages the browser rendered in this run (not served from a snapshot)."""
    return {
        p["url"]
        for p in run["pages"]
        if p["fetched_with"] == "browser" and not (p.get("render") or {}).get("cache")
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    problem = locate_chromium(None).problem()
    require(problem is None, f"the render cache test renders pages in Chromium: {problem}")
    site = tmp_path_factory.mktemp("site") / "site"
    shutil.copytree(SITE, site)
    out = tmp_path_factory.mktemp("out")
    with BackgroundServer(site) as server:
        first = _run(server.url, out, site)
        # one page the first run rendered changes on the server (not an audit sample)
        changed = sorted(
            p["url"]
            for p in first["pages"]
            if p["fetched_with"] == "browser"
            and p["fetch_reason"] != "audit"
            and p["status"] == 200
            and p["url"].endswith(".html")
        )[0]
        page = site / changed[len(server.url) :]
        page.write_text(page.read_text() + "<!-- changed on the server -->\n")
        second = _run(server.url, out, site)
    return {"first": first, "second": second, "changed": changed, "out": out}


@pytest.mark.timeout(600)
def test_both_crawls_succeed(runs):
    for name in ("first", "second"):
        assert runs[name]["code"] == 0, runs[name]["log"][-3000:]


@pytest.mark.timeout(600)
def test_the_first_crawl_keeps_its_renders(runs):
    stats = runs["first"]["stats"]
    assert stats["structcrawl/render/pages"] >= 3
    assert stats["structcrawl/render/cache/stored"] >= 3
    assert stats["structcrawl/render/cache/miss"] == stats["structcrawl/render/pages"]
    assert "structcrawl/render/cache/hit" not in stats
    assert (runs["out"] / "state" / "render-cache.sqlite").exists()


@pytest.mark.timeout(600)
def test_the_recrawl_renders_no_unchanged_page_twice(runs):
    first, second = runs["first"], runs["second"]
    assert _rendered(first) & _rendered(second) == {runs["changed"]}
    stats = second["stats"]
    assert stats["structcrawl/render/cache/changed"] >= 1
    hits = [p for p in second["pages"] if (p.get("render") or {}).get("cache")]
    assert len(hits) == stats["structcrawl/render/cache/hit"] >= 2
    assert {p["url"] for p in hits} <= {p["url"] for p in first["pages"]} - {runs["changed"]}
    for page in hits:  # the record says where its render came from
        assert page["fetched_with"] == "browser"
        assert page["render"]["cache"]["hit"] is True
        assert page["render"]["cache"]["validated_by"] in ("not-modified", "same-body")
        assert page["render"]["render_ms"] == 0


@pytest.mark.timeout(600)
def test_a_reused_render_gives_the_same_records(runs):
    def by_page(run: dict) -> dict[str, Counter]:
        counts: dict[str, Counter] = {}
        for r in run["records"]:
            counts.setdefault(r["source_url"], Counter())[(r["kind"], r["format"])] += 1
        return counts

    first, second = by_page(runs["first"]), by_page(runs["second"])
    hits = [p["url"] for p in runs["second"]["pages"] if (p.get("render") or {}).get("cache")]
    for url in hits:
        assert second.get(url) == first.get(url), url


@pytest.mark.timeout(600)
def test_the_report_shows_the_cache_beside_the_audit(runs):
    render = runs["second"]["report"]["render"]
    stats = runs["second"]["stats"]
    assert render["snapshot_cache_hits"] == stats["structcrawl/render/cache/hit"]
    assert render["audit"]["pages"] == stats.get("structcrawl/render/audit/pages", 0)
    html = (runs["out"] / "report" / "report.html").read_text()
    assert "Render audit" in html and "rendered snapshots reused from the cache" in html
