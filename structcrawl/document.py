"""One parsed page, shared by every extractor and selector.

:func:`parse_html` decodes the body once (HTTP charset, BOM, ``<meta charset>``, in the order
browsers use, through w3lib) and builds one lxml tree. The resulting :class:`Document` knows the
response URL, the document base (``<base href>`` counts, but never a ``javascript:`` or
``data:`` base), and gives element paths for provenance.

The parser never loads DTDs, never touches the network and never expands entity definitions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from lxml import etree
from w3lib.encoding import html_to_unicode

__all__ = ["PARSED_META", "Document", "parse_html", "resolve_base"]

#: Request meta key under which a component that already parsed a response (the render
#: handler judges every HTML page) leaves ``(body length, Document)`` for the spider.
PARSED_META = "structcrawl_parsed"

_SAFE_BASE_SCHEMES = frozenset({"http", "https", "file", ""})


def _html_parser() -> etree.HTMLParser:
    # A plain etree parser: lxml.html's element-class lookup runs Python code for every element
    # touched from Python, which costs more than the parse itself on large pages.
    return etree.HTMLParser(
        encoding="utf-8",
        remove_blank_text=False,
        no_network=True,
        huge_tree=True,
        default_doctype=False,
    )


_PARSER = _html_parser()
# A DOCTYPE with an internal subset (``<!DOCTYPE html [<!ENTITY x "...">]>``): the HTML parser
# would print ``]>`` as text and push <head> into <body>. Entities are never expanded anyway,
# so the declaration is dropped before parsing.
# Void elements libxml2's HTML parser does not know (HTML5 additions): it nests the following
# content inside them, so paths and text would differ from what a browser builds.
_VOID_WITH_CONTENT = etree.XPath(
    "//source[node()] | //track[node()] | //wbr[node()] | //embed[node()] | //param[node()]"
    " | //keygen[node()]"
)
_DOCTYPE_SUBSET = re.compile(rb"<!DOCTYPE[^\[>]*\[.*?\]\s*>", re.I | re.S)


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
    """A parsed HTML page: the tree plus what every extractor needs to know about it."""

    url: str
    base_url: str
    root: etree._Element
    encoding: str = "utf-8"
    _tree: etree._ElementTree | None = field(default=None, repr=False)

    def path_of(self, element: etree._Element) -> str:
        """An XPath locating ``element`` (``/html/body/div[2]/script``)."""
        if self._tree is None:
            self._tree = self.root.getroottree()
        return self._tree.getpath(element)

    def resolve(self, value: str) -> str:
        """Resolve a (possibly relative) URL against the document base; a value that is not
        a usable URL reference (``http://[bad``) is returned as written, stripped."""
        try:
            return urljoin(self.base_url, value.strip())
        except ValueError:
            return value.strip()


def _unnest(void: etree._Element) -> None:
    """Move what libxml2 put inside a void element to just after it, as browsers have it."""
    after = void.tail
    void.tail, void.text = void.text, None
    anchor = void
    for child in list(void):
        anchor.addnext(child)  # addnext moves the child's tail along with it
        anchor = child
    if after:
        anchor.tail = (anchor.tail or "") + after


def parse_html(
    body: bytes | str,
    url: str,
    *,
    content_type: str | None = None,
    encoding: str | None = None,
) -> Document:
    """Decode and parse ``body`` once. ``url`` is the final response URL."""
    if isinstance(body, bytes):
        header = content_type
        if encoding:
            header = f"text/html; charset={encoding}"
        used, text = html_to_unicode(header, body)
    else:
        used, text = "utf-8", body
    data = text.encode("utf-8", "surrogatepass")
    head = data[:4096]
    if b"<!" in head and _DOCTYPE_SUBSET.search(head):
        data = _DOCTYPE_SUBSET.sub(b"", data, count=1)
    try:
        root = etree.fromstring(data, parser=_PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        root = None
    if root is None:  # nothing parseable: an empty document, so every layer finds nothing
        root = etree.fromstring(b"<html></html>", parser=_PARSER)
    for void in reversed(_VOID_WITH_CONTENT(root)):  # innermost first
        _unnest(void)
    base_href = None
    for base in root.iterfind(".//base[@href]"):
        base_href = base.get("href")
        break
    return Document(url=url, base_url=resolve_base(url, base_href), root=root, encoding=used)
