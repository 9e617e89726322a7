"""The ``demo`` spider: the ``site`` spider set up for the bundled demo site (``fixtures/site``).

``make demo`` runs it; by hand, serve the site and crawl it::

    python -m structcrawl.dev.devserver --root fixtures/site --port 8765 &
    scrapy crawl demo -O records.jsonl:records

It starts at the demo's address (``-a start_urls=URL`` names another) and reads the site rules
that live with the demo site (``fixtures/site/rules``: time zone, a selector rule, a click
rule) unless ``STRUCTCRAWL_RULES_DIR`` is given; where that folder is absent (a scrapyd egg)
the crawl runs without site rules, like ``site``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scrapy.settings import BaseSettings

from structcrawl.spiders.site import SiteSpider

__all__ = ["DEMO_RULES", "DEMO_URL", "DemoSpider"]

#: Where ``make demo`` and ``python -m structcrawl.dev.devserver`` serve the demo site.
DEMO_URL = "http://127.0.0.1:8765/"
#: The demo site's own rules, beside its pages.
DEMO_RULES = Path(__file__).resolve().parent.parent / "fixtures" / "site" / "rules"


class DemoSpider(SiteSpider):
    name = "demo"

    def __init__(self, start_urls: str | None = None, **kwargs: Any):
        if not start_urls and not kwargs.get("sitemap"):
            start_urls = DEMO_URL
        super().__init__(start_urls=start_urls, **kwargs)

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        super().update_settings(settings)
        if DEMO_RULES.is_dir():
            settings.set("STRUCTCRAWL_RULES_DIR", str(DEMO_RULES), priority="spider")
