"""Playwright's log of an event listener that ran into its closed page (logging only).

scrapy-playwright listens to each rendered page's responses (to read their headers). A
listener still running when its page, its context or its browser closes (the browser killed
or crashed, which the render handler relaunches, retrying the pages it had open:
:mod:`structcrawl.render._browserpool`) raises Playwright's ``TargetClosedError``, which
Playwright's connection logs at ERROR ("Error occurred in event listener"). That is no failure
of the crawl: each page's own outcome says whether it was rendered (a page its browser died
under twice ends as an error record, and the ledger accounts for every page). Scrapy counts
every ERROR, and structcrawl fails a crawl that logged one, so the record goes out at WARNING,
its message and traceback kept, and is counted (``structcrawl/render/browser/closed_listener``).
Any other error of a listener stays an ERROR.

>>> import logging
>>> from playwright._impl._errors import TargetClosedError
>>> seen = []
>>> tell = ClosedTargetListener(lambda: seen.append(1))
>>> record = logging.LogRecord("playwright", logging.ERROR, __file__, 1, LISTENER_ERROR, None,
...     (TargetClosedError, TargetClosedError("Target page has been closed"), None))
>>> tell.filter(record), record.levelname, seen
(True, 'WARNING', [1])
"""

from __future__ import annotations

import logging
from collections.abc import Callable

__all__ = ["LISTENER_ERROR", "ClosedTargetListener", "install"]

#: what Playwright's connection logs when an event listener raised
LISTENER_ERROR = "Error occurred in event listener"
_LOGGER = "playwright"


class ClosedTargetListener(logging.Filter):
    """Logs a listener's ``TargetClosedError`` at WARNING (see the module doc); ``counted``
    is called for each."""

    def __init__(self, counted: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.counted = counted

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and record.msg == LISTENER_ERROR:
            exc = record.exc_info[1] if record.exc_info else None
            if type(exc).__name__ == "TargetClosedError":  # Playwright's, by its name: its
                record.levelno, record.levelname = logging.WARNING, "WARNING"  # module is private
                if self.counted is not None:
                    self.counted()
        return True


def install(counted: Callable[[], None] | None) -> ClosedTargetListener:
    """The filter on Playwright's logger, added once per process (a later crawl's ``counted``
    replaces an earlier one's)."""
    logger = logging.getLogger(_LOGGER)
    for known in logger.filters:
        if isinstance(known, ClosedTargetListener):
            known.counted = counted
            return known
    made = ClosedTargetListener(counted)
    logger.addFilter(made)
    return made
