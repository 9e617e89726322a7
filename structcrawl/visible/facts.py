"""Visible-page facts: what a reader of the page sees, to check structured data against.

:func:`visible_facts` reads the page's one parsed tree (each fact in at most one pass over it)
and collects:

* ``title``: the ``<title>`` text (whitespace normalized), ``None`` without one;
* ``h1``: the text of every visible ``<h1>``, in document order;
* ``canonical``: the first ``<link rel="canonical" href>``, resolved against the document base;
* ``prices``: visible price texts, conservatively: only inside *price containers* (elements
  whose ``class``, ``id`` or ``data-*`` attribute names or values hold the word ``price``, such
  as ``price``, ``product-price``, ``sale_price``, ``data-price``, or whose ``itemprop`` or
  RDFa ``property`` is ``price``/``lowPrice``/``highPrice``), and only text that reads as an
  amount with a currency (``$129.99``, ``1.299,00 €``, ``from US$ 49``, ``129.99 USD``); a
  container inside a container already read is not read again; repeated texts are kept once;
* ``times``: the ``datetime`` of every visible ``<time>`` (its text when it has none).

:class:`VisibleFacts` is the shape the validation checks read (:mod:`structcrawl.validate.visible`).

"Visible" means: in ``<body>``, not inside ``script``/``style``/``template``/``noscript``, and
not inside an element marked ``hidden`` or an inline ``display: none`` / ``visibility: hidden``
style (stylesheets are not evaluated; :mod:`structcrawl.visible.tree`).

>>> from structcrawl.core.document import parse_html
>>> doc = parse_html(b'''<title> Shoe | Shop </title><link rel="canonical" href="/p/1">
... <h1>Shoe</h1><p class="price">was <s>$149.00</s> now $1,049.00</p>
... <span itemprop="price" hidden>$1.00</span><time datetime="2026-03-14">14.03.</time>''',
... "https://shop.example/p/1?ref=x")
>>> visible_facts(doc)
VisibleFacts(title='Shoe | Shop', h1=['Shoe'], canonical='https://shop.example/p/1', \
prices=['$149.00', '$1,049.00'], times=['2026-03-14'])

Pure module: no Scrapy imports.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from copy import copy
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from structcrawl.core._index import INDEXED_ATTRIBUTES
from structcrawl.core.document import Document
from structcrawl.visible.prices import find_prices
from structcrawl.visible.text import visible_text
from structcrawl.visible.tree import NOT_RENDERED, element_text, hidden

__all__ = [
    "CANONICAL_MEMO",
    "FACTS_MEMO",
    "FACT_NAMES",
    "LazyVisibleFacts",
    "VisibleFacts",
    "canonical",
    "read_facts",
    "visible_facts",
]

#: where a document keeps the facts a worker process read for it (:mod:`structcrawl.visible.wire`)
FACTS_MEMO = "visible-facts"
#: where a document keeps its canonical URL (:func:`canonical`)
CANONICAL_MEMO = "canonical"


_PRICE_WORD = re.compile(r"(?:^|[-_\s])prices?(?:$|[-_\s])", re.I)
_PRICE_ITEMPROPS = frozenset({"price", "lowprice", "highprice"})


def _tokens(value: str | None) -> list[str]:
    return value.split() if value else []


def _price_container(el: etree._Element) -> bool:
    props = _tokens(el.get("itemprop")) + _tokens(el.get("property"))
    if any(re.split(r"[:/#]", t)[-1].lower() in _PRICE_ITEMPROPS for t in props):
        return True
    for name, value in el.attrib.items():
        name = str(name).lower()
        if name in ("class", "id") and any(_PRICE_WORD.search(t) for t in _tokens(str(value))):
            return True
        if name.startswith("data-") and (
            _PRICE_WORD.search(name[5:]) or any(_PRICE_WORD.search(t) for t in _tokens(str(value)))
        ):
            return True
    return False


@dataclass(frozen=True, slots=True)
class VisibleFacts:
    """What a person sees on the page (:func:`visible_facts`), as the record checks read it."""

    title: str | None = None
    h1: list[str] = field(default_factory=list)
    canonical: str | None = None
    prices: list[str] = field(default_factory=list)
    times: list[str] = field(default_factory=list)

    @classmethod
    def coerce(cls, value: Any) -> VisibleFacts | None:
        """A VisibleFacts from itself, a mapping of its fields, or None for anything else."""
        if isinstance(value, VisibleFacts) or value is None:
            return value
        if isinstance(value, Mapping):

            def texts(name: str) -> list[str]:
                items = value.get(name) or []
                return [s for s in items if isinstance(s, str)] if isinstance(items, list) else []

            title, canonical = value.get("title"), value.get("canonical")
            return cls(
                title=title if isinstance(title, str) else None,
                h1=texts("h1"),
                canonical=canonical if isinstance(canonical, str) else None,
                prices=texts("prices"),
                times=texts("times"),
            )
        return None


class _Page:
    """One page's tree while its facts are read: the visibility of every element already
    walked up to ``<body>`` (an element is visible when it and each ancestor below ``<body>``
    are), and the ``<h1>`` and ``<time>`` elements, read from the document's element index
    when the first of the two facts is asked for."""

    __slots__ = ("_tagged", "_visibility", "document")

    def __init__(self, document: Document) -> None:
        self.document = document
        self._visibility: dict[etree._Element, bool] = {}
        self._tagged: dict[str, list[etree._Element]] | None = None

    def visible(self, el: etree._Element) -> bool:
        """Inside ``<body>`` and not inside a non-rendered or hidden element (checked up the
        ancestors; each ancestor is checked once per page)."""
        known = self._visibility
        walked: list[etree._Element] = []
        node: etree._Element | None = el
        while True:
            if node is None:
                result = False
                break
            cached = known.get(node)
            if cached is not None:
                result = cached
                break
            if node.tag == "body":
                result = True
                break
            if not isinstance(node.tag, str) or node.tag in NOT_RENDERED or hidden(node):
                result = False
                break
            walked.append(node)
            node = node.getparent()
        for seen in walked:
            known[seen] = result
        return result

    def tagged(self, tag: str) -> list[etree._Element]:
        """The ``h1`` or ``time`` elements of the page, in document order."""
        if self._tagged is None:
            found: dict[str, list[etree._Element]] = {"h1": [], "time": []}
            for el in self.document.index().named("h1", "time"):
                found[str(el.tag)].append(el)
            self._tagged = found
        return self._tagged[tag]


_TITLE_SCAN = 200  # elements read one by one before the whole tree is searched in C


def _title(page: _Page) -> str | None:
    """The text of the first ``<title>`` (in document order) not inside an ``<svg>``."""
    root = page.document.root
    # the head comes first: read the page's first elements one by one and stop at the title
    # (a tag-filtered iterator looks one match ahead, so it would walk the whole tree)
    for count, el in enumerate(root.iter()):
        if count == _TITLE_SCAN:
            break
        if el.tag == "title" and _outside_svg(el):
            return _title_text(el)
    else:
        return None  # the whole tree was read: no title
    for el in root.iter("title"):
        if _outside_svg(el):
            return _title_text(el)
    return None


def _outside_svg(el: etree._Element) -> bool:
    return not any(_local_name(a) == "svg" for a in el.iterancestors())


def _title_text(el: etree._Element) -> str | None:
    return " ".join(element_text(el).split()) or None


def _local_name(el: etree._Element) -> str | None:
    tag = el.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else None


def _canonical(page: _Page) -> str | None:
    return canonical(page.document)


def canonical(document: Document) -> str | None:
    """The first ``<link rel="canonical" href>``, resolved against the document base (kept
    on its memo)."""
    return document.memoized(CANONICAL_MEMO, _first_canonical)


def _first_canonical(document: Document) -> str | None:
    for link in document.index().named("link"):
        rels = [t.lower() for t in _tokens(link.get("rel"))]
        href = (link.get("href") or "").strip()
        if "canonical" in rels and href:
            return document.resolve(href)
    return None


def _add(values: list[str], value: str) -> None:
    if value and value not in values:
        values.append(value)


# Price containers: anything whose attributes mention a price, in <body>. libxml2 decides the
# predicate (and sorts in document order) the elements the page's element index says could
# satisfy it: every one carrying itemprop or property, a class or id with "price" in it, or a
# data-* or namespaced attribute with "price" in its name or value, in any case. The same
# elements, in the same order, as the XPath //body//*[predicate] selects, without a pass over
# the tree of its own (the index's pass reads every element's attribute names) and without the
# XPath's translate(), which copied every class, id and data-* value of the page.
_PRICE_PREDICATE = (
    "@itemprop or @property"
    " or contains(translate(@class, 'PRICE', 'price'), 'price')"
    " or contains(translate(@id, 'PRICE', 'price'), 'price')"
    " or @*[starts-with(name(), 'data-') and (contains(translate(name(), 'PRICE', 'price'),"
    " 'price') or contains(translate(., 'PRICE', 'price'), 'price'))]"
)
#: the elements of ``$marked`` in <body> satisfying the predicate, in document order (a union
#: is sorted; there are few: a full sort of all the page's elements costs more than a walk)
_PRICE_CONTAINERS = etree.XPath(f"($marked | $marked)[ancestor::body][{_PRICE_PREDICATE}]")


def _price_candidates(document: Document) -> list[etree._Element]:
    """The elements ``//body//*[_PRICE_PREDICATE]`` selects, in document order."""
    index = document.index()
    marked = [*index.having("itemprop"), *index.having("property")]
    for name in ("class", "id"):  # "price" in any case (lower() folds all that translate() does)
        elements = index.having(name)
        marked += [elements[i] for i in _mentioning_price(index.values(name))]
    # the data attributes mentioning a price, found by the index's pass (DATA_WORDS), and
    # those it files by name (not among them; their names are lowercase)
    marked += index.data_mentioning()
    for name in INDEXED_ATTRIBUTES:
        if name[:5] == "data-":
            having = index.having(name)
            marked += [e for e in having if "price" in f"{name} {e.get(name) or ''}".lower()]
    if not marked:
        return []
    return _PRICE_CONTAINERS(document.root, marked=marked)  # type: ignore[return-value]


