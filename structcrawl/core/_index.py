"""One pass over a parsed page that every extraction layer reads instead of walking the tree
again (see :class:`ElementIndex`)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Final

from lxml import etree

from structcrawl.core.extensions import compiled

__all__ = [
    "BLOCK_TAGS",
    "COMPILED",
    "DATA_WORDS",
    "INDEXED_ATTRIBUTES",
    "INDEXED_TAGS",
    "LINK_TAGS",
    "ElementIndex",
]

#: Attributes whose elements the layers look for: microformats (``class``), RDFa (the ones
#: that generate triples, and the subjects its diagnostics check: ``about``, ``resource``),
#: Microdata; and the render judgement's application mount points (``id``, React's
#: ``data-reactroot``).
INDEXED_ATTRIBUTES: Final = (
    "class",
    "property",
    "rel",
    "rev",
    "typeof",
    "vocab",
    "about",
    "resource",
    "datatype",
    "itemscope",
    "itemprop",
    "id",
    "data-reactroot",
)
#: Words the other ``data-*`` (and namespaced) attributes are told by, in their names or
#: values, in any case of their ASCII letters: the visible facts' price containers
#: (:mod:`structcrawl.visible.facts`). Lowercase ASCII.
DATA_WORDS: Final = ("price",)
#: Elements read by name: Open Graph and Dublin Core meta tags, DC ``<link>``, JSON-LD and
#: data-block scripts, the document base (also as XHTML, for trees parsed as XML), and the
#: void elements libxml2 does not know (the parse moves out what it nests inside them), the
#: paragraphs and list items (the parse closes them where HTML does); for the render
#: judgement, ``noscript`` notices and Angular's ``app-root``; the ``body`` the visible page
#: is read from, its headings (the main heading) and times (the facts the record checks read),
#: its struck-through text (old prices) and form fields (a declared currency); the ``head``
#: whose titles the main heading is told by; the links followed (``a``, ``area``).
INDEXED_TAGS: Final = frozenset(
    {
        "body",
        "head",
        "h1",
        "h2",
        "time",
        "input",
        "a",
        "area",
        "del",
        "s",
        "strike",
        "noscript",
        "app-root",
        "meta",
        "link",
        "script",
        "base",
        "{http://www.w3.org/1999/xhtml}base",
        "source",
        "track",
        "wbr",
        "embed",
        "param",
        "keygen",
        "p",
        "li",
        "dd",
        "dt",
    }
)
#: Of :data:`INDEXED_TAGS`, the many-per-page ones the parse repairs, kept in a list of their
#: own so that looking up the others (``meta``, ``script``...) does not pass them each time.
BLOCK_TAGS: Final = frozenset({"p", "li", "dd", "dt"})
#: Of :data:`INDEXED_TAGS`, the links (hundreds a page), kept in a list of their own likewise.
LINK_TAGS: Final = frozenset({"a", "area"})


_Scan = tuple[
    dict[str, list[etree._Element]],
    list[etree._Element],
    list[etree._Element],
    list[etree._Element],
    list[etree._Element],
    int,
    list[str],
    dict[str, list[int]],
]


#: ASCII's capitals to small letters (the case :data:`DATA_WORDS` are found in)
_ASCII_SMALL = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _mentions(text: str) -> bool:
    """Whether ``text`` holds one of :data:`DATA_WORDS` in any case of its ASCII letters.

    >>> _mentions("data-Sale-PRICE"), _mentions("PRİCE"), _mentions("cost")
    (True, False, False)
    """
    folded = text.translate(_ASCII_SMALL)
    return any(word in folded for word in DATA_WORDS)


def _scan(root: etree._Element) -> _Scan:
    """The index's one pass: ``(by_attribute, named, blocks, links, data, size, classes,
    places)`` (see :class:`ElementIndex`; ``data``: the elements of
    :meth:`ElementIndex.data_mentioning`; ``classes``: the ``class`` values of
    ``by_attribute["class"]``, which every page reads; ``places``: by tag, the places of its
    elements in the one of ``named``, ``blocks`` and ``links`` that holds them). The reference
    of the compiled pass (:mod:`._cindex`)."""
    by_attribute: dict[str, list[etree._Element]] = {name: [] for name in INDEXED_ATTRIBUTES}
    named: list[etree._Element] = []
    blocks: list[etree._Element] = []
    links: list[etree._Element] = []
    data: list[etree._Element] = []
    classes: list[str] = []
    places: dict[str, list[int]] = {}
    lookup = by_attribute.get
    tags = INDEXED_TAGS
    size = 0
    for el in root.iter(etree.Element):
        size += 1
        tag = el.tag
        if tag in tags:
            group = blocks if tag in BLOCK_TAGS else links if tag in LINK_TAGS else named
            places.setdefault(tag, []).append(len(group))
            group.append(el)
        told = False  # the element is in ``data``
        for key in el.keys():
            found = lookup(key)
            if found is not None:
                found.append(el)
                if key == "class":
                    classes.append(el.get(key) or "")
            elif not told and (key[:5] == "data-" or key[:1] == "{"):
                if _mentions(key) or _mentions(el.get(key) or ""):
                    data.append(el)
                    told = True
    return by_attribute, named, blocks, links, data, size, classes, places


#: the compiled pass (:mod:`structcrawl.core._cindex`: the same pass, ~3 times as fast), or
#: None where not built or not wanted (:func:`structcrawl.core.extensions.compiled`)
_compiled: Callable[..., _Scan] | None = compiled("structcrawl.core._cindex", "scan")
#: whether the index is made by the compiled pass
COMPILED = _compiled is not None
#: :data:`DATA_WORDS` as the compiled pass reads them
_WORDS_BYTES = tuple(word.encode("ascii") for word in DATA_WORDS)


class ElementIndex:
    """The elements of a tree that carry each of :data:`INDEXED_ATTRIBUTES`, those named one
    of :data:`INDEXED_TAGS`, and those whose other ``data-*`` (and namespaced) attributes
    mention :data:`DATA_WORDS`, in document order, found in one walk (:func:`_scan`, or its
    compiled twin where built: :data:`COMPILED`).

    Equivalent to ``//@name`` (per attribute, taking each attribute's element) and to
    ``root.iter(*tags)``, read from a tree whose elements are not added, removed or reordered
    afterwards (moving the content of a void element out after it, and closing a paragraph or
    list item where HTML does, keep the document order of every element: the only changes the
    parse makes after the index; template content is dropped before it). One walk, even in
    Python, costs less than the several libxml2 scans it replaces (an XPath over attribute
    nodes, or ``iter`` with names, visits every node of the tree each time).

    >>> root = etree.fromstring(b'<html><head><meta property="og:title" content="x">'
    ...     b'<link rel="icon"></head><body class="h-entry"><p itemprop="name">a</p>'
    ...     b'<script></script></body></html>', etree.HTMLParser())
    >>> index = ElementIndex(root)
    >>> [el.tag for el in index.having("rel")], [el.tag for el in index.having("class")]
    (['link'], ['body'])
    >>> [el.tag for el in index.named("meta", "script")]
    ['meta', 'script']
    """

    __slots__ = (
        "_by_attribute",
        "_named",
        "_blocks",
        "_links",
        "_places",
        "_data",
        "_values",
        "_root",
        "size",
    )

    def __init__(self, root: etree._Element) -> None:
        if _compiled is not None:
            found = _compiled(
                root, INDEXED_ATTRIBUTES, INDEXED_TAGS, BLOCK_TAGS, LINK_TAGS, _WORDS_BYTES
            )
        else:
            found = _scan(root)
        by_attribute, named, blocks, links, data, size, classes, places = found
        self._by_attribute = by_attribute
        self._named = named
        self._blocks = blocks
        self._links = links
        self._places = places
        self._data = data
        self._root = root
        self._values: dict[str, list[str]] = {"class": classes}
        self.size = size  #: elements in the tree

    def having(self, attribute: str) -> list[etree._Element]:
        """The elements carrying ``attribute`` (one of :data:`INDEXED_ATTRIBUTES`), in
        document order. The list is shared: do not modify it."""
        return self._by_attribute[attribute]

    def data_mentioning(self) -> list[etree._Element]:
        """The elements with a ``data-*`` attribute (other than those of
        :data:`INDEXED_ATTRIBUTES`) or a namespaced one (``{uri}name``, as an XML parser keeps
        it) whose name or value holds one of :data:`DATA_WORDS` in any case, each once, in
        document order (the visible facts' price containers are told by them,
        :mod:`structcrawl.visible.facts`). The list is shared: do not modify it.

        >>> root = etree.fromstring(b'<p data-a="1" data-b="Price"><i data-price="">x</i>'
        ...     b'<b data-c="2">y</b></p>', etree.HTMLParser())
        >>> [el.tag for el in ElementIndex(root).data_mentioning()]
        ['p', 'i']
        """
        return self._data

    def values(self, attribute: str) -> list[str]:
        """The values of ``attribute`` on :meth:`having`'s elements, in the same order, read
        once for every reader of the page (the class values are read by the microformats,
        the render judgement, the old prices and an article's byline). The list is shared:
        do not modify it.

        >>> root = etree.fromstring(b'<p class="a b"><i class="">x</i></p>', etree.HTMLParser())
        >>> ElementIndex(root).values("class")
        ['a b', '']
        """
        known = self._values.get(attribute)
        if known is None:
            known = self._values[attribute] = [
                el.get(attribute) or "" for el in self._by_attribute[attribute]
            ]
        return known

    def named(self, *tags: str) -> list[etree._Element]:
        """The elements named one of ``tags`` (each in :data:`INDEXED_TAGS`; those of
        :data:`BLOCK_TAGS`, and those of :data:`LINK_TAGS`, asked for apart from the others),
        in document order: what ``root.iter(*tags)`` gives without a walk of the tree. The
        list is new."""
        unknown = set(tags) - INDEXED_TAGS
        if unknown:
            raise ValueError(f"not indexed: {sorted(unknown)}")
        source = self._named
        for group, kept in ((BLOCK_TAGS, self._blocks), (LINK_TAGS, self._links)):
            inside = group.intersection(tags)
            if inside and len(inside) < len(tags):
                raise ValueError(f"ask for {sorted(inside)} apart from the other tags")
            if inside:
                source = kept
        places = self._places
        if len(tags) == 1:
            return [source[i] for i in places.get(tags[0], ())]
        found = [places[tag] for tag in set(tags) if tag in places]
        if len(found) == 1:
            return [source[i] for i in found[0]]
        return [source[i] for i in sorted(chain.from_iterable(found))]

    def named_in(self, top: etree._Element, *tags: str) -> list[etree._Element]:
        """:meth:`named` of the subtree of ``top`` (an element of the indexed tree, itself
        included): what ``top.iter(*tags)`` gives.

        >>> root = etree.fromstring(b"<html><body><h1>a</h1><div><h2>b</h2></div></body>"
        ...     b"<h2>c</h2></html>")
        >>> index = ElementIndex(root)
        >>> [el.text for el in index.named_in(root.find("body"), "h1", "h2")]
        ['a', 'b']
        """
        found = self.named(*tags)
        if top is self._root:
            return found
        return [el for el in found if el is top or any(a is top for a in el.iterancestors())]
