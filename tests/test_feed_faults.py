"""Feeds that lose nothing unseen: a disk that fills during the crawl (a real per-file size
limit, ``RLIMIT_FSIZE``, on the crawl's process: its writes fail with ``EFBIG`` as on a full
file system) and an S3 upload that fails (moto on 127.0.0.1, a missing bucket). Every fetched
page ends in a feed or in the local file the error names; the ledger and the report count
what the feeds hold; the crawl exits non-zero."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from itemadapter import ItemAdapter

from structcrawl.dev.devserver import BackgroundServer
from structcrawl.ledger.check import check_ledger
from structcrawl.ledger.pages import read_jsonl
from tests.servers import free_port, moto_client, moto_s3

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


def _command(url: str, out: Path, rescue: Path, *extra: str, feeds: dict | None = None):
    """The ``scrapy crawl`` of the site at ``url`` into ``out`` (its feeds, report, log)."""
    out.mkdir(parents=True, exist_ok=True)
    feed = ["-s", f"FEEDS={json.dumps(feeds)}"] if feeds else ["-O", f"{out / 'pages.jsonl'}:pages"]
    return [
        sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start_urls={url}", *feed,
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


def _crawl(
    url: str, out: Path, rescue: Path, *extra: str, fsize: int | None = None,
    feeds: dict | None = None, env: dict | None = None,
):  # fmt: skip
    cmd = _command(url, out, rescue, *extra, feeds=feeds)

    def limit() -> None:  # the crawl's files cannot grow past fsize bytes: EFBIG
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "structcrawl.settings", **(env or {})}
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


def _s3(endpoint: str) -> list[str]:
    return [
        "-s", f"AWS_ENDPOINT_URL={endpoint}", "-s", "AWS_REGION_NAME=us-east-1",
        "-s", "AWS_ACCESS_KEY_ID=testing", "-s", "AWS_SECRET_ACCESS_KEY=testing",
        "-s", "AWS_MAX_ATTEMPTS=1", "-s", "AWS_RETRY_MODE=standard",
    ]  # fmt: skip


def _ledger(out: Path) -> list[dict]:
    text = (out / "report" / "ledger.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def _kept_file(out: Path, uri: str) -> Path:
    log = (out / "crawl.log").read_text()
    named = re.search(
        re.escape(uri) + r" was not stored \(.*?\); its content is kept in (\S+)", log
    )
    assert named, log[-3000:]
    return Path(named.group(1))


def _spools(folder: Path) -> list[Path]:
    """The spool files in ``folder``, each with its label beside it naming its feed
    (structcrawl.crawl.spools): the only other files there."""
    if not folder.exists():
        return []
    files = sorted(folder.iterdir())
    labels = {f for f in files if f.name.endswith(".feed.json")}
    spools = [f for f in files if f not in labels]
    assert labels == {f.with_name(f.name + ".feed.json") for f in spools}
    for spool in spools:
        label = json.loads(spool.with_name(spool.name + ".feed.json").read_text())
        assert label["spool"] == str(spool) and label["feed"].startswith("s3://")
    return spools


def _assert_kept(out: Path, kept: Path, uri: str, kept_urls: set[str]) -> None:
    """The pages whose lines are in the kept file are kept there, not in the feeds, by the
    ledger and the report alike; every other page is accounted."""
    ledger = _ledger(out)
    unstored = {line["url"] for line in ledger if line["outcome"] == "unwritten:upload"}
    assert unstored == kept_urls
    for line in ledger:
        if line["url"] in kept_urls:
            assert line["problem"] == "kept" and line["in_pages"]  # its line: in the pages feed
            assert str(kept) in line["message"] and uri in line["message"]
        else:
            assert line["problem"] is None
    report = json.loads((out / "report" / "report.json").read_text())
    figures = report["ledger"]
    assert figures["kept"] == len(kept_urls)
    assert (
        figures["accounted"]
        == len(ledger) - len(kept_urls)
        == figures["requested"] - figures["kept"]
    )
    assert figures["unaccounted"] == 0 and "unwritten:upload" not in figures["by_outcome"]
    assert report["stats"]["structcrawl/failure/ledger/kept"] == len(kept_urls)
    assert report["stats"]["structcrawl/failure/feed/upload"] == 1


def test_a_failed_s3_upload_keeps_the_feed_in_a_named_file(tmp_path):
    _site(tmp_path / "site")
    uri = "s3://no-such-bucket/crawl/pages.jsonl"
    with moto_s3(tmp_path) as endpoint, BackgroundServer(tmp_path / "site") as server:
        out, rescue = tmp_path / "out", tmp_path / "rescue"
        done = _crawl(server.url, out, rescue, "-O", f"{uri}:pages", *_s3(endpoint))
    assert done.returncode != 0
    kept = _kept_file(out, uri)
    assert kept.parent == rescue
    assert sorted(_urls(kept)) == sorted(_urls(out / "pages.jsonl"))  # the whole feed
    assert len(_urls(kept)) == PAGES + 1
    assert _spools(rescue) == [kept]
    _assert_kept(out, kept, uri, set(_urls(kept)))  # every page: the pages feed holds them all
    # `structcrawl ledger` against the kept file: its pages are kept, none missing or unknown
    check = check_ledger(_ledger(out), read_jsonl(kept))
    assert len(check.problems) == PAGES + 1
    assert all(p.startswith("not in the feeds, kept in a local file") for p in check.problems)


class OddPages:
    """An ``item_filter``: the pages ``p1.html``, ``p3.html``, ... only."""

    def __init__(self, feed_options: dict | None = None):
        self.feed_options = feed_options

    def accepts(self, item) -> bool:
        return re.search(r"/p\d*[13579]\.html$", str(ItemAdapter(item).get("url"))) is not None


def test_an_s3_endpoint_that_refuses_keeps_the_records_feed_and_says_which_pages(tmp_path):
    """A refused port, a ``records`` feed that takes half of the pages (an item filter): those
    pages are kept in its file, the others are accounted."""
    _site(tmp_path / "site")
    uri = "s3://feeds/crawl/records.jsonl"
    feeds = {
        str(tmp_path / "out" / "pages.jsonl"): {"format": "pages", "overwrite": True},
        uri: {"format": "records", "item_filter": f"{__name__}.OddPages"},
    }
    with BackgroundServer(tmp_path / "site") as server:
        out, rescue = tmp_path / "out", tmp_path / "rescue"
        refused = f"http://127.0.0.1:{free_port()}"  # nothing listens there
        done = _crawl(server.url, out, rescue, *_s3(refused), feeds=feeds)
    assert done.returncode != 0
    kept = _kept_file(out, uri)
    assert kept.parent == rescue and _spools(rescue) == [kept]
    lines = [json.loads(line) for line in kept.read_text().splitlines()]
    by_page = {line["provenance"]["fetch"]["url"] for line in lines}
    assert len(by_page) == PAGES // 2  # every odd page's records, and only theirs
    assert all(OddPages().accepts({"url": url}) for url in by_page)
    assert len(_urls(out / "pages.jsonl")) == PAGES + 1
    _assert_kept(out, kept, uri, by_page)


class Hanging:
    """An endpoint on 127.0.0.1 that accepts connections and never answers (counts them)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                self.held.append(self.sock.accept()[0])

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