def _mentioning_price(values: list[str]) -> list[int]:
    """The places of the values with "price" in them, in any case: the values lowercased as
    one text (NUL between two: no attribute value holds one), and the places told by
    counting the NULs before each hit; no value lowercased or searched one by one.

    >>> _mentioning_price(["a", "Product-PRICE", "x price y", "İprice", "b"])
    [1, 2, 3]
    """
    text = "\x00".join(values).lower()  # a value's length may change: each is found by NULs
    found: list[int] = []
    place = at = 0
    while (hit := text.find("price", at)) >= 0:
        place += text.count("\x00", at, hit)
        found.append(place)
        at = text.find("\x00", hit)
        if at < 0:
            break
    return found


def _h1(page: _Page) -> list[str]:
    h1: list[str] = []
    for el in page.tagged("h1"):
        if page.visible(el):
            text = " ".join(element_text(el).split())
            if text:
                h1.append(text)
    return h1


def _times(page: _Page) -> list[str]:
    times: list[str] = []
    for el in page.tagged("time"):
        if page.visible(el):
            _add(times, (el.get("datetime") or "").strip() or " ".join(element_text(el).split()))
    return times


def _prices(page: _Page) -> list[str]:
    prices: list[str] = []
    read: set[etree._Element] = set()  # price containers already read
    for el in _price_candidates(page.document):
        if el.tag in ("meta", "link") or not page.visible(el) or not _price_container(el):
            continue
        if any(a in read for a in el.iterancestors()):
            continue
        read.add(el)
        for price in find_prices(visible_text(el)):
            _add(prices, price)
    return prices


