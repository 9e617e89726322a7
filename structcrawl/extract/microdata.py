"""Microdata, per the WHATWG HTML algorithm.

Top-level items are elements with ``itemscope`` and no ``itemprop``. Properties are found by
the spec's crawl: the item's children, then elements named by ``itemref`` (first element with
each id), walked without entering nested items, each element visited once (so ``itemref``
cycles and self-references terminate), and sorted in document order. Values come from the
attribute the spec names per element; nested items become nested records; a nested item that
is already being built (a cycle) becomes a reference instead of recursing. Items without
properties get none: nothing is invented.

Bounds (``doc.limits``): an item nested deeper than ``max_nesting`` becomes a reference
(``microdata-too-deep``); an item element already built elsewhere (``itemref`` lets items
share elements) is built again at most ``max_shared`` times in all, then referenced
(``microdata-too-complex``: without this a page of a few kilobytes can fan out into millions
of nested records); after ``max_items`` items (nested ones included) or ``max_visits`` element
visits no more items are built: further nested items become references and further top-level
items are not read (``microdata-too-many-items`` / ``microdata-too-complex``).
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.core.records import Provenance, Record, error_record, short_schema_name

__all__ = ["FORMAT", "PARSER", "extract", "property_value"]

FORMAT = "microdata"
PARSER = "structcrawl.extract.microdata"

_URL_ATTR = {
    "a": "href",
    "area": "href",
    "link": "href",
    "audio": "src",
    "embed": "src",
    "iframe": "src",
    "img": "src",
    "source": "src",
    "track": "src",
    "video": "src",
    "object": "data",
}
_VALUE_ATTR = {"data": "value", "meter": "value"}
_string = etree.XPath("string()")
# Attribute nodes, then their elements: libxml2 answers //@a far faster than //*[@a].
_ITEMSCOPES = etree.XPath("//@itemscope")
_IDS = etree.XPath("//@id")
_ITEMPROPS = etree.XPath("//@itemprop")


def property_value(doc: Document, el: etree._Element) -> tuple[Any, Any]:
    """``(value, raw)`` of a non-item property element, per the WHATWG value rules."""
    tag = el.tag if isinstance(el.tag, str) else ""
    tag = tag.lower()
    if tag == "meta":
        raw = el.get("content", "")
        return raw, raw
    attr = _URL_ATTR.get(tag)
    if attr is not None:
        raw = el.get(attr)
        if raw is None:
            return "", None
        return (doc.resolve(raw) if raw.strip() else ""), raw
    attr = _VALUE_ATTR.get(tag)
    if attr is not None:
        raw = el.get(attr, "")
        return raw, raw
    if tag == "time" and el.get("datetime") is not None:
        raw = el.get("datetime", "")
        return raw.strip(), raw
    raw = _string(el)
    return " ".join(raw.split()), raw


class _Extractor:
    def __init__(self, doc: Document):
        self.doc = doc
        self.limits = doc.limits
        self._ids: dict[str, etree._Element] | None = None
        self._order: dict[etree._Element, int] | None = None
        self.items = 0  # items built, nested ones included
        self.visits = 0  # elements visited by the property crawl
        self.too_deep = 0  # nested items left as references for depth
        self.refused = 0  # items not (fully) built because a bound was reached
        self.built: set[etree._Element] = set()  # item elements built at least once
        self.rebuilt = 0  # builds of an element built before (shared through itemref)
        self.unshared = 0  # shared items left as references after max_shared

    def exhausted(self) -> bool:
        return self.items >= self.limits.max_items or self.visits >= self.limits.max_visits

    def by_id(self, ident: str) -> etree._Element | None:
        if self._ids is None:
            self._ids = {}
            for attribute in _IDS(self.doc.root):
                self._ids.setdefault(str(attribute), attribute.getparent())
        return self._ids.get(ident)

    def doc_order(self, elements: list[etree._Element]) -> list[etree._Element]:
        if len(elements) < 2:
            return elements
        if self._order is None:  # property elements are all elements with itemprop
            self._order = {a.getparent(): i for i, a in enumerate(_ITEMPROPS(self.doc.root))}
        return sorted(elements, key=self._order.__getitem__)

    def crawl(self, root: etree._Element) -> list[etree._Element]:
        """The property elements of the item rooted at ``root`` (WHATWG 'crawl the properties')."""
        results: list[etree._Element] = []
        memory = {root}
        pending: list[etree._Element] = [c for c in root if isinstance(c.tag, str)]
        for ref in (root.get("itemref") or "").split():
            target = self.by_id(ref)
            if target is not None:
                pending.append(target)
        budget = self.limits.max_visits
        while pending:
            current = pending.pop()
            if current in memory:
                continue
            memory.add(current)
            self.visits += 1
            if self.visits >= budget:
                self.refused += 1
                break
            if current.get("itemscope") is None:
                pending.extend(c for c in current if isinstance(c.tag, str))
            if (current.get("itemprop") or "").split():
                results.append(current)
        ordered = self.doc_order(results) if len(results) > 1 else results
        return ordered

    def item(
        self, el: etree._Element, building: set[etree._Element], raw: Any, depth: int = 0
    ) -> Record:
        doc = self.doc
        self.items += 1
        if el in self.built:
            self.rebuilt += 1
        else:
            self.built.add(el)
        rec = Record(
            source_url=doc.url,
            format=FORMAT,
            source_element=doc.path_of(el),
            provenance=Provenance(parser=PARSER),
            type=[short_schema_name(t) for t in (el.get("itemtype") or "").split()],
            raw=raw,
        )
        itemid = el.get("itemid")
        if itemid is not None and itemid.strip():
            rec.id = doc.resolve(itemid)
        building = building | {el}
        for prop_el in self.crawl(el):
            names = list(dict.fromkeys((prop_el.get("itemprop") or "").split()))
            path = doc.path_of(prop_el)
            if prop_el.get("itemscope") is not None:
                cycle = prop_el in building
                deep = not cycle and depth >= self.limits.max_nesting
                shared = (
                    not (cycle or deep)
                    and prop_el in self.built
                    and self.rebuilt >= self.limits.max_shared
                )
                if cycle or deep or shared or self.exhausted():
                    self.too_deep += deep
                    self.unshared += shared
                    self.refused += not (cycle or deep or shared)
                    ref_id = prop_el.get("itemid")
                    value: Any = {"@id": doc.resolve(ref_id)} if ref_id else {"@ref": path}
                    raw_v: Any = None
                else:
                    value, raw_v = self.item(prop_el, building, None, depth + 1), None
            else:
                value, raw_v = property_value(doc, prop_el)
            for name in names:
                rec.add_value(short_schema_name(name), value, path, raw_v)
        return rec


def extract(doc: Document) -> list[Record]:
    ex = _Extractor(doc)
    limits = doc.limits
    records = []
    tops = [a.getparent() for a in _ITEMSCOPES(doc.root)]
    tops = [el for el in tops if el.get("itemprop") is None]
    unread = 0
    for index, el in enumerate(tops):
        if ex.exhausted():
            unread = len(tops) - index
            break
        attrs = {k: v for k, v in el.attrib.items() if k.startswith("item") or k == "id"}
        records.append(ex.item(el, set(), attrs))
    if unread or ex.refused:
        many = ex.items >= limits.max_items
        bound = (
            f"{limits.max_items:,} items (max_items)"
            if many
            else f"{limits.max_visits:,} element visits (max_visits; itemref makes items "
            "share elements)"
        )
        records.append(
            _error(
                doc,
                "microdata-too-many-items" if many else "microdata-too-complex",
                f"after {bound} no more items were built: nested items from there on are "
                "references"
                + (f", and {unread:,} top-level items were not read" if unread else ""),
                doc.path_of(tops[len(tops) - unread]) if unread else "",
            )
        )
    if ex.unshared:
        records.append(
            _error(
                doc,
                "microdata-too-complex",
                f"items shared through itemref were built again {limits.max_shared:,} times "
                f"(max_shared); {ex.unshared:,} more uses are references ({{'@ref': path}} or "
                "{'@id': itemid})",
            )
        )
    if ex.too_deep:
        records.append(
            _error(
                doc,
                "microdata-too-deep",
                f"{ex.too_deep:,} items nested deeper than {limits.max_nesting} levels "
                "(max_nesting) were kept as references ({'@ref': path} or {'@id': itemid}), "
                "not built",
            )
        )
    return records


def _error(doc: Document, code: str, message: str, element: str = "") -> Record:
    return error_record(
        source_url=doc.url,
        format=FORMAT,
        code=code,
        message=message,
        source_element=element,
        parser=PARSER,
    )