def test_a_hanging_s3_endpoint_ends_the_upload_and_keeps_the_feed(tmp_path):
    """An endpoint that never answers: the upload gives up after the upload timeout (per
    attempt), the feed is kept in the named file, its pages kept in ledger and report."""
    _site(tmp_path / "site")
    uri = "s3://feeds/crawl/pages.jsonl"
    hanging = Hanging()
    try:
        with BackgroundServer(tmp_path / "site") as server:
            out, rescue = tmp_path / "out", tmp_path / "rescue"
            started = time.monotonic()
            done = _crawl(server.url, out, rescue, "-O", f"{uri}:pages", *_s3(hanging.url),
                          "-s", "STRUCTCRAWL_FEED_UPLOAD_TIMEOUT=2", env={"AWS_MAX_ATTEMPTS": "2"})  # fmt: skip
            took = time.monotonic() - started
    finally:
        hanging.close()
    assert done.returncode != 0
    assert hanging.held  # the upload reached it, and waited
    assert took < 60  # 2 attempts of 2 s each, not botocore's 60 s per read
    kept = _kept_file(out, uri)
    assert kept.parent == rescue and sorted(_urls(kept)) == sorted(_urls(out / "pages.jsonl"))
    assert "timeout" in (out / "crawl.log").read_text().lower()
    _assert_kept(out, kept, uri, set(_urls(kept)))


