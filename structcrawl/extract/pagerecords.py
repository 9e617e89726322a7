"""A page's records as the crawl keeps them (pure): every layer's records, a record saying so
where the page carries none, the page's budget applied (:mod:`structcrawl.core.bounded`).

Run by the extraction pipeline (:mod:`structcrawl.crawl.pipelines.extraction`) and, for a page
read whole before the crawl parses it, by a worker process (:mod:`structcrawl.pageread.whole`):
the same function on the same bytes gives the same records.
"""

from __future__ import annotations

from collections.abc import Iterable

from structcrawl.core.bounded import apply_budget
from structcrawl.core.document import Document
from structcrawl.core.records import Record, error_record
from structcrawl.extract import extract_payload
from structcrawl.extract.config import ExtractConfig

__all__ = ["PARSER", "page_extraction"]

PARSER = "structcrawl.pipelines.extraction"  # a stable parser id (records keep it)


def page_extraction(
    body: bytes,
    url: str,
    content_type: str | None,
    config: ExtractConfig,
    *,
    document: Document | None = None,
    more: Iterable[Record] = (),
) -> tuple[str, list[Record]]:
    """``(payload_kind, records)`` of a fetched page: its layers' records and ``more`` (the
    JSON responses a rendered page fetched), a ``no-records`` skip where they are warnings
    alone, within ``config.budget``.

    >>> config = ExtractConfig(True, ("json-ld",))
    >>> kind, records = page_extraction(b"<p>x</p>", "https://a.test/", None, config)
    >>> kind, [(r.kind, r.error.code) for r in records]
    ('html', [('skip', 'no-records')])
    """
    result = extract_payload(
        body,
        url,
        content_type,
        syntaxes=config.syntaxes,
        document=document,
        options=config.options,
    )
    records = [*result.records, *more]
    if all(r.kind == "warning" for r in records):  # warnings alone carry no data
        records.append(
            error_record(
                source_url=url,
                format="page",
                kind="skip",
                code="no-records",
                message=f"{result.payload_kind} page without structured data",
                parser=PARSER,
            )
        )
    return result.payload_kind, apply_budget(records, config.budget, source_url=url, parser=PARSER)
