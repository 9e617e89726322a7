"""Pages read before the crawl parses them (pure): the crawl registers one reader per crawler
(:class:`structcrawl.crawl.pageworkers.WholeReads`, a page worker reading each page whole); the
download handler asks it for each 2xx HTML page it judges, and judges and parses the page
itself where no reader is registered or the reader declines (None)."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from structcrawl.core.document import Document
    from structcrawl.render.routing import ShellVerdict

__all__ = ["PageReader", "reader_of", "register_reader"]


class PageReader(Protocol):
    async def read(
        self, body: bytes, url: str, content_type: str | None, expect: Sequence[str]
    ) -> tuple[ShellVerdict, Document | None] | None:
        """The verdict on a 2xx HTML page and the page as read (None where judged to need a
        browser); None where the handler judges and parses it itself."""


_READERS: weakref.WeakKeyDictionary[Any, PageReader] = weakref.WeakKeyDictionary()


def register_reader(crawler: Any, reader: PageReader) -> None:
    """``reader`` reads the pages ``crawler``'s download handler judges."""
    _READERS[crawler] = reader


def reader_of(crawler: Any) -> PageReader | None:
    return _READERS.get(crawler)
