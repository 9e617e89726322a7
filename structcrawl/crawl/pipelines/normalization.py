"""Normalization: runs :func:`structcrawl.normalize.normalize_record` over a page's records.

The context comes from the page item: its final URL, the parsed document's base URL
(``<base href>`` counts) and ``<html lang>``, and the site's time zone
(``STRUCTCRAWL_SITE_TIMEZONES``, else ``STRUCTCRAWL_DEFAULT_TIMEZONE``). Flags are counted in
stats as ``structcrawl/normalize/flag/<code>``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from structcrawl.core.document import Document, page_language
from structcrawl.crawl.config import NormalizeConfig, RulesConfig
from structcrawl.normalize import NormalizeContext, normalize_record
from structcrawl.rules import RuleSet, load_rules

__all__ = ["NormalizationPipeline", "page_context"]


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def _language(document: Any) -> str | None:
    return page_language(document) if isinstance(document, Document) else None


def page_context(
    adapter: ItemAdapter, config: NormalizeConfig, rules: RuleSet | None = None
) -> NormalizeContext:
    """The normalization context of one page item: the page's ``<html lang>``, else the site
    rules' language; the ``STRUCTCRAWL_SITE_TIMEZONES`` zone, else the site rules' zone, else
    ``STRUCTCRAWL_DEFAULT_TIMEZONE``."""
    url = adapter.get("final_url") or adapter.get("url") or ""
    document = adapter.get("document")
    site = rules.for_url(url) if rules is not None else None
    timezone = config.timezone_for(_host(url), default=False)
    return NormalizeContext(
        page_url=url,
        base_url=getattr(document, "base_url", None) or None,
        language=_language(document) or (site.language if site else None),
        timezone=timezone
        or (site.timezone if site and site.timezone else None)
        or config.timezone_for(None),
    )


def _flags(record: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield from record.get("flags") or []
    for value in (record.get("properties") or {}).values():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, dict) and "properties" in v:
                yield from _flags(v)


class NormalizationPipeline:
    def __init__(self, crawler: Crawler, config: NormalizeConfig, rules: RuleSet | None = None):
        self.crawler = crawler
        self.stats = crawler.stats
        self.config = config
        self.rules = rules

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> NormalizationPipeline:
        config = NormalizeConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("STRUCTCRAWL_NORMALIZE_ENABLED is off")
        rules = RulesConfig.from_settings(crawler.settings)
        return cls(crawler, config, load_rules(rules.rules_dir) if rules.enabled else None)

    def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "records" not in adapter.field_names():
            return item
        records = adapter.get("records") or []
        ctx = page_context(adapter, self.config, self.rules)
        counts: Counter[str] = Counter()  # one stats update per key and page, not per record
        for record in records:
            if not isinstance(record, dict):
                continue
            normalize_record(record, ctx)
            if record.get("kind", "entity") == "entity":
                counts["structcrawl/normalize/records"] += 1
            for flag in _flags(record):
                counts[f"structcrawl/normalize/flag/{flag.get('code')}"] += 1
        inc = self.stats.inc_value
        for key, count in counts.items():
            inc(key, count)
        inc("structcrawl/normalize/pages")
        return item
