"""Keeps each page's raw bytes in the content-addressed body store; for a rendered page also
the server's own HTML (``server_body_ref``, beside ``body_ref``, the rendered DOM) and the
bodies of the JSON responses captured while rendering (``render.network_bodies``: url,
status, body_ref), under the capture's size cap (:mod:`structcrawl.render.evidence`).

Stats: ``structcrawl/bodystore/stored``, ``/bytes``, ``/server_html``, ``/network_json``.
"""

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
        return cls(crawler, open_store(config.uri, config.compression))

    async def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "body_ref" not in adapter.field_names():
            return item
        body = adapter.get("body") or b""
        if body:
            # hashing, compression and the write release the GIL: off the event loop
            ref, uri = await asyncio.to_thread(self.store.put, body)
            adapter["body_ref"] = ref
            adapter["body_uri"] = uri
            self.stats.inc_value("structcrawl/bodystore/stored")
            self.stats.inc_value("structcrawl/bodystore/bytes", len(body))
        await self._evidence(adapter)
        return item

    async def _evidence(self, adapter: ItemAdapter) -> None:
        """A rendered page's server HTML and captured JSON bodies."""
        names = adapter.field_names()
        server = adapter.get("server_body") if "server_body" in names else None
        if server:
            ref, uri = await asyncio.to_thread(self.store.put, server)
            adapter["server_body_ref"], adapter["server_body_uri"] = ref, uri
            self.stats.inc_value("structcrawl/bodystore/server_html")
        render = adapter.get("render") if "render" in names else None
        network = adapter.get("network") if "network" in names else None
        if not isinstance(render, dict) or not network:
            return
        kept = []
        for entry in network:
            text = entry.get("text")
            if text is None:  # over the capture's size cap: not kept (a skip record says so)
                continue
            ref, _ = await asyncio.to_thread(self.store.put, str(text).encode("utf-8"))
            kept.append({"url": entry.get("url"), "status": entry.get("status"), "body_ref": ref})
            self.stats.inc_value("structcrawl/bodystore/network_json")
        render["network_bodies"] = kept
