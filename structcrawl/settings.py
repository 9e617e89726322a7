"""Scrapy settings of the structcrawl project (``scrapy crawl site``, scrapyd, ``structcrawl
crawl``): the ``site`` spider, with :class:`structcrawl.Addon` bringing everything else.

What the add-on sets, and why, is in :mod:`structcrawl.crawl.addon`; every ``STRUCTCRAWL_*``
default in :mod:`structcrawl.crawl.config` (docs/settings.md). Settings given here or with
``-s NAME=value`` win over the add-on's.
"""

from structcrawl.core import logsafety
from structcrawl.crawl import addon as _addon
from structcrawl.spiders import project_spider_modules

logsafety.install()  # Scrapy logs overridden settings verbatim: keep secrets out of logs

BOT_NAME = "structcrawl"
# The site spider ships in the package: `structcrawl crawl` and scrapyd eggs find it wherever
# they run (no top-level module of our own in site-packages). The project's own spiders, in the
# checkout's top-level `spiders/` (and its scrapyd egg), join it where that package is found.
_PROJECT_SPIDERS = project_spider_modules()
SPIDER_MODULES = ["structcrawl.spiders", *_PROJECT_SPIDERS]
NEWSPIDER_MODULE = (_PROJECT_SPIDERS or ["structcrawl.spiders"])[0]
# `scrapy crawl` exits non-zero when the crawl failed (structcrawl.crawl.health), unlike Scrapy's.
COMMANDS_MODULE = "structcrawl.commandline.scrapy_commands"
# The asyncio reactor is also what scrapy-playwright (the browser handler) requires.
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"

ADDONS = {"structcrawl.Addon": 0}
# Scrapy checks `-o FILE:FORMAT` before add-ons run: the feed formats are named here too.
FEED_EXPORTERS = dict(_addon.FEED_EXPORTERS)
