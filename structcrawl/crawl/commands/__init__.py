"""Scrapy commands of the project (``COMMANDS_MODULE = "structcrawl.crawl.commands"``)."""
