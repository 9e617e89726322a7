"""The project's own spiders: the checkout's Scrapy spider module (``scrapy list`` here).

The generic ``site`` spider lives in the package (:mod:`structcrawl.spiders.site`), so an
installed structcrawl and ``structcrawl crawl`` have it in any folder. This folder holds the
spiders of this project's own sites, beside it: ``scrapy genspider`` writes here, ``scrapy
crawl NAME`` in the checkout and the scrapyd egg (``make deploy``) find them through
:func:`structcrawl.spiders.project_spider_modules`, which knows this package by the marker
below. It is not in the wheel: a top-level ``spiders`` module in site-packages would shadow a
user's own project's.
"""

STRUCTCRAWL_PROJECT_SPIDERS = True
