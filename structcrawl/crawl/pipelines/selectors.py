"""Site rules and visible-page facts on each page item (after semantic extraction).

For every page item that carries a parsed document, :class:`SelectorPipeline` stores the page's
visible facts (``item.visible``, a mapping read lazily from the page, fact by fact, when a check
or the pages feed asks) and, when a site's rules match the page URL and the page was fetched
successfully, lets those rules fill or create records
(:func:`structcrawl.rules.apply_rules`). Rules are loaded once, when the crawl starts: a broken
rules file stops the crawl at start-up with the file name and the reason.

Stats: ``structcrawl/rules/pages`` (pages a site's rules ran on),
``structcrawl/rules/filled/<Type>/<field>``, ``structcrawl/rules/created/<Type>``.
"""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from structcrawl.core.document import Document
from structcrawl.crawl.config import RulesConfig
from structcrawl.rules import RuleSet, load_rules, run_rules
from structcrawl.visible.facts import LazyVisibleFacts

__all__ = ["SelectorPipeline"]


class SelectorPipeline:
    def __init__(self, crawler: Crawler, config: RulesConfig, rules: RuleSet):
        self.crawler = crawler
        self.stats = crawler.stats
        self.config = config
        self.rules = rules

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SelectorPipeline:
        config = RulesConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("STRUCTCRAWL_RULES_ENABLED is off")
        return cls(crawler, config, load_rules(config.rules_dir))

    def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        fields = adapter.field_names()
        document = adapter.get("document")
        if "records" not in fields or not isinstance(document, Document):
            return item
        if "visible" in fields:
            # read from the page only when something asks (a check, the pages feed)
            adapter["visible"] = LazyVisibleFacts(document)
        status = adapter.get("status")
        if adapter.get("fetch_error") or (status is not None and status >= 400):
            return item
        site = self.rules.for_url(document.url)
        if site is None:
            return item
        self.stats.inc_value("structcrawl/rules/pages")
        outcome = run_rules(site, document, list(adapter.get("records") or []))
        for type_, name in outcome.filled:
            self.stats.inc_value(f"structcrawl/rules/filled/{type_}/{name}")
        for type_ in outcome.created:
            self.stats.inc_value(f"structcrawl/rules/created/{type_}")
        if outcome.created and hasattr(item, "page_info"):
            fetch = item.page_info()
            for record in outcome.records:
                provenance = record.get("provenance")
                if record.get("format") == "selector" and isinstance(provenance, dict):
                    provenance.setdefault("fetch", dict(fetch))
        adapter["records"] = outcome.records
        return item
