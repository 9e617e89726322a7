"""The least a user would write to scrape structured data: one XPath for the JSON-LD scripts,
``json.loads`` on each, one item per page. Run outside the project:

    scrapy runspider bench/spiders/jsonld_spider.py -a sitemap=URL -O jsonld.jsonl
"""

from __future__ import annotations

import json
from typing import Any

from scrapy.spiders import SitemapSpider


class JsonLdSpider(SitemapSpider):
    name = "jsonld"

    def __init__(self, sitemap: str = "", **kwargs: Any):
        super().__init__(**kwargs)
        self.sitemap_urls = [sitemap]

    def parse(self, response: Any) -> Any:
        data = []
        for text in response.xpath('//script[@type="application/ld+json"]/text()').getall():
            try:
                data.append(json.loads(text))
            except ValueError:
                continue
        yield {"url": response.url, "jsonld": data}
