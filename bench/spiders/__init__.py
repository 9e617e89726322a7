"""Anchor spiders of the crawl benchmark: what a user would write instead of structcrawl, run
with ``scrapy runspider`` outside the project (no project settings)."""
