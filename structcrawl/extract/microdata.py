"""Microdata: the WHATWG HTML algorithm, read as publishers write it (practical mode).

Two modes (:class:`~structcrawl.extract.options.ExtractOptions`, setting
``STRUCTCRAWL_MICRODATA_MODE``). ``practical``, the default, does what Google's parser, the
Schema.org validator and extruct do where the WHATWG text differs: a ``content`` attribute on
any element carrying ``itemprop`` gives the value (``<span itemprop="price" content="119.01">
119,01 €</span>`` is ``119.01``; its provenance names the attribute and keeps the visible text
beside it), and an element with ``itemscope`` and ``itemprop`` inside no item is still an item
(labelled ``microdata-orphan-itemprop`` in ``repairs``). ``strict`` follows the text to the
letter. In both modes ``itemprop`` outside any item (``microdata-itemprop-outside-item``) and
``itemref`` naming a missing id (``microdata-itemref-missing``) are ``warning`` records, and
so is an ``itemtype`` that is not an absolute URL (``microdata-itemtype-not-absolute``).

Values follow :mod:`structcrawl.core.values`: a URL attribute (``href``, ``src``...) gives a
reference ``{"@id": url}`` (an empty one is the document's URL, as the URL parser reads it),
except under schema.org properties whose range includes ``URL`` (``url``, ``image``...) or is
only datatypes (``telephone``: ``tel:`` links), which keep the string; every other value is a
plain string. Names follow the item's vocabulary (W3C Microdata to RDF): schema.org names are
short, a property of an item typed in another vocabulary is the full IRI
(``http://purl.org/goodrelations/v1#`` + name), and an untyped item keeps names as written
(or its enclosing item's vocabulary).

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

import re
from typing import Any, NamedTuple
from urllib.parse import urldefrag

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.core.records import Provenance, Record, short_schema_name
from structcrawl.core.values import make_ref
from structcrawl.extract._actions import action_constraint
from structcrawl.extract._microdata_report import bound_errors, page_warnings
from structcrawl.extract._schemacontext import iri_as_string

__all__ = [
    "FORMAT",
    "PARSER",
    "ItemCrawler",
    "in_item",
    "item_scopes",
    "Sighting",
    "extract",
    "property_name",
    "property_value",
    "vocabulary",
]

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
_URL_ATTRS = frozenset(("href", "src", "data"))
# plain strings: an lxml "smart" string keeps its element, and so the page's whole tree, alive
# for as long as the record holding it (the entity merge keeps raw values for the crawl)
_string = etree.XPath("string()", smart_strings=False)
# Attribute nodes, then their elements: libxml2 answers //@a far faster than //*[@a].
_IDS = etree.XPath("//@id")
_ABSOLUTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class Sighting(NamedTuple):
    """One property value as read: the value, the raw text or attribute value, the attribute
    read (``None`` for text content) and, for a ``content`` attribute on an element that shows
    text, that visible text."""

    value: Any
    raw: Any
    attribute: str | None = None
    text: str | None = None


def property_value(doc: Document, el: etree._Element, practical: bool = True) -> Sighting:
    """The value of a non-item property element, per the WHATWG value rules (``practical``:
    a ``content`` attribute on any element wins, as publishers intend)."""
    tag = el.tag if isinstance(el.tag, str) else ""
    tag = tag.lower()
    if tag == "meta":
        raw = el.get("content", "")
        return Sighting(raw, raw, "content")
    content = el.get("content") if practical else None
    if content is not None:
        return Sighting(content, content, "content", " ".join(_string(el).split()))
    attr = _URL_ATTR.get(tag)
    if attr is not None:
        raw = el.get(attr)
        if raw is None:
            return Sighting("", None, attr)
        # an empty URL parses to the document's base without its fragment (WHATWG URL)
        value = doc.resolve(raw) if raw.strip() else urldefrag(doc.base_url).url
        return Sighting(value, raw, attr)
    attr = _VALUE_ATTR.get(tag)
    if attr is not None:
        raw = el.get(attr, "")
        return Sighting(raw, raw, attr)
    if tag == "time" and el.get("datetime") is not None:
        raw = el.get("datetime", "")
        return Sighting(raw.strip(), raw, "datetime")
    raw = _string(el)
    return Sighting(" ".join(raw.split()), raw)


def vocabulary(types: list[str], inherited: str | None) -> str | None:
    """The vocabulary an item's property names belong to: its first type up to the last
    ``#`` or ``/`` (schema.org's is ``None``: names stay short), else the enclosing item's.

    >>> vocabulary(["http://purl.org/goodrelations/v1#Offering"], None)
    'http://purl.org/goodrelations/v1#'
    >>> vocabulary(["https://schema.org/Product"], "x"), vocabulary([], "http://v.example/")
    (None, 'http://v.example/')
    """
    if not types:
        return inherited
    first = types[0]
    if short_schema_name(first) != first or "/" not in first:
        return None
    cut = max(first.rfind("#"), first.rfind("/"))
    return first[: cut + 1]


def property_name(name: str, vocab: str | None) -> str:
    """A property name in the item's vocabulary (absolute names are kept, schema.org's short)."""
    if vocab is None or ":" in name:
        return short_schema_name(name)
    return vocab + name


class ItemCrawler:
    """The property crawl and its bounds, shared by the records and the graph export."""

    def __init__(self, doc: Document, practical: bool = True):
        self.doc = doc
        self.practical = practical
        self.limits = doc.limits
        self._ids: dict[str, etree._Element] | None = None
        self._order: dict[etree._Element, int] | None = None
        self._sets: tuple[set[etree._Element], set[etree._Element]] | None = None
        self.items = 0  # items built, nested ones included
        self.visits = 0  # elements visited by the property crawl
        self.too_deep = 0  # nested items left as references for depth
        self.refused = 0  # items not (fully) built because a bound was reached
        self.built: set[etree._Element] = set()  # item elements built at least once
        self.rebuilt = 0  # builds of an element built before (shared through itemref)
        self.unshared = 0  # shared items left as references after max_shared
        self.owned: set[etree._Element] = set()  # property elements some item crawled
        self.missing_refs: dict[tuple[etree._Element, str], None] = {}  # itemref to no id

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
            self._order = {el: i for i, el in enumerate(self.itemprops())}
        return sorted(elements, key=self._order.__getitem__)

    def scan(self) -> tuple[list[etree._Element], list[etree._Element]]:
        """``(itemscope elements, itemprop elements)`` of the page, in document order (from
        the page's shared index: one walk of the tree for every layer)."""
        index = self.doc.index()
        return index.having("itemscope"), index.having("itemprop")

    def scan_sets(self) -> tuple[set[etree._Element], set[etree._Element]]:
        """:meth:`scan` as sets, for membership tests (built once)."""
        if self._sets is None:
            scopes, props = self.scan()
            self._sets = (set(scopes), set(props))
        return self._sets

    def itemprops(self) -> list[etree._Element]:
        return self.doc.index().having("itemprop")

    def crawl(self, root: etree._Element) -> list[etree._Element]:
        """The property elements of the item rooted at ``root`` (WHATWG 'crawl the properties')."""
        results: list[etree._Element] = []
        memory = {root}
        pending: list[etree._Element] = [c for c in root if isinstance(c.tag, str)]
        for ref in (root.get("itemref") or "").split():
            target = self.by_id(ref)
            if target is not None:
                pending.append(target)
            else:
                self.missing_refs[(root, ref)] = None
        budget = self.limits.max_visits
        scopes, props = self.scan_sets()
        visits = self.visits
        while pending:
            current = pending.pop()
            if current in memory:
                continue
            memory.add(current)
            visits += 1
            if visits >= budget:
                self.refused += 1
                break
            if current not in scopes:
                pending.extend(current.iterchildren(etree.Element))
            if current in props and (current.get("itemprop") or "").split():
                results.append(current)
        self.visits = visits
        self.owned.update(results)
        ordered = self.doc_order(results) if len(results) > 1 else results
        return ordered

    def reference(self, prop_el: etree._Element, building: set[etree._Element], depth: int) -> Any:
        """A reference standing for a nested item that a bound or a cycle keeps from being
        built here, or ``None`` when it is to be built."""
        cycle = prop_el in building
        deep = not cycle and depth >= self.limits.max_nesting
        shared = (
            not (cycle or deep) and prop_el in self.built and self.rebuilt >= self.limits.max_shared
        )
        if not (cycle or deep or shared or self.exhausted()):
            return None
        self.too_deep += deep
        self.unshared += shared
        self.refused += not (cycle or deep or shared)
        ref_id = prop_el.get("itemid")
        return {"@id": self.doc.resolve(ref_id)} if ref_id else {"@ref": self.doc.path_of(prop_el)}

    def item(
        self,
        el: etree._Element,
        building: set[etree._Element],
        raw: Any,
        depth: int = 0,
        vocab: str | None = None,
    ) -> Record:
        doc = self.doc
        self.items += 1
        if el in self.built:
            self.rebuilt += 1
        else:
            self.built.add(el)
        types = list(dict.fromkeys((el.get("itemtype") or "").split()))  # a set of tokens
        rec = Record(
            source_url=doc.url,
            format=FORMAT,
            source_element=doc.path_of(el),
            provenance=Provenance(parser=PARSER),
            type=[short_schema_name(t) for t in types],
            raw=raw,
        )
        vocab = vocabulary(types, vocab)
        itemid = el.get("itemid")
        if itemid is not None and itemid.strip():
            rec.id = doc.resolve(itemid)
        building = building | {el}
        for prop_el in self.crawl(el):
            names = list(dict.fromkeys((prop_el.get("itemprop") or "").split()))
            names = [property_name(n, vocab) for n in names]
            path = doc.path_of(prop_el)
            if prop_el.get("itemscope") is not None:
                value = self.reference(prop_el, building, depth)
                if value is None:
                    value = self.item(prop_el, building, None, depth + 1, vocab)
                for name in names:
                    rec.add_value(name, value, path)
                continue
            found = property_value(doc, prop_el, self.practical)
            for name in names:
                seen = _constraint(name, prop_el, found)
                value = seen.value
                if seen.attribute in _URL_ATTRS and value and not iri_as_string(name):
                    value = make_ref(value)
                rec.add_value(name, value, path, seen.raw)
                if seen.attribute is not None:
                    source = rec.provenance.fields[name][-1]
                    source.attribute, source.text = seen.attribute, seen.text
        return rec


def _constraint(name: str, el: etree._Element, seen: Sighting) -> Sighting:
    """An action's ``query-input`` written as a form control: the shorthand its attributes
    state (:mod:`structcrawl.extract._actions`) instead of the control's empty text."""
    if seen.attribute is not None or seen.value:
        return seen
    shorthand = action_constraint(name, el)
    if shorthand is None:
        return seen
    read = " ".join(word.partition("=")[0] for word in shorthand.split())
    return Sighting(shorthand, shorthand, read)


def extract(doc: Document, mode: str = "practical") -> list[Record]:
    """The page's Microdata items (``mode``: ``practical`` or ``strict``, see above)."""
    practical = mode == "practical"
    ex = ItemCrawler(doc, practical)
    scopes = ex.scan()[0]
    tops = [el for el in scopes if el.get("itemprop") is None]
    records: list[Record] = []
    unread = 0
    for index, el in enumerate(tops):
        if ex.exhausted():
            unread = len(tops) - index
            break
        records.append(ex.item(el, set(), _item_attributes(el)))
    orphans: set[etree._Element] = set()
    if practical and not unread:
        for el in scopes:
            if el.get("itemprop") is None or el in ex.owned or ex.exhausted() or in_item(el):
                continue
            rec = ex.item(el, set(), _item_attributes(el))
            rec.repairs.append("microdata-orphan-itemprop")
            records.append(rec)
            orphans.add(el)
    records.extend(_bound_errors(doc, ex, tops, unread))
    if not (unread or ex.refused):
        records.extend(_warnings(doc, ex, orphans, tops))
    return records


def item_scopes(doc: Document) -> list[etree._Element]:
    """Every element carrying ``itemscope``, in document order."""
    return list(doc.index().having("itemscope"))


def in_item(el: etree._Element) -> bool:
    """Whether an ancestor of ``el`` is an item (its properties are that item's business, or
    were left out by a bound that says so)."""
    return any(a.get("itemscope") is not None for a in el.iterancestors())


def _item_attributes(el: etree._Element) -> dict[str, str]:
    return {k: v for k, v in el.attrib.items() if k.startswith("item") or k == "id"}


def _warnings(
    doc: Document, ex: ItemCrawler, orphans: set[etree._Element], tops: list[etree._Element]
) -> list[Record]:
    """Warnings for ``itemprop`` that no item owns, ``itemref`` naming no element, and items
    inside another item's element without ``itemprop`` (so not a property of it)."""
    outside = []
    for el in ex.itemprops():
        names = (el.get("itemprop") or "").strip()
        if el not in ex.owned and el not in orphans and names and not in_item(el):
            outside.append((names, doc.path_of(el)))
    missing = [(ref, doc.path_of(el)) for el, ref in ex.missing_refs]
    nested = [(el.get("itemtype") or "", doc.path_of(el)) for el in tops if in_item(el)]
    relative = [
        (token, doc.path_of(el))
        for el in item_scopes(doc)
        for token in (el.get("itemtype") or "").split()
        if not _ABSOLUTE.match(token)
    ]
    return page_warnings(doc, outside, missing, nested, relative)


def _bound_errors(
    doc: Document, ex: ItemCrawler, tops: list[etree._Element], unread: int
) -> list[Record]:
    return bound_errors(
        doc,
        unread=unread,
        refused=ex.refused,
        many=ex.items >= doc.limits.max_items,
        unshared=ex.unshared,
        too_deep=ex.too_deep,
        first_unread=doc.path_of(tops[len(tops) - unread]) if unread else "",
    )