def test_failed_batches_keep_each_its_own_pages(tmp_path):
    """Batches of 50 items (their uploads fail as the crawl goes, and at its end): each page
    is kept in the spool file of its own batch, which its ledger line names."""
    _site(tmp_path / "site")
    uri = "s3://no-such-bucket/crawl/pages-%(batch_id)d.jsonl"
    feeds = {
        str(tmp_path / "out" / "pages.jsonl"): {"format": "pages", "overwrite": True},
        uri: {"format": "pages", "batch_item_count": 50},
    }
    with moto_s3(tmp_path) as endpoint, BackgroundServer(tmp_path / "site") as server:
        out, rescue = tmp_path / "out", tmp_path / "rescue"
        done = _crawl(server.url, out, rescue, *_s3(endpoint), feeds=feeds)
    assert done.returncode != 0
    batches = {n: _kept_file(out, uri % {"batch_id": n}) for n in (1, 2, 3)}
    assert _spools(rescue) == sorted(batches.values())
    in_batch = {n: _urls(kept) for n, kept in batches.items()}
    assert [len(urls) for urls in in_batch.values()] == [50, 50, PAGES + 1 - 100]
    lines = {line["url"]: line for line in _ledger(out)}
    for n, urls in in_batch.items():
        for url in urls:
            line = lines[url]
            assert line["outcome"] == "unwritten:upload" and line["problem"] == "kept"
            assert line["upload"] == [uri % {"batch_id": n}]
            assert str(batches[n]) in line["message"]
    figures = json.loads((out / "report" / "report.json").read_text())["ledger"]
    assert (figures["accounted"], figures["kept"]) == (0, PAGES + 1)


def test_a_stored_s3_feed_counts_its_pages_as_accounted(tmp_path):
    _site(tmp_path / "site")
    uri = "s3://feeds/crawl/pages.jsonl"
    with moto_s3(tmp_path) as endpoint, BackgroundServer(tmp_path / "site") as server:
        s3 = moto_client(endpoint)
        s3.create_bucket(Bucket="feeds")
        out, rescue = tmp_path / "out", tmp_path / "rescue"
        done = _crawl(server.url, out, rescue, "-O", f"{uri}:pages", *_s3(endpoint))
        body = s3.get_object(Bucket="feeds", Key="crawl/pages.jsonl")["Body"].read().decode()
    assert done.returncode == 0, (out / "crawl.log").read_text()[-3000:]
    uploaded = [json.loads(line)["url"] for line in body.splitlines()]
    assert sorted(uploaded) == sorted(_urls(out / "pages.jsonl")) and len(uploaded) == PAGES + 1
    assert not rescue.exists() or not list(rescue.iterdir())  # the spool is gone, its label too
    ledger = _ledger(out)
    assert all(line["problem"] is None and line["upload"] == [uri] for line in ledger)
    assert {line["url"] for line in ledger} == set(uploaded)
    report = json.loads((out / "report" / "report.json").read_text())
    assert report["ledger"]["accounted"] == PAGES + 1 and report["ledger"]["kept"] == 0


def test_feeds_the_feed_exporter_refuses_fail_the_crawl(tmp_path):
    """A feed option Scrapy rejects (a batch count without ``%(batch_id)d`` in the URI) turns
    the feed exporter off: no feed is written, and the crawl must not look fine."""
    _site(tmp_path / "site")
    with BackgroundServer(tmp_path / "site") as server:
        out = tmp_path / "out"
        done = _crawl(server.url, out, tmp_path / "rescue", "-s", "FEED_EXPORT_BATCH_ITEM_COUNT=50")
    assert done.returncode != 0
    assert not (out / "pages.jsonl").exists()
    report = json.loads((out / "report" / "report.json").read_text())
    assert report["stats"]["structcrawl/failure/feed/disabled"] == 1
    assert "Scrapy's feed exporter is not enabled" in (out / "crawl.log").read_text()
