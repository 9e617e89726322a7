"""Scrapy settings for structcrawl.

``STRUCTCRAWL_*`` defaults and their documentation live in :mod:`structcrawl.config`.
"""

from structcrawl.config import DEFAULTS

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
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
CONCURRENT_REQUESTS_PER_DOMAIN = 8
AUTOTHROTTLE_ENABLED = False
TELNETCONSOLE_ENABLED = False
FEED_EXPORT_ENCODING = "utf-8"

ITEM_PIPELINES = {
    "structcrawl.pipelines.BodyStorePipeline": 100,
    "structcrawl.pipelines.ExtractionPipeline": 200,
    "structcrawl.pipelines.EntityPipeline": 600,
}
EXTENSIONS = {
    "structcrawl.report.extension.QualityReport": 500,
}
FEED_EXPORTERS = {
    "records": "structcrawl.exporters.RecordsJsonLinesExporter",
    "pages": "structcrawl.exporters.PagesJsonLinesExporter",
    "entities": "structcrawl.exporters.EntitiesJsonLinesExporter",
    "entities-csv": "structcrawl.exporters.EntitiesCsvExporter",
}

for _name, _setting in DEFAULTS.items():
    globals()[_name] = _setting.default
del _name, _setting
