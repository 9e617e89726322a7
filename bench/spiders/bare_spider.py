"""The bare baseline of the crawl benchmark: fetch every sitemap URL, yield one small item per
page, no parsing, no extraction, no pipelines. Run outside the project:

    scrapy runspider bench/spiders/bare_spider.py -a sitemap=URL -O bare.jsonl
"""

from __future__ import annotations

from typing import Any

from scrapy.spiders import SitemapSpider


class BareSpider(SitemapSpider):
    name = "bare"

    def __init__(self, sitemap: str = "", **kwargs: Any):
        super().__init__(**kwargs)
        self.sitemap_urls = [sitemap]

    def parse(self, response: Any) -> Any:
        yield {"url": response.url, "status": response.status, "size": len(response.body)}
