"""Scrapy settings for structcrawl.

``STRUCTCRAWL_*`` defaults and their documentation live in :mod:`structcrawl.crawl.config`.
"""

from structcrawl.core import logsafety
from structcrawl.crawl.config import DEFAULTS

logsafety.install()  # Scrapy logs overridden settings verbatim: keep secrets out of logs

BOT_NAME = "structcrawl"
SPIDER_MODULES = ["spiders"]
NEWSPIDER_MODULE = "spiders"
# `scrapy crawl` exits non-zero when the crawl failed (structcrawl.crawl.health), unlike Scrapy's.
COMMANDS_MODULE = "structcrawl.crawl.commands"

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
    "structcrawl.crawl.pipelines.BodyStorePipeline": 100,
    "structcrawl.crawl.pipelines.ExtractionPipeline": 200,
    "structcrawl.crawl.pipelines.rendergain.RenderGainPipeline": 250,
    "structcrawl.crawl.pipelines.selectors.SelectorPipeline": 300,
    "structcrawl.crawl.pipelines.normalization.NormalizationPipeline": 400,
    "structcrawl.crawl.pipelines.validation.ValidationPipeline": 500,
    "structcrawl.crawl.pipelines.EntityPipeline": 600,
}
ADDONS = {
    "structcrawl.crawl.feeds.InvalidFeedAddon": 0,
    # STRUCTCRAWL_INCREMENTAL: Scrapy's HTTP cache with revalidation (structcrawl.changes)
    "structcrawl.changes.httpcache.IncrementalAddon": 0,
    # STRUCTCRAWL_REDIS_URL: one crawl across several workers (structcrawl.distributed)
    "structcrawl.distributed.DistributedAddon": 0,
}
EXTENSIONS = {
    # the page ledger closes before the report, which shows its figures
    "structcrawl.ledger.extension.PageLedger": 400,
    "structcrawl.report.extension.QualityReport": 500,
}
# Reliability (docs/reliability.md): retries of transient failures only, with backoff and
# Retry-After (Scrapy's RetryMiddleware retries at once); redirect loops, over-long chains and
# off-site redirects end as error records instead of vanishing.
DOWNLOADER_MIDDLEWARES = {
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "structcrawl.crawl.middlewares.BackoffRetryMiddleware": 550,
    "structcrawl.crawl.middlewares.RedirectGuardMiddleware": 610,
    "structcrawl.crawl.challenges.ChallengeMiddleware": 560,  # before retry: never retried
}
RETRY_TIMES = 3  # 4 attempts: waits of 1, 2, 4 s (STRUCTCRAWL_RETRY_BACKOFF_*)
# a page given up on ends as an error record (accounted): not a crawl error
RETRY_GIVE_UP_LOG_LEVEL = "WARNING"
DOWNLOAD_MAXSIZE = 32 * 1024 * 1024  # larger responses end as too-large error records
DOWNLOAD_WARNSIZE = 8 * 1024 * 1024
REDIRECT_MAX_TIMES = 10
FEED_EXPORTERS = {
    "records": "structcrawl.crawl.exporters.RecordsJsonLinesExporter",
    "pages": "structcrawl.crawl.exporters.PagesJsonLinesExporter",
    "entities": "structcrawl.crawl.exporters.EntitiesJsonLinesExporter",
    "entities-csv": "structcrawl.crawl.exporters.EntitiesCsvExporter",
    "entities-delta": "structcrawl.crawl.exporters.EntitiesDeltaJsonLinesExporter",
    "items": "structcrawl.crawl.exporters.ItemsJsonLinesExporter",
    "items-csv": "structcrawl.crawl.exporters.ItemsCsvExporter",
    "graph": "structcrawl.crawl.exporters.GraphNQuadsExporter",
}

for _name, _setting in DEFAULTS.items():
    globals()[_name] = _setting.default
del _name, _setting