#: Each fact and how it is read from the page, in :class:`VisibleFacts` field order.
_FACTS: dict[str, Callable[[_Page], Any]] = {
    "title": _title,
    "h1": _h1,
    "canonical": _canonical,
    "prices": _prices,
    "times": _times,
}


#: the names of the facts, in :class:`VisibleFacts` field order
FACT_NAMES = tuple(_FACTS)


def visible_facts(document: Document) -> VisibleFacts:
    """The page's visible facts (see the module docstring)."""
    return VisibleFacts(**read_facts(document))


def read_facts(document: Document, names: Iterable[str] = FACT_NAMES) -> dict[str, Any]:
    """The page's visible facts ``names`` (all by default; a :class:`VisibleFacts` field
    each), read now, in that order.

    >>> from structcrawl.core.document import parse_html
    >>> read_facts(parse_html(b"<title>T</title><h1>Shoe</h1>", "http://a.test/"), ["h1"])
    {'h1': ['Shoe']}
    """
    page = _Page(document)
    return {name: _FACTS[name](page) for name in names}


class LazyVisibleFacts(Mapping[str, Any]):
    """The page's visible facts as a mapping of :class:`VisibleFacts` fields, each read from
    the page the first time it is asked for (then kept): a page whose records have no price
    never has its price containers searched.

    >>> from structcrawl.core.document import parse_html
    >>> facts = LazyVisibleFacts(parse_html(b"<title>T</title><h1>Shoe</h1>", "http://a.test/"))
    >>> facts["h1"], sorted(facts._values), dict(facts)["prices"]
    (['Shoe'], ['h1'], [])
    """

    __slots__ = ("_page", "_values")

    def __init__(self, document: Document) -> None:
        self._page = _Page(document)
        self._values: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            read = _FACTS[name]  # KeyError for a name that is not a fact
            known = self._page.document.memo.get(FACTS_MEMO)
            if known is not None and name in known:  # read by a worker process
                value = self._values[name] = copy(known[name])
            else:
                value = self._values[name] = read(self._page)
            return value

    def __iter__(self) -> Iterator[str]:
        return iter(_FACTS)

    def read_so_far(self) -> dict[str, Any]:
        """The facts already read, in the order of the fields, none read now.

        >>> from structcrawl.core.document import parse_html
        >>> facts = LazyVisibleFacts(parse_html(b"<title>T</title><h1>Shoe</h1>", "http://a.test/"))
        >>> facts.read_so_far(), facts["h1"], facts.read_so_far()
        ({}, ['Shoe'], {'h1': ['Shoe']})
        """
        return {name: self._values[name] for name in _FACTS if name in self._values}

    def __len__(self) -> int:
        return len(_FACTS)

    def __repr__(self) -> str:
        pending = [n for n in _FACTS if n not in self._values]
        return f"LazyVisibleFacts({self._values!r}, pending={pending})"
