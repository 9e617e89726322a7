"""The feed formats of structcrawl (``-o FILE:FORMAT``, ``FEEDS``): format name -> exporter
class path. No Scrapy import: ``structcrawl crawl`` reads these names in its own process, which
only runs ``scrapy crawl`` as a child and so never loads Scrapy itself (issue 24: the parent
process then holds ~20 MB instead of ~70 MB)."""

from __future__ import annotations

__all__ = ["FEED_EXPORTERS"]

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
