"""A page's work done in a worker process (pure; asked by
:mod:`structcrawl.crawl.pipelines.pagework`, run by :mod:`structcrawl.workers.serve`).

:func:`read_page` parses the page's bytes as the crawl did (the same function on the same
bytes and headers gives the same tree) and reads what the crawl asks of it: the visible page's
readings (:func:`structcrawl.visible.wire.readings`) and the article main text
(:func:`structcrawl.workers.maintext.document_main_text`). It imports no Scrapy; trafilatura
only with the first main text asked for.
"""

from __future__ import annotations

from typing import Any

from structcrawl.core.document import parse_html

__all__ = ["READ_PAGE", "read_page"]

#: how the crawl names :func:`read_page` to its workers
READ_PAGE = "structcrawl.workers.page:read_page"


def read_page(
    data: bytes,
    url: str,
    content_type: str | None,
    visible: bool,
    main_text: bool,
    product: bool = True,
) -> dict[str, Any]:
    """``{"visible": readings, "main_text": text}``, each where asked for; ``product``: the
    visible readings a product's records need (:func:`structcrawl.visible.wire.readings`),
    else the grid's.

    >>> page = b"<h1>Kettle</h1><b>9,90 EUR</b>"
    >>> said = read_page(page, "https://s.example/k", None, True, False)
    >>> said["visible"]["evidence"]["price"], "main_text" in said
    ('9,90 EUR', False)
    """
    document = parse_html(data, url, content_type=content_type)
    said: dict[str, Any] = {}
    if visible:
        from structcrawl.visible.wire import readings

        said["visible"] = readings(document, product=product, grid=not product)
    if main_text:
        from structcrawl.workers.maintext import document_main_text

        said["main_text"] = document_main_text(document)
    return said
