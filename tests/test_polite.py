"""Polite by default: Retry-After pauses the whole site, robots.txt Crawl-delay, meta robots
and X-Robots-Tag nofollow, a warning for a default user agent."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
from scrapy.utils.test import get_crawler

from structcrawl.crawl.polite import UserAgentCheck
from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer
from tests.faultserver import FaultServer

UNTHROTTLED = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0"]


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.mark.crawl
@pytest.mark.timeout(120)
def test_retry_after_pauses_the_whole_slot_not_only_that_request(tmp_path):
    """One request at a time, in order: the 429 (Retry-After: 2) first, then four pages of the
    same site. Before the fix those four were fetched at once while only the 429's retry
    waited; now nothing goes to the site until the two seconds are over."""
    with FaultServer() as server:
        urls = [server.url + "/burst/slot?fail=1&status=429&after=2"] + [
            f"{server.url}/ok/p{n}.html" for n in range(4)
        ]
        code = run_crawl(
            None,
            tmp_path,
            "-a",
            "start_urls=" + ",".join(urls),
            "-a",
            "depth=0",
            *UNTHROTTLED,
            "-s",
            "CONCURRENT_REQUESTS_PER_DOMAIN=1",
            "-s",
            "ROBOTSTXT_OBEY=False",
            "-s",
            "SCHEDULER_MEMORY_QUEUE=scrapy.squeues.FifoMemoryQueue",
            "-s",
            "STRUCTCRAWL_RENDER_ENABLED=False",
            "-s",
            "STRUCTCRAWL_RETRY_AFTER_MAX=5",
            timeout=90,
        )
        hits = server.hits()
    assert code == 0, (tmp_path / "crawl.log").read_text()[-3000:]
    first_429 = hits["/burst/slot"][0]["t"]
    after = [h["t"] for n in range(4) for h in hits[f"/ok/p{n}.html"] if h["t"] > first_429]
    assert len(after) >= 3, hits  # the pages came after the 429 (FIFO, one at a time)
    assert min(after) - first_429 >= 1.8, sorted(t - first_429 for t in after)
    assert "'structcrawl/retry/slot_paused': 1" in (tmp_path / "crawl.log").read_text()


PAGE = """<!doctype html><html><head><title>{name}</title>{meta}</head><body>
<script type="application/ld+json">{{"@context": "https://schema.org", "@type": "Thing",
"name": "{name}"}}</script>{links}</body></html>"""


@pytest.fixture(scope="module")
def polite_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    (root / "robots.txt").write_text("User-agent: *\nCrawl-delay: 1\nDisallow: /private/\n")
    pages = {
        "index.html": ("", ["a.html", "b.html", "closed.html", "hidden.html"]),
        "a.html": ("", []),
        "b.html": ("", []),
        "closed.html": ('<meta name="robots" content="noindex, nofollow">', ["behind.html"]),
        "behind.html": ("", []),  # only linked from a nofollow page: never fetched
        "hidden.html": ('<meta name="robots" content="noindex">', ["c.html"]),
        "c.html": ("", []),
    }
    for name, (meta, links) in pages.items():
        anchors = "".join(f'<a href="{link}">{link}</a>' for link in links)
        (root / name).write_text(PAGE.format(name=name, meta=meta, links=anchors))
    out = tmp_path_factory.mktemp("out")
    with BackgroundServer(root) as server:
        code = run_crawl(
            server.url + "index.html",
            out,
            *UNTHROTTLED,
            "-s",
            "CONCURRENT_REQUESTS_PER_DOMAIN=8",
            "-s",
            "STRUCTCRAWL_RENDER_ENABLED=False",
            # the crawl takes ~7 s (Crawl-delay: 1): progress lines and report snapshots show
            "-s",
            "STRUCTCRAWL_PROGRESS_INTERVAL=1",
            "-s",
            "STRUCTCRAWL_REPORT_SNAPSHOT_INTERVAL=2",
            timeout=90,
        )
    return {"code": code, "out": out, "pages": _lines(out / "pages.jsonl"), "base": server.url}


@pytest.mark.crawl
def test_meta_robots_nofollow_stops_link_following_and_noindex_is_recorded(polite_site):
    assert polite_site["code"] == 0
    by_name = {p["url"].rsplit("/", 1)[1]: p for p in polite_site["pages"]}
    assert "behind.html" not in by_name  # linked only from a nofollow page
    assert {"index.html", "a.html", "b.html", "closed.html", "hidden.html", "c.html"} <= set(
        by_name
    )
    assert by_name["closed.html"]["robots"] == ["nofollow", "noindex"]  # sorted
    assert by_name["hidden.html"]["robots"] == ["noindex"]  # crawled, links followed, recorded
    assert by_name["a.html"]["robots"] == []


@pytest.mark.crawl
def test_robots_txt_crawl_delay_spaces_the_requests(polite_site):
    log = (polite_site["out"] / "crawl.log").read_text()
    assert "Crawl-delay 1.0s honoured" in log
    times = sorted(p["retrieved_at"] for p in polite_site["pages"])
    from datetime import datetime

    stamps = [datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() for t in times]
    gaps = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    # 6 pages with 8 allowed in flight: without the delay they arrive within milliseconds.
    # Requests leave a second apart; the times here are when each response was processed,
    # which a loaded machine shifts a little either way: the span is the robust measure.
    assert len(gaps) >= 5 and stamps[-1] - stamps[0] >= 0.9 * len(gaps), gaps
    assert sorted(gaps)[len(gaps) // 2] >= 0.8, gaps


def test_a_default_user_agent_is_warned_about_never_refused(caplog):
    with caplog.at_level(logging.WARNING):
        crawler = get_crawler(settings_dict={})
        UserAgentCheck.from_crawler(crawler)
    assert "USER_AGENT is left at its default" in caplog.text
    assert crawler.stats.get_value("structcrawl/polite/default_user_agent") == 1
    caplog.clear()
    mine = get_crawler(settings_dict={"USER_AGENT": "mybot/1.0 (+https://example.org/bot)"})
    UserAgentCheck.from_crawler(mine)
    assert "USER_AGENT" not in caplog.text


@pytest.mark.crawl
def test_a_long_crawl_logs_progress_and_snapshots_the_report(polite_site):
    log = (polite_site["out"] / "crawl.log").read_text()
    lines = re.findall(
        r"progress: (\d+) pages done, (\d+) queued, [\d.]+ pages/s, (\d+) records, "
        r"(\d+) errors, (\d+) in the browser",
        log,
    )
    assert len(lines) >= 3, log[-2000:]
    done = [int(line[0]) for line in lines]
    assert done == sorted(done) and done[-1] >= 3  # pages counted, not entities
    assert "quality report snapshot:" in log
    report = json.loads((polite_site["out"] / "report" / "report.json").read_text())
    assert report["finish_reason"] == "finished"  # the final report replaced the snapshots
    assert "'structcrawl/progress/done': 6" in log  # the six pages crawled
    queued = [int(line[1]) for line in lines]
    assert max(queued) >= 1  # links waiting for the Crawl-delay are counted
