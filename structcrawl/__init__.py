"""structcrawl: structured data from crawled pages, as records with provenance."""

__version__ = "0.1.0"
