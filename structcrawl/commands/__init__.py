"""Scrapy commands of the project (``COMMANDS_MODULE = "structcrawl.commands"``)."""
