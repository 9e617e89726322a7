"""``scrapy crawl`` that exits non-zero when the crawl failed.

Scrapy's own command exits 0 even when a feed upload failed or the browser never started.
This one runs the same crawl and then checks the crawler's stats with
:func:`structcrawl.crawl.health.crawl_failures`: any reason prints ``structcrawl: crawl failed``
with the reasons on stderr and sets exit code 1.
"""

from __future__ import annotations

import argparse
import sys

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.exceptions import UsageError

from structcrawl.crawl.health import crawl_failures

__all__ = ["Command"]


class Command(ScrapyCrawlCommand):
    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give exactly one spider name")
        assert self.crawler_process
        crawler = self._create_crawler(args[0])
        self.crawler_process.crawl(crawler, **opts.spargs)
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
            return
        reasons = crawl_failures(crawler.stats.get_stats() if crawler.stats else {})
        if reasons:
            print("structcrawl: crawl failed:", file=sys.stderr)
            for reason in reasons:
                print(f"  {reason}", file=sys.stderr)
            self.exitcode = 1
