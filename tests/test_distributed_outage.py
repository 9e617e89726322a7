"""A worker that loses Redis mid-crawl, checked against what the site really served: the site
(the benchmark corpus, 240 pages) logs every request it answers, so "every fetched page" is
the server's list, not the crawl's own ledger. Each page it served is in the worker's pages
feed or in the outage file the error names (the page, or its request); the ledger and the
report count exactly what the feed holds as accounted and what the outage file holds as
kept."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_distributed_crawl import lines, lose_redis_mid_crawl, outage_file
from tests.test_distributed_store import redis_server

pytestmark = pytest.mark.crawl

ROOT = Path(__file__).resolve().parents[1]
PAGES = 240


@contextlib.contextmanager
def logged_site(tmp: Path):
    """The corpus on 127.0.0.1 from a child that logs each request path (the server of
    ``tests/test_crash_resume.py``); yields (its URL, the log file)."""
    portfile, log = tmp / "port", tmp / "access.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.test_crash_resume", str(PAGES), str(portfile), str(log)],
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 30
        while not portfile.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "no site server"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{portfile.read_text()}", log
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


def test_every_page_the_site_served_is_in_the_feed_or_the_outage_file(tmp_path):
    out = tmp_path / "w"
    with logged_site(tmp_path) as (site, access), redis_server(tmp_path / "redis") as url:
        code = lose_redis_mid_crawl(  # well into the crawl: 60 pages in the feed
            site, url, out, tmp_path / "kept", until=lambda: len(lines(out / "pages.jsonl")) >= 60
        )
        served = {site + path for path in access.read_text().splitlines() if "/p/" in path}
    assert code == 1
    named = outage_file((out / "crawl.log").read_text())
    outage = lines(named)
    kept_pages = {line["url"] for line in outage if line["kind"] == "page"}
    kept_requests = {line["url"] for line in outage if line["kind"] == "request"}
    in_feed = [line["url"] for line in lines(out / "pages.jsonl")]
    assert len(in_feed) == len(set(in_feed))  # each page once
    assert 60 <= len(in_feed) < PAGES  # the outage came mid-crawl
    assert not kept_pages & set(in_feed)
    lost = served - set(in_feed) - kept_pages - kept_requests
    print(f"served {len(served)}, in the feed {len(in_feed)}, in the outage file: "
          f"{len(kept_pages)} pages, {len(kept_requests)} requests")  # fmt: skip
    assert not lost, sorted(lost)  # every page served: in the feed or in the outage file
    ledger = lines(out / "report" / "ledger.jsonl")
    accounted = [line["url"] for line in ledger if line["problem"] is None and line["in_pages"]]
    assert sorted(accounted) == sorted(in_feed)  # the ledger's pages are the feed's, exactly
    kept = [line for line in ledger if line["problem"] == "kept"]
    assert {line["url"] for line in kept} == kept_pages
    assert all(str(named) in line["message"] for line in kept)
    assert not [line for line in ledger if line["problem"] == "unaccounted"]
    report = json.loads((out / "report" / "report.json").read_text())
    figures = report["ledger"]
    assert figures["kept"] == len(kept_pages) and figures["unaccounted"] == 0
    assert figures["accounted"] == sum(1 for line in ledger if line["problem"] is None)
    assert report["pages"]["total"] == len(in_feed)  # the report's pages: the feed's
