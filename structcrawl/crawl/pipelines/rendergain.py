"""After extraction, for pages fetched with the browser: was rendering worth it?

The page's ``network-json`` records (XHR/fetch JSON responses captured while rendering) are
added by ``ExtractionPipeline`` beside the rendered DOM's layers; this pipeline then compares
the page's entity records with those of its HTTP version (``render.records_http``, counted by
the download handler from the HTTP response or the browser's own navigation response). A
rendered page whose records did not grow counts as
``structcrawl/render/mispredicted/rendered_without_gain`` (otherwise
``structcrawl/render/gained``), and its ``render`` context gets ``records_rendered`` and
``gain``. An audited page (``reason`` ``audit``: :mod:`structcrawl.render.audit`) was not
predicted to need the browser, so it is not counted as a misprediction. The captured
response bodies are dropped here: they are never exported.
"""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from structcrawl.crawl.config import RenderConfig

__all__ = ["RenderGainPipeline"]


class RenderGainPipeline:
    def __init__(self, crawler: Crawler, config: RenderConfig):
        self.crawler = crawler
        self.stats = crawler.stats
        self.config = config

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RenderGainPipeline:
        config = RenderConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("STRUCTCRAWL_RENDER_ENABLED is off")
        return cls(crawler, config)

    def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        names = adapter.field_names()
        if "render" not in names or "records" not in names:
            return item
        if "network" in names:
            adapter["network"] = []
        render = adapter.get("render")
        if not isinstance(render, dict) or render.get("records_http") is None:
            return item
        rendered = sum(
            1
            for r in adapter.get("records") or []
            if r.get("kind") == "entity" and r.get("format") != "selector"
        )
        gain = rendered - int(render["records_http"])
        render["records_rendered"] = rendered
        render["gain"] = gain
        if render.get("reason") == "audit":
            pass  # a sample, not a prediction: the audit counts its own outcome
        elif gain > 0:
            self.stats.inc_value("structcrawl/render/gained")
        else:
            self.stats.inc_value("structcrawl/render/mispredicted/rendered_without_gain")
        return item
