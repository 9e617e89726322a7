"""The product's id as its URL writes it, a last SKU candidate (pure; a generic fallback of
:mod:`structcrawl.typed.fallbacks`, ``url-id``): a ``pid=``-like query parameter, a last path
segment of digits, a long digit run ending it (``.../lamp-112949990``), read as the SKU only
where nothing else gives one and only when the page itself repeats it outside links (in its
text, scripts or non-URL attributes).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.typed.fallbacks import fallback
from structcrawl.typed.fields import Candidate

__all__ = ["URL_ID_MEMO", "said_count", "url_id_candidates"]

#: where a document keeps its URL id candidate (:func:`url_id_candidates`)
URL_ID_MEMO = "url-id-candidates"

#: query parameters that name a product's id
_ID_PARAMS = frozenset({
    "pid", "productid", "product_id", "product", "itemid", "item_id", "item", "sku", "id",
    "articleid", "article_id", "goodsno", "goods_no", "prdid", "prd_id",
})  # fmt: skip
_ID_VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{3,30}")
_ID_TAIL = re.compile(r"(?:^|[-_a-z])(\d{6,})$", re.I)
_PAGE_SUFFIX = re.compile(r"\.(?:html?|php|aspx?|jsp)$", re.I)
#: attributes whose values are links, sources or meta contents: an id in them is no repeat
_URL_ATTRIBUTES = frozenset({"href", "src", "srcset", "content", "action"})


def said_count(root: etree._Element, text: str) -> int:
    """How often the page says ``text`` outside URLs: its text nodes (scripts' included) and
    attribute values (not :data:`_URL_ATTRIBUTES`) that contain it, each once. What the XPath
    ``count(//text()[contains(., $id)]) + count(//@*[not(name()='href' or ...)][contains(.,
    $id)])`` counts, in a third of its time on a large page (~2.3 against ~7 ms: libxml2
    made a string of every attribute's name for each name it compared).

    >>> said_count(etree.fromstring("<p title='A1'>A1 <a href='/A1'>x</a><!--A1-->A1</p>"), "A1")
    3
    """
    count = 0
    for el in root.iter():
        tail = el.tail
        if tail and text in tail:
            count += 1
        if not isinstance(el.tag, str):
            continue  # a comment's or a processing instruction's own content is no text node
        own = el.text
        if own and text in own:
            count += 1
        for value in el.values():
            if text in value:  # then which of them, by name
                count += sum(1 for k, v in el.items() if text in v and k not in _URL_ATTRIBUTES)
                break
    return count


def _url_ids(url: str) -> list[str]:
    parts = urlsplit(url)
    out = [
        v
        for k, v in parse_qsl(parts.query)
        if k.casefold() in _ID_PARAMS and _ID_VALUE.fullmatch(v) and any(c.isdigit() for c in v)
    ]
    for segment in reversed([s for s in parts.path.split("/") if s][-2:]):
        stem = _PAGE_SUFFIX.sub("", segment)
        if stem.isdigit() and len(stem) >= 5:
            out.append(stem)
        elif found := _ID_TAIL.search(stem):
            out.append(found.group(1))
    return out


def url_id_candidates(doc: Document) -> list[Candidate]:
    """The page's URL id as a last SKU candidate, when the page repeats it (module doc);
    searched once per document (kept on its memo: both passes of the page's resolution ask,
    and the search reads every text and attribute of the page)."""
    return list(doc.memoized(URL_ID_MEMO, _url_id_candidates))


def _url_id_candidates(doc: Document) -> tuple[Candidate, ...]:
    for found in _url_ids(doc.url):
        said = said_count(doc.root, found)
        if said >= 2:
            why = f"the page's URL names it and the page repeats it ({said} times)"
            return (fallback("sku", found, "url-id", "", doc.url, why),)
    return ()
