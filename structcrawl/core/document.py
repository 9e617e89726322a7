"""One parsed page, shared by every extractor and selector.

:func:`parse_html` decodes the body once (HTTP charset, BOM, ``<meta charset>``, in the order
browsers use, through w3lib) and builds one lxml tree. The resulting :class:`Document` knows the
response URL, the document base (``<base href>`` counts, but never a ``javascript:`` or
``data:`` base), and gives element paths for provenance.

The tree is libxml2's, repaired where HTML's parsing algorithm builds another one and the
difference moves markup between items (:mod:`structcrawl.core._html5`): a ``<p>`` is closed
before the block and HTML5 sectioning elements whose start tag closes it, ``<template>``
content, inert and no part of the document in HTML, is left out, and ``<html>``/``<body>`` get
the attributes of their later start tags.

The parser never loads DTDs, never touches the network and never expands entity definitions.

Bounds (:mod:`structcrawl.core.limits`): only the first ``max_body_bytes`` of a body, and in them
only the first ``max_elements`` tags, are parsed; a page nested deeper than libxml2 builds
(2,048 levels: it stops reading there and drops the rest of the page) is rebuilt, its deeper
parts re-attached at half that depth, so nothing after them is lost. Each is noted in
:attr:`Document.problems` and becomes a page-level error record.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

from lxml import etree
from w3lib.encoding import html_to_unicode

from structcrawl.core._deep import html_parser, rebuild, unnest
from structcrawl.core._html5 import (
    close_list_items,
    close_paragraphs,
    drop_template_content,
    merge_root_attributes,
    misplaced_root_tags,
    quirks_mode,
)
from structcrawl.core._index import ElementIndex
from structcrawl.core._paths import ElementPaths
from structcrawl.core.limits import DEFAULT_LIMITS, Limits

__all__ = [
    "LANGUAGE_MEMO",
    "PARSED_META",
    "Document",
    "LazyDocument",
    "absolute_as_written",
    "ElementIndex",
    "ElementPaths",
    "page_language",
    "parse_html",
    "resolve_base",
]

#: Request meta key under which a component that already parsed a response (the render
#: handler judges every HTML page) leaves ``(body length, Document)`` for the spider.
PARSED_META = "structcrawl_parsed"

_T = TypeVar("_T")
_SAFE_BASE_SCHEMES = frozenset({"http", "https", "file", ""})
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
#: where a document keeps its language (:func:`page_language`)
LANGUAGE_MEMO = "language"


_PARSER = html_parser()
# A DOCTYPE with an internal subset (``<!DOCTYPE html [<!ENTITY x "...">]>``): the HTML parser
# would print ``]>`` as text and push <head> into <body>. Entities are never expanded anyway,
# so the declaration is dropped before parsing.
# Void elements libxml2's HTML parser does not know (HTML5 additions): it nests the following
# content inside them, so paths and text would differ from what a browser builds.
_VOID_TAGS = ("source", "track", "wbr", "embed", "param", "keygen")
_START_TAG = re.compile(rb"<[A-Za-z]")
_START_TAG_STR = re.compile(r"<[A-Za-z]")
_DOCTYPE_SUBSET = re.compile(rb"<!DOCTYPE[^\[>]*\[.*?\]\s*>", re.I | re.S)
_AS_WRITTEN = re.compile(r"https?://[^\x00-\x20\[\]/?#;\x7f]+(?:[/?][^\x00-\x20#;\x7f]*)?\Z")


def absolute_as_written(value: str) -> bool:
    """Whether ``value`` is an absolute http(s) URL that ``urljoin`` returns exactly as
    written against any base (its parse and unparse change nothing: no control characters or
    spaces, no IPv6 brackets, no ``;`` parameters, no fragment, no empty query): most URLs of
    real pages, which can then skip that round trip.

    >>> absolute_as_written("https://a.test/p?q=1"), absolute_as_written("https://a.test/p?")
    (True, False)
    >>> absolute_as_written("/p"), absolute_as_written(" https://a.test/")
    (False, False)
    """
    return _AS_WRITTEN.match(value) is not None and not value.endswith("?")


def resolve_base(url: str, base_href: str | None) -> str:
    """The document base URL: ``<base href>`` resolved against ``url``, when it is usable.

    >>> resolve_base("http://a.test/x/y.html", "/shop/")
    'http://a.test/shop/'
    >>> resolve_base("http://a.test/x/y.html", "javascript:alert(1)")
    'http://a.test/x/y.html'
    """
    if not base_href or not base_href.strip():
        return url
    try:
        candidate = urljoin(url, base_href.strip())
        scheme = urlsplit(candidate).scheme.lower()
    except ValueError:  # e.g. "http://[bad": an unusable base is ignored, as browsers do
        return url
    return candidate if scheme in _SAFE_BASE_SCHEMES else url


@dataclass(slots=True)
class Document:
    """A parsed HTML page: the tree plus what every extractor needs to know about it.

    ``limits`` are the bounds extractors apply to this page; ``problems`` lists
    ``(code, message)`` for bounds the parse itself ran into (``document-too-large``,
    ``document-too-deep``), which extraction reports as page-level error records.
    """

    url: str
    base_url: str
    root: etree._Element
    encoding: str = "utf-8"
    limits: Limits = DEFAULT_LIMITS
    problems: list[tuple[str, str]] = field(default_factory=list)
    _paths: ElementPaths | None = field(default=None, repr=False)
    _resolved: dict[str, str] = field(default_factory=dict, repr=False)
    _index: ElementIndex | None = field(default=None, repr=False)
    #: what one reading of the page found, for the next reader (``"visible-availability"``)
    memo: dict[str, Any] = field(default_factory=dict, repr=False)

    def index(self) -> ElementIndex:
        """The elements the extraction layers look for (by attribute, by name), found in one
        walk of the tree (:class:`ElementIndex`; :func:`parse_html` builds it as it parses,
        a Document made otherwise on first use). The tree is read-only once parsed, so the
        index stays true."""
        if self._index is None:
            self._index = ElementIndex(self.root)
        return self._index

    def memoized(self, key: str, read: Callable[[Document], _T]) -> _T:
        """``read(self)``, made once per document: kept on its :attr:`memo` under ``key``,
        where a reading of the page in another process may already have put it
        (:mod:`structcrawl.pageread.whole`).

        >>> doc = parse_html(b"<p>x</p>", "https://a.test/")
        >>> doc.memoized("paragraphs", lambda d: len(d.root.findall(".//p"))), doc.memo
        (1, {'paragraphs': 1})
        """
        memo = self.memo
        if key not in memo:
            memo[key] = read(self)
        return memo[key]  # type: ignore[no-any-return]

    def path_of(self, element: etree._Element) -> str:
        """An XPath locating ``element`` (``/html/body/div[2]/script``)."""
        if self._paths is None:
            self._paths = ElementPaths(self.root, ElementPaths.native_for(self.index().size))
        return self._paths(element)

    def resolve(self, value: str) -> str:
        """Resolve a (possibly relative) URL against the document base; a value that is not
        a usable URL reference (``http://[bad``) is returned as written, stripped."""
        resolved = self._resolved.get(value)
        if resolved is None:
            resolved = value.strip()
            if not absolute_as_written(resolved):
                try:
                    resolved = urljoin(self.base_url, resolved)
                except ValueError:
                    pass  # not a usable reference: kept as written
            self._resolved[value] = resolved
        return resolved


def page_language(document: Document) -> str | None:
    """The page's ``<html lang>`` (or ``xml:lang``), stripped; kept on its memo.

    >>> page_language(parse_html(b'<html lang=" de-AT "><p>x', "https://a.test/"))
    'de-AT'
    """
    return document.memoized(LANGUAGE_MEMO, _page_language)


def _page_language(document: Document) -> str | None:
    root = document.root
    lang = root.get("lang") or root.get(_XML_LANG)
    return (lang.strip() or None) if isinstance(lang, str) else None


def _bounded_body(body: bytes | str, limits: Limits) -> tuple[bytes | str, list[tuple[str, str]]]:
    """``body`` cut to ``max_body_bytes``, then before its ``max_elements + 1``-th start tag
    (``<`` and a letter, wherever it is: the bound on elements is conservative)."""
    problems: list[tuple[str, str]] = []
    unit = "bytes" if isinstance(body, bytes) else "characters"
    if len(body) > limits.max_body_bytes:
        problems.append(
            (
                "document-too-large",
                f"body of {len(body):,} {unit}: only the first {limits.max_body_bytes:,} were "
                "parsed (max_body_bytes)",
            )
        )
        body = body[: limits.max_body_bytes]
    lt: Any = b"<" if isinstance(body, bytes) else "<"
    # cheap: too short to hold more start tags than the bound (each takes two bytes at
    # least: '<' and a letter), or fewer '<' than the bound
    if len(body) // 2 <= limits.max_elements or body.count(lt) <= limits.max_elements:
        return body, problems
    starts: Iterator[int] = (
        (m.start() for m in _START_TAG.finditer(body))
        if isinstance(body, bytes)
        else (m.start() for m in _START_TAG_STR.finditer(body))
    )
    cut = -1
    for count, start in enumerate(starts):
        if count == limits.max_elements:
            cut = start
            break
    if cut >= 0:
        problems.append(
            (
                "document-too-large",
                f"more than {limits.max_elements:,} start tags: only the first {cut:,} {unit}, "
                f"before the {limits.max_elements + 1:,}th, were parsed (max_elements)",
            )
        )
        body = body[:cut]
    return body, problems


def _too_deep(parser: etree.HTMLParser) -> bool:
    """Whether libxml2 stopped reading at its depth bound (it halts: the rest is dropped)."""
    last = parser.error_log.last_error
    return last is not None and "Excessive depth" in (last.message or "")


def parse_html(
    body: bytes | str,
    url: str,
    *,
    content_type: str | None = None,
    encoding: str | None = None,
    limits: Limits | None = None,
) -> Document:
    """Decode and parse ``body`` once. ``url`` is the final response URL.

    Never raises on bad input: a body that parses to nothing gives an empty document, and
    bounds met on the way are listed in :attr:`Document.problems`.
    """
    limits = limits or DEFAULT_LIMITS
    body, problems = _bounded_body(body, limits)
    if isinstance(body, bytes):
        header = content_type
        if encoding:
            header = f"text/html; charset={encoding}"
        used, text = html_to_unicode(header, body)
        # valid UTF-8 without a BOM: the bytes are what encoding the text again would give
        same = used == "utf-8" and not body.startswith(codecs.BOM_UTF8) and "\ufffd" not in text
        data = body if same else text.encode("utf-8", "surrogatepass")
    else:
        used, data = "utf-8", body.encode("utf-8", "surrogatepass")
    head = data[:4096]
    if b"<!" in head and _DOCTYPE_SUBSET.search(head):
        data = _DOCTYPE_SUBSET.sub(b"", data, count=1)
    try:
        root = etree.fromstring(data, parser=_PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        root = None
    misplaced = root is not None and misplaced_root_tags(_PARSER)
    if root is not None and _too_deep(_PARSER):
        root, deep = rebuild(data, limits)
        problems.extend(deep)
    if root is None:  # nothing parseable: an empty document, so every layer finds nothing
        root = etree.fromstring(b"<html></html>", parser=_PARSER)
    # content no part of the document (libxml2's walk by name: faster than a scan of the bytes
    # for "<template", and it finds <Template> too)
    drop_template_content(root)
    if misplaced:  # later <html>/<body> tags: their attributes, as HTML adds them
        merge_root_attributes(root, data)
    # the one walk every extraction layer reads; it also finds the void elements, the
    # paragraphs and <base>
    index = ElementIndex(root)
    nested = [el for el in index.named(*_VOID_TAGS) if len(el) or el.text]
    for void in reversed(nested):  # innermost first (the document order stays as it was)
        unnest(void)
    items = index.named("li", "dd", "dt")
    if items:  # closed where the next one starts, as HTML does (the document order is kept)
        close_list_items(items)
    paragraphs = index.named("p")
    if paragraphs:  # closed where HTML closes them (the document order is kept)
        close_paragraphs(paragraphs, quirks_mode(root))
    base_href = None
    for base in index.named("base"):
        if base is not root and base.get("href") is not None:  # .//base[@href]
            base_href = base.get("href")
            break
    return Document(
        url=url,
        base_url=resolve_base(url, base_href),
        root=root,
        encoding=used,
        limits=limits,
        problems=problems,
        _index=index,
    )


_TREE = Document.__dict__["root"]  # the slot that holds a Document's tree


class LazyDocument(Document):
    """A page read in another process (:mod:`structcrawl.pageread.whole`): what its readers
    ask is on its :attr:`memo` and in :attr:`reading`, and its tree is parsed from its bytes,
    as :func:`parse_html` parses them, only when something asks for it (``on_parse`` is then
    called: the crawl counts such pages). ``url``, ``base_url``, ``encoding`` and ``problems``
    are the other process's, from the same function on the same bytes.

    >>> doc = LazyDocument("https://a.test/", "https://a.test/", b"<p>x</p>", None)
    >>> doc.parsed, doc.root.findtext(".//p"), doc.parsed
    (False, 'x', True)
    """

    __slots__ = ("_body", "_content_type", "_on_parse", "reading")

    def __init__(
        self,
        url: str,
        base_url: str,
        body: bytes,
        content_type: str | None,
        *,
        encoding: str = "utf-8",
        problems: list[tuple[str, str]] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        reading: Any = None,
        on_parse: Any = None,
    ) -> None:
        Document.__init__(
            self,
            url,
            base_url,
            None,
            encoding,
            limits,
            list(problems or []),  # type: ignore[arg-type]
        )
        self._body = body
        self._content_type = content_type
        self._on_parse = on_parse
        #: what the other process read of the page (:class:`structcrawl.pageread.whole.Reading`)
        self.reading = reading

    @property  # type: ignore[override]
    def root(self) -> etree._Element:
        tree = _TREE.__get__(self)
        return self._parse() if tree is None else tree

    @root.setter
    def root(self, value: etree._Element) -> None:
        _TREE.__set__(self, value)

    def __repr__(self) -> str:  # not the dataclass's, which would show (and so parse) the tree
        return f"LazyDocument(url={self.url!r}, parsed={self.parsed})"

    @property
    def parsed(self) -> bool:
        """Whether the tree was asked for (and parsed here)."""
        return _TREE.__get__(self) is not None

    def index(self) -> ElementIndex:
        if self._index is None:
            self._parse()
        return super().index()

    def _parse(self) -> etree._Element:
        doc = parse_html(self._body, self.url, content_type=self._content_type, limits=self.limits)
        _TREE.__set__(self, doc.root)
        self._index = doc.index()
        if self._on_parse is not None:
            self._on_parse()
        return doc.root
