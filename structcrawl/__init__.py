"""structcrawl: structured data from crawled pages, as records with provenance."""

from structcrawl import _aliases

__version__ = "0.1.0"

_aliases.install()  # old import paths of moved modules keep working, with a warning
