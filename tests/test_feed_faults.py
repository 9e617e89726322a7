"""Feeds that lose nothing unseen: a disk that fills during the crawl (a real per-file size
limit, ``RLIMIT_FSIZE``, on the crawl's process: its writes fail with ``EFBIG`` as on a full
file system) and an S3 upload that fails (moto on 127.0.0.1, a missing bucket). Every fetched
page ends in a feed or in the local file the error names; the ledger and the report count
what the feeds hold; the crawl exits non-zero."""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from structcrawl.dev.devserver import BackgroundServer
from tests.servers import moto_s3

pytestmark = [pytest.mark.crawl, pytest.mark.timeout(240)]

PAGES = 120


def _site(root: Path) -> None:
    root.mkdir()
    links = "".join(f'<a href="p{i}.html">p{i}</a>' for i in range(PAGES))
    (root / "index.html").write_text(f"<html><body>{links}</body></html>")
    for i in range(PAGES):
        (root / f"p{i}.html").write_text(
            '<html><head><script type="application/ld+json">'
            f'{{"@context": "https://schema.org", "@type": "Product", "name": "P{i}", '
            f'"sku": "S{i}", "description": "{"x" * 200}"}}</script></head>'
            f"<body><p>product {i}</p></body></html>"
        )


def _crawl(url: str, out: Path, rescue: Path, *extra: str, fsize: int | None = None):
    out.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start_urls={url}",
        "-O", f"{out / 'pages.jsonl'}:pages",
        "-s", f"STRUCTCRAWL_REPORT_DIR={out / 'report'}",
        "-s", f"STRUCTCRAWL_FEED_RESCUE_DIR={rescue}",
        "-s", "STRUCTCRAWL_BODY_STORE_ENABLED=False",
        "-s", "STRUCTCRAWL_CHANGES_ENABLED=False",
        "-s", "STRUCTCRAWL_ENTITIES_ENABLED=False",  # its SQLite store would fail too
        "-s", "STRUCTCRAWL_RENDER_ENABLED=False",
        "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "ROBOTSTXT_OBEY=False",
        "-s", "LOG_LEVEL=WARNING", "-s", f"LOG_FILE={out / 'crawl.log'}",
        *extra,
    ]  # fmt: skip

    def limit() -> None:  # the crawl's files cannot grow past fsize bytes: EFBIG
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "structcrawl.settings"}
    return subprocess.run(
        cmd, env=env, capture_output=True, text=True, timeout=200, preexec_fn=limit, check=False
    )


def _urls(path: Path) -> list[str]:
    return [json.loads(line)["url"] for line in path.read_text().splitlines() if line.strip()]


def test_a_disk_that_fills_loses_no_page_unseen(tmp_path):
    _site(tmp_path / "site")
    with BackgroundServer(tmp_path / "site") as server:
        free = _crawl(server.url, tmp_path / "free", tmp_path / "rescue-free")
        assert free.returncode == 0, free.stderr[-2000:]
        size = (tmp_path / "free" / "pages.jsonl").stat().st_size
        report = (tmp_path / "free" / "report" / "report.json").stat().st_size
        limit = int(size * 0.6)
        assert report < limit  # the report still fits: it must tell what happened
        out, rescue = tmp_path / "full", tmp_path / "rescue"
        done = _crawl(server.url, out, rescue, fsize=limit)
    assert done.returncode != 0
    fetched = set(_urls(tmp_path / "free" / "pages.jsonl"))
    assert len(fetched) == PAGES + 1
    in_feed = _urls(out / "pages.jsonl")  # whole lines only: every one parses
    log = (out / "crawl.log").read_text()
    named = re.search(r"its lines from here on are in (\S+)", log)
    assert named, log[-3000:]
    kept = Path(named.group(1))
    assert kept.parent == rescue
    in_rescue = _urls(kept)
    assert 0 < len(in_feed) < PAGES and in_rescue
    assert sorted(in_feed + in_rescue) == sorted(fetched)  # each page once, none lost
    ledger = [
        json.loads(line) for line in (out / "report" / "ledger.jsonl").read_text().splitlines()
    ]
    accounted = {line["url"] for line in ledger if line["problem"] is None}
    unwritten = {line["url"] for line in ledger if line["outcome"] == "unwritten:feed"}
    assert accounted == set(in_feed) and unwritten == set(in_rescue)
    assert all(str(kept) in line["message"] for line in ledger if line["url"] in unwritten)
    report = json.loads((out / "report" / "report.json").read_text())
    assert report["stats"]["structcrawl/failure/feed/write"] == 1  # what makes it exit 1
    assert all(line["problem"] == "kept" for line in ledger if line["url"] in unwritten)
    figures = report["ledger"]
    assert figures["accounted"] == len(in_feed)  # what the feed holds
    assert figures["kept"] == len(in_rescue)  # in the rescue file: not in the feed, not lost
    assert figures["unaccounted"] == 0
    assert figures["requested"] == len(fetched)
    assert report["stats"]["structcrawl/failure/ledger/kept"] == len(in_rescue)


def test_a_failed_s3_upload_keeps_the_feed_in_a_named_file(tmp_path):
    _site(tmp_path / "site")
    with moto_s3(tmp_path) as endpoint, BackgroundServer(tmp_path / "site") as server:
        out, rescue = tmp_path / "out", tmp_path / "rescue"
        done = _crawl(
            server.url, out, rescue,
            "-O", "s3://no-such-bucket/crawl/pages.jsonl:pages",
            "-s", f"AWS_ENDPOINT_URL={endpoint}", "-s", "AWS_REGION_NAME=us-east-1",
            "-s", "AWS_ACCESS_KEY_ID=testing", "-s", "AWS_SECRET_ACCESS_KEY=testing",
            "-s", "AWS_MAX_ATTEMPTS=1",
        )  # fmt: skip
    assert done.returncode != 0
    log = (out / "crawl.log").read_text()
    named = re.search(r"its content is kept in (\S+)", log)
    assert named and "s3://no-such-bucket/crawl/pages.jsonl was not stored" in log, log[-3000:]
    kept = Path(named.group(1))
    assert kept.parent == rescue
    assert sorted(_urls(kept)) == sorted(_urls(out / "pages.jsonl"))  # the whole feed
    assert len(_urls(kept)) == PAGES + 1
    assert list(rescue.iterdir()) == [kept]
