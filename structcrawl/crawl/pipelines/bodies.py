"""Keeps each page's raw bytes in the content-addressed body store."""

from __future__ import annotations

import asyncio
from typing import Any

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from structcrawl.crawl.bodystore import BodyStore, open_store
from structcrawl.crawl.config import BodyStoreConfig

__all__ = ["BodyStorePipeline"]


class BodyStorePipeline:
    def __init__(self, crawler: Crawler, store: BodyStore):
        self.crawler = crawler
        self.stats = crawler.stats
        self.store = store

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BodyStorePipeline:
        config = BodyStoreConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("STRUCTCRAWL_BODY_STORE_ENABLED is off")
        return cls(crawler, open_store(config.uri))

    async def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "body_ref" not in adapter.field_names():
            return item
        body = adapter.get("body") or b""
        if not body:
            return item
        # hashing, gzip and the write release the GIL: off the event loop, on another core
        ref, uri = await asyncio.to_thread(self.store.put, body)
        adapter["body_ref"] = ref
        adapter["body_uri"] = uri
        self.stats.inc_value("structcrawl/bodystore/stored")
        self.stats.inc_value("structcrawl/bodystore/bytes", len(body))
        return item
