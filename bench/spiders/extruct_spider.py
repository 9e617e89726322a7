"""Scrapy + extruct, the usual library answer: JSON-LD, Microdata, Open Graph and RDFa of
each page, one item per page. Run outside the project:

    scrapy runspider bench/spiders/extruct_spider.py -a sitemap=URL -O extruct.jsonl
"""

from __future__ import annotations

from typing import Any

import extruct
from scrapy.spiders import SitemapSpider

SYNTAXES = ["json-ld", "microdata", "opengraph", "rdfa"]


class ExtructSpider(SitemapSpider):
    name = "extruct"

    def __init__(self, sitemap: str = "", **kwargs: Any):
        super().__init__(**kwargs)
        self.sitemap_urls = [sitemap]

    def parse(self, response: Any) -> Any:
        data = extruct.extract(
            response.text, base_url=response.url, syntaxes=SYNTAXES, errors="ignore"
        )
        yield {"url": response.url, **data}
