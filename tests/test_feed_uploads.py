"""Remote feeds' outcomes (structcrawl.crawl.uploads): the page ledger and the quality report
finalize after the feed exporter's uploads, and count the pages of a feed whose upload failed
as kept in its spool file. In process, with Scrapy's own feed exporter and slots, and an S3
storage whose upload really fails (a refused port); the crawls of tests/test_feed_faults.py
do the same end to end against moto."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from itemadapter import ItemAdapter
from scrapy import Request, Spider, signals
from scrapy.extensions.feedexport import FeedExporter
from scrapy.utils.test import get_crawler

from structcrawl.crawl.addon import FEED_EXPORTERS, FEED_STORAGES
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.uploads import failed_uploads, uploads_taking, when_feeds_stored
from structcrawl.ledger.extension import PageLedger
from structcrawl.report.extension import QualityReport
from tests.servers import free_port

URI = "s3://feeds/crawl/pages.jsonl"


class EvenPages:
    """An ``item_filter`` taking ``/p0``, ``/p2``, ... only."""

    def __init__(self, feed_options: dict | None = None):
        self.feed_options = feed_options

    def accepts(self, item: Any) -> bool:
        return re.search(r"/p\d*[02468]$", str(ItemAdapter(item).get("url"))) is not None


def _crawler(tmp_path: Path, feeds: dict[str, dict[str, Any]]) -> Any:
    crawler = get_crawler(
        Spider,
        {
            "FEEDS": feeds,
            "FEED_STORAGES": FEED_STORAGES,
            "FEED_EXPORTERS": FEED_EXPORTERS,
            "STRUCTCRAWL_FEED_RESCUE_DIR": str(tmp_path / "rescue"),
            "STRUCTCRAWL_LEDGER_FILE": str(tmp_path / "ledger.jsonl"),
            "STRUCTCRAWL_REPORT_DIR": str(tmp_path / "report"),
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}",  # nothing listens there
            "AWS_REGION_NAME": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_MAX_ATTEMPTS": 1,
        },
    )
    crawler.spider = Spider("t")
    crawler.spider.crawler = crawler
    return crawler


def _crawl(crawler: Any, urls: list[str]) -> tuple[FeedExporter, PageLedger, QualityReport]:
    """The crawl's extensions in the add-on's order (the feeds first), fed page items."""
    exporter = FeedExporter.from_crawler(crawler)
    crawler.extensions = SimpleNamespace(middlewares=(exporter,))
    ledger, report = PageLedger.from_crawler(crawler), QualityReport.from_crawler(crawler)
    ledger.spider_opened()
    exporter.open_spider(crawler.spider)
    for url in urls:
        ledger.request_scheduled(Request(url))
        item = PageItem(url=url, final_url=url, status=200)
        item.records = [{"kind": "entity", "format": "json-ld", "error": None}]
        exporter.item_scraped(item, crawler.spider)
        ledger.item_scraped(item)
        report.item_scraped(item)
    return exporter, ledger, report


def _ledger(tmp_path: Path) -> dict[str, dict[str, Any]]:
    lines = (tmp_path / "ledger.jsonl").read_text().splitlines()
    return {line["url"]: line for line in map(json.loads, lines)}


def test_ledger_and_report_wait_for_the_upload_and_count_its_pages_as_kept(tmp_path):
    crawler = _crawler(tmp_path, {URI: {"format": "pages", "item_filter": EvenPages}})
    urls = [f"http://a.example/p{i}" for i in range(6)]
    exporter, ledger, report = _crawl(crawler, urls)
    (slot,) = exporter.slots
    assert slot.itemcount == 3  # the feed took the even pages only
    ledger.spider_closed("finished")
    report.spider_closed(crawler.spider, "finished")
    assert not (tmp_path / "report" / "report.json").exists()  # the upload has not ended
    slot.finish_exporting()
    try:  # what Scrapy's feed exporter does in a thread as the spider closes
        slot.storage._store_in_thread(slot.file)
    except OSError as exc:
        error = str(exc)
    else:
        raise AssertionError("the upload to a refused port succeeded")
    kept = Path(re.search(r"its content is kept in (\S+)", error).group(1))
    assert failed_uploads(crawler) == {URI: error}
    crawler.signals.send_catch_log(signals.feed_exporter_closed)
    lines = _ledger(tmp_path)
    in_kept = [json.loads(line)["url"] for line in kept.read_text().splitlines()]
    assert sorted(in_kept) == [f"http://a.example/p{i}" for i in (0, 2, 4)]
    for url, line in lines.items():
        if url in in_kept:
            assert (line["outcome"], line["problem"], line["message"]) == (
                "unwritten:upload",
                "kept",
                error,
            )
        else:  # not taken by the failed feed: nothing of it was lost
            assert (line["outcome"], line["problem"]) == ("records", None)
            assert "upload" not in line
    figures = json.loads((tmp_path / "report" / "report.json").read_text())["ledger"]
    assert (figures["requested"], figures["accounted"], figures["kept"]) == (6, 3, 3)
    assert figures["by_outcome"] == {"records": 3}
    stats = crawler.stats.get_stats()
    assert stats["structcrawl/failure/ledger/kept"] == 3
    assert stats["structcrawl/ledger/outcome/records"] == 3


def test_uploads_taking_names_the_feeds_that_took_each_item(tmp_path):
    records_uri = "s3://feeds/crawl/records.jsonl"
    crawler = _crawler(
        tmp_path,
        {
            URI: {"format": "pages", "item_filter": EvenPages},
            records_uri: {"format": "records"},
            str(tmp_path / "pages.jsonl"): {"format": "pages"},  # local: not an upload
        },
    )
    exporter = FeedExporter.from_crawler(crawler)
    crawler.extensions = SimpleNamespace(middlewares=(exporter,))
    exporter.open_spider(crawler.spider)
    taken = []
    for i in range(3):
        item = PageItem(url=f"http://a.example/p{i}", final_url="", status=200)
        item.records = [{"kind": "entity", "format": "json-ld", "error": None}]
        exporter.item_scraped(item, crawler.spider)
        taken.append(uploads_taking(crawler))
    assert taken == [[URI, records_uri], [records_uri], [URI, records_uri]]
    assert uploads_taking(crawler) == []  # nothing new since


def test_without_a_pending_upload_the_ledger_finalizes_at_once(tmp_path):
    crawler = _crawler(tmp_path, {str(tmp_path / "pages.jsonl"): {"format": "pages"}})
    exporter, ledger, report = _crawl(crawler, ["http://a.example/p1"])
    ledger.spider_closed("finished")
    report.spider_closed(crawler.spider, "finished")
    assert _ledger(tmp_path)["http://a.example/p1"]["problem"] is None
    figures = json.loads((tmp_path / "report" / "report.json").read_text())["ledger"]
    assert (figures["accounted"], figures["kept"]) == (1, 0)


def test_callbacks_wait_in_order_and_run_when_the_engine_stops_without_the_exporter(tmp_path):
    crawler = _crawler(tmp_path, {URI: {"format": "pages"}})
    exporter, _, _ = _crawl(crawler, ["http://a.example/p1"])
    calls: list[str] = []
    when_feeds_stored(crawler, lambda: calls.append("ledger"))
    when_feeds_stored(crawler, lambda: calls.append("report"))
    assert calls == []
    crawler.signals.send_catch_log(signals.engine_stopped)  # no feed_exporter_closed came
    assert calls == ["ledger", "report"]
    when_feeds_stored(crawler, lambda: calls.append("later"))
    assert calls == ["ledger", "report"]  # the upload is still pending
    exporter.slots[0].storage.upload.stored()
    when_feeds_stored(crawler, lambda: calls.append("next"))  # waits behind "later"
    assert calls == ["ledger", "report"]
    crawler.signals.send_catch_log(signals.feed_exporter_closed)
    assert calls == ["ledger", "report", "later", "next"]
    when_feeds_stored(crawler, lambda: calls.append("now"))  # the feeds are stored: at once
    assert calls[-1] == "now"
