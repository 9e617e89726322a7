"""Typed items: the product, article, event, ... a page is about, as flat documented objects
with per-field provenance and conflicts (pure; no Scrapy imports).

>>> items = page_items(b'<script type="application/ld+json">{"@context": "https://schema.org",'
...     b' "@type": "Product", "name": "Mug", "sku": "M1", "offers": {"@type": "Offer",'
...     b' "price": 12, "priceCurrency": "EUR", "availability": "https://schema.org/InStock"}}'
...     b'</script><h1>Mug</h1>', "https://shop.example/mug", "text/html")
>>> [items[0][k] for k in ("type", "name", "price", "currency", "availability", "sku")]
['Product', 'Mug', '12.00', 'EUR', 'InStock', 'M1']
>>> items[0]["provenance"]["price"]["layer"], items[0]["role"]
('json-ld', 'primary')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from structcrawl.core.document import Document, parse_html
from structcrawl.core.payload import classify
from structcrawl.entities.merge import DEFAULT_PRECEDENCE
from structcrawl.extract import extract_payload
from structcrawl.normalize import NormalizeContext, normalize_record
from structcrawl.typed.classes import item_dict
from structcrawl.typed.page import build_items
from structcrawl.typed.schema import as_checked_items

__all__ = ["build_items", "page_items"]


def page_items(
    body: bytes,
    url: str,
    content_type: str | None = None,
    *,
    precedence: Sequence[str] = DEFAULT_PRECEDENCE,
    document: Document | None = None,
    article_body: bool = True,
) -> list[dict[str, Any]]:
    """The items of one page, primary first (``[]`` for a payload that carries none), from
    its records normalized as the crawl normalizes them (site rules and time zones aside), in
    the feeds' shape (absent fields left out, schema failures in ``validation.schema``)."""
    kind = classify(content_type, body)
    doc = document
    if doc is None and kind in ("html", "xhtml"):
        try:
            doc = parse_html(body, url, content_type=content_type)
        except Exception:  # a page that cannot be parsed has no visible evidence
            doc = None
    result = extract_payload(body, url, content_type, document=doc)
    records = [r.to_dict() for r in result.records]
    context = NormalizeContext(
        page_url=url,
        base_url=getattr(doc, "base_url", None) or None,
        language=((doc.root.get("lang") or "").strip() or None) if doc is not None else None,
    )
    for record in records:  # the crawl's normalization: one normalized value everywhere
        normalize_record(record, context)
    items = build_items(
        records,
        url,
        doc if result.payload_kind != "json" else None,
        precedence=precedence,
        article_body=article_body,
    )
    # as the crawl's feeds write them: through the item classes, checked against the schemas
    return [item_dict(item) for item in as_checked_items(items)[0]]
