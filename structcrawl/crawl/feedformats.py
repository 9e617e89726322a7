"""The feed formats of structcrawl (``-o FILE:FORMAT``, ``FEEDS``): format name -> exporter
class path. No Scrapy import: ``structcrawl crawl`` reads these names in its own process, which
only runs ``scrapy crawl`` as a child and so never loads Scrapy itself (issue 24: the parent
process then holds ~20 MB instead of ~70 MB)."""

from __future__ import annotations

from structcrawl.core.setting import Setting

__all__ = ["FEED_EXPORTERS", "SETTINGS"]

FEED_EXPORTERS = {
    "records": "structcrawl.crawl.exporters.RecordsJsonLinesExporter",
    "pages": "structcrawl.crawl.exporters.PagesJsonLinesExporter",
    "entities": "structcrawl.crawl.exporters.EntitiesJsonLinesExporter",
    "entities-csv": "structcrawl.crawl.exporters.EntitiesCsvExporter",
    "entities-delta": "structcrawl.crawl.exporters.EntitiesDeltaJsonLinesExporter",
    "items": "structcrawl.crawl.exporters.ItemsJsonLinesExporter",
    "items-csv": "structcrawl.crawl.exporters.ItemsCsvExporter",
    "items-merged": "structcrawl.crawl.exporters.MergedItemsJsonLinesExporter",
    "graph": "structcrawl.crawl.exporters.GraphNQuadsExporter",
}

#: The feeds' settings (gathered into :data:`structcrawl.crawl.config.DEFAULTS`).
SETTINGS: dict[str, Setting] = {
    "STRUCTCRAWL_PAGES_VISIBLE_FACTS": Setting(
        "read",
        "The visible facts a line of the pages feed carries: 'read' (the facts the crawl's "
        "checks already read from the page, e.g. the prices of a page whose records carry a "
        "price) or 'all' (every fact, read from the page for the feed: a walk of the whole "
        "visible page per page).",
    ),
}
