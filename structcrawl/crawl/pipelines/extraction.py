"""Semantic extraction: turns a page item into the page's records (errors included).

Scrapy pipelines return one item per item, so a page item carries its records and the
``records`` feed exporter writes one line per record (docs/architecture.md).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from structcrawl.core.records import Record, error_record
from structcrawl.crawl.config import ExtractConfig
from structcrawl.extract.pagerecords import PARSER, page_extraction
from structcrawl.render.network import network_records

__all__ = ["ExtractionPipeline", "page_records"]


def page_records(adapter: ItemAdapter, config: ExtractConfig) -> tuple[str | None, list[Record]]:
    """``(payload_kind, records)`` for one page item: fetch failures, HTTP errors and pages
    without data each end as a record saying so."""
    url = adapter.get("final_url") or adapter["url"]
    fetch_error = adapter.get("fetch_error")
    if fetch_error:
        return None, [
            error_record(
                source_url=url,
                format="page",
                code=fetch_error.get("code", "fetch-failed"),
                message=fetch_error.get("message", ""),
                parser=PARSER,
            )
        ]
    status = adapter.get("status")
    if status is not None and status >= 400:
        return None, [
            error_record(
                source_url=url,
                format="page",
                code=f"http-{status}",
                message=f"HTTP status {status}",
                parser=PARSER,
            )
        ]
    network = adapter.get("network") if "network" in adapter.field_names() else None
    return page_extraction(
        adapter.get("body") or b"",
        url,
        adapter.get("content_type"),
        config,
        document=adapter.get("document"),
        # JSON responses the page fetched while it was rendered (structcrawl.render)
        more=network_records(network, page_url=url) if network else (),
    )


def _read_records(adapter: ItemAdapter) -> tuple[str | None, list[dict[str, Any]]] | None:
    """The records a worker process extracted when it read the page whole before the crawl
    parsed it (:mod:`structcrawl.pageread.whole`), where they are the page's: fetched over
    HTTP, without error."""
    reading = getattr(adapter.get("document"), "reading", None)
    if reading is None or reading.records is None or adapter.get("fetch_error"):
        return None
    if "network" in adapter.field_names() and adapter.get("network"):
        return None
    return reading.payload_kind, reading.records


class ExtractionPipeline:
    def __init__(self, crawler: Crawler, config: ExtractConfig):
        self.crawler = crawler
        self.stats = crawler.stats
        self.config = config

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ExtractionPipeline:
        config = ExtractConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("STRUCTCRAWL_EXTRACT_ENABLED is off")
        return cls(crawler, config)

    def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "records" not in adapter.field_names():
            return item
        read = _read_records(adapter)
        if read is not None:
            kind, dicts = read
            self.stats.inc_value("structcrawl/extract/read_by_worker")
        else:
            found, records = page_records(adapter, self.config)
            kind, dicts = found, [rec.to_dict() for rec in records]
        if kind is not None:
            adapter["payload_kind"] = kind
            self.stats.inc_value(f"structcrawl/extract/payload/{kind}")
        fetch = item.page_info() if hasattr(item, "page_info") else {}
        out = []
        counts: Counter[str] = Counter()  # one stats update per key and page, not per record
        for data in dicts:
            counts[f"structcrawl/extract/{data['kind']}/{data['format']}"] += 1
            if data["error"] is not None:
                counts[f"structcrawl/extract/error_code/{data['error']['code']}"] += 1
            for label in data["repairs"]:
                counts[f"structcrawl/extract/repair/{label}"] += 1
            data["provenance"]["fetch"] = fetch
            out.append(data)
        inc = self.stats.inc_value
        for key, count in counts.items():
            inc(key, count)
        adapter["records"] = out
        self.stats.inc_value("structcrawl/extract/pages")
        return item
