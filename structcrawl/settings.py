"""Scrapy settings for structcrawl.

``STRUCTCRAWL_*`` defaults and their documentation live in :mod:`structcrawl.config`.
"""

from structcrawl import logsafety
from structcrawl.config import DEFAULTS

logsafety.install()  # Scrapy logs overridden settings verbatim: keep secrets out of logs

BOT_NAME = "structcrawl"
SPIDER_MODULES = ["spiders"]
NEWSPIDER_MODULE = "spiders"
# `scrapy crawl` exits non-zero when the crawl failed (structcrawl.health), unlike Scrapy's.
COMMANDS_MODULE = "structcrawl.commands"

USER_AGENT = "structcrawl/0.1 (+https://github.com/structcrawl/structcrawl)"
ROBOTSTXT_OBEY = True
# Non-2xx responses reach the spider so that every URL ends as a record (an error record).
HTTPERROR_ALLOW_ALL = True
COOKIES_DEBUG = False  # would log Cookie headers
# The asyncio reactor is also what scrapy-playwright (the browser handler) requires.
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
# Plain HTTP, or a headless browser for pages that need JavaScript (structcrawl.render).
DOWNLOAD_HANDLERS = {
    "http": "structcrawl.render.handler.RenderDownloadHandler",
    "https": "structcrawl.render.handler.RenderDownloadHandler",
}
CONCURRENT_REQUESTS_PER_DOMAIN = 8
AUTOTHROTTLE_ENABLED = False
TELNETCONSOLE_ENABLED = False
FEED_EXPORT_ENCODING = "utf-8"

ITEM_PIPELINES = {
    "structcrawl.pipelines.BodyStorePipeline": 100,
    "structcrawl.pipelines.ExtractionPipeline": 200,
    "structcrawl.pipelines.network.RenderGainPipeline": 250,
    "structcrawl.pipelines.selectors.SelectorPipeline": 300,
    "structcrawl.pipelines.normalization.NormalizationPipeline": 400,
    "structcrawl.pipelines.validation.ValidationPipeline": 500,
    "structcrawl.pipelines.EntityPipeline": 600,
}
ADDONS = {
    "structcrawl.feeds.InvalidFeedAddon": 0,
    # STRUCTCRAWL_INCREMENTAL: Scrapy's HTTP cache with revalidation (structcrawl.changes)
    "structcrawl.changes.httpcache.IncrementalAddon": 0,
}
# page items say how the HTTP cache served them (only when the cache is on)
SPIDER_MIDDLEWARES = {
    "structcrawl.changes.httpcache.HttpCacheStatusMiddleware": 800,
}
EXTENSIONS = {
    "structcrawl.report.extension.QualityReport": 500,
}
FEED_EXPORTERS = {
    "records": "structcrawl.exporters.RecordsJsonLinesExporter",
    "pages": "structcrawl.exporters.PagesJsonLinesExporter",
    "entities": "structcrawl.exporters.EntitiesJsonLinesExporter",
    "entities-csv": "structcrawl.exporters.EntitiesCsvExporter",
    "entities-delta": "structcrawl.exporters.EntitiesDeltaJsonLinesExporter",
}

for _name, _setting in DEFAULTS.items():
    globals()[_name] = _setting.default
del _name, _setting
