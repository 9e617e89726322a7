"""The worker of the frontier benchmark (bench/bench_frontier.py): one worker of a distributed
crawl whose frontier was seeded in Redis; yields one small item per page and follows its
links. Run outside the project by the benchmark:

    scrapy runspider bench/spiders/frontier_spider.py -s STRUCTCRAWL_REDIS_URL=... -s ...
"""

from __future__ import annotations

from typing import Any

import scrapy


class FrontierSpider(scrapy.Spider):
    name = "frontier"
    custom_settings = {
        "ADDONS": {"structcrawl.distributed.DistributedAddon": 0},
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
    }

    async def start(self) -> Any:  # the frontier is in Redis already
        return
        yield

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href)
