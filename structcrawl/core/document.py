"""One parsed page, shared by every extractor and selector.

:func:`parse_html` decodes the body once (HTTP charset, BOM, ``<meta charset>``, in the order
browsers use, through w3lib) and builds one lxml tree. The resulting :class:`Document` knows the
response URL, the document base (``<base href>`` counts, but never a ``javascript:`` or
``data:`` base), and gives element paths for provenance.

The parser never loads DTDs, never touches the network and never expands entity definitions.

Bounds (:mod:`structcrawl.core.limits`): only the first ``max_body_bytes`` of a body, and in them
only the first ``max_elements`` tags, are parsed; a page nested deeper than libxml2 builds
(2,048 levels: it stops reading there and drops the rest of the page) is rebuilt, its deeper
parts re-attached at half that depth, so nothing after them is lost. Each is noted in
:attr:`Document.problems` and becomes a page-level error record.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from lxml import etree
from w3lib.encoding import html_to_unicode

from structcrawl.core.limits import DEFAULT_LIMITS, Limits

__all__ = ["PARSED_META", "Document", "ElementPaths", "parse_html", "resolve_base"]

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
_VOID_TAGS = ("source", "track", "wbr", "embed", "param", "keygen")
_START_TAG = re.compile(rb"<[A-Za-z]")
_START_TAG_STR = re.compile(r"<[A-Za-z]")
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


class ElementPaths:
    """Element XPaths exactly as ``root.getroottree().getpath(el)`` writes them, without its
    quadratic cost on wide trees.

    lxml's ``getpath`` counts the same-name siblings of the element *and of every ancestor* on
    each call, so the paths of n siblings (a page of 50,000 ``<meta>`` or ``<script>`` tags, or
    of 50,000 items with a property each) cost O(n²). Here ancestors' paths are remembered and
    a parent asked about more than a few times has its children indexed once.

    >>> root = etree.fromstring(b"<html><body><p>a</p><p>b<b>c</b></p><i/></body></html>", _PARSER)
    >>> paths, tree = ElementPaths(root), root.getroottree()
    >>> all(paths(el) == tree.getpath(el) for _ in range(10) for el in root.iter())
    True
    >>> paths(root.find(".//b"))
    '/html/body/p[2]/b'
    """

    __slots__ = ("_tree", "_calls", "_steps", "_known")
    _NATIVE_CALLS = 8  # per parent, before its children are indexed

    def __init__(self, root: etree._Element) -> None:
        self._tree = root.getroottree()
        self._calls: dict[Any, int] = {}
        self._steps: dict[Any, dict[Any, str]] = {}  # indexed parent -> child -> "div[2]"
        self._known: dict[Any, str] = {}  # element -> its path (ancestors of asked elements)

    def __call__(self, element: etree._Element) -> str:
        if not isinstance(element.tag, str):
            return self._tree.getpath(element)
        known = self._known
        chain = [element]
        node = element.getparent()
        while node is not None and node not in known:
            chain.append(node)
            node = node.getparent()
        if any(el.tag.startswith("{") for el in chain):  # namespaced: lxml writes prefixes
            return self._tree.getpath(element)
        if node is None:  # chain[-1] is the root element
            top = chain.pop()
            path = known[top] = self._tree.getpath(top)
        else:
            path = known[node]
        for el in reversed(chain):
            path = f"{path}/{self._step(el)}"
            if el is not element:
                known[el] = path
        return path

    def _step(self, element: etree._Element) -> str:
        parent = element.getparent()
        steps = self._steps.get(parent)
        if steps is None:
            calls = self._calls.get(parent, 0) + 1
            self._calls[parent] = calls
            if calls <= self._NATIVE_CALLS:
                return _step(element)
            steps = self._index(parent)
        return steps[element]

    def _index(self, parent: etree._Element) -> dict[Any, str]:
        children = [c for c in parent if isinstance(c.tag, str)]
        counts: dict[str, int] = {}
        for child in children:
            counts[child.tag] = counts.get(child.tag, 0) + 1
        seen: dict[str, int] = {}
        steps: dict[Any, str] = {}
        for child in children:
            tag = child.tag
            if counts[tag] == 1:
                steps[child] = tag
            else:
                seen[tag] = seen.get(tag, 0) + 1
                steps[child] = f"{tag}[{seen[tag]}]"
        self._steps[parent] = steps
        return steps


def _step(element: etree._Element) -> str:
    """``tag``, or ``tag[n]`` when the parent has other children of that name."""
    tag = element.tag
    before = sum(1 for _ in element.itersiblings(tag, preceding=True))
    if before:
        return f"{tag}[{before + 1}]"
    if next(element.itersiblings(tag), None) is not None:
        return f"{tag}[1]"
    return str(tag)


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

    def path_of(self, element: etree._Element) -> str:
        """An XPath locating ``element`` (``/html/body/div[2]/script``)."""
        if self._paths is None:
            self._paths = ElementPaths(self.root)
        return self._paths(element)

    def resolve(self, value: str) -> str:
        """Resolve a (possibly relative) URL against the document base; a value that is not
        a usable URL reference (``http://[bad``) is returned as written, stripped."""
        try:
            return urljoin(self.base_url, value.strip())
        except ValueError:
            return value.strip()


# Characters libxml2's HTML parser keeps in the tree but lxml refuses to set from Python.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(text: str | None) -> str | None:
    """``text`` with characters lxml cannot store replaced by U+FFFD.

    >>> _xml_safe("a\x1fb")
    'a\ufffdb'
    """
    return _NOT_XML.sub("\ufffd", text) if text else text


def _set(el: etree._Element, attr: str, value: str | None) -> None:
    """``el.text``/``el.tail`` = ``value``, made storable if lxml refuses it as it is."""
    try:
        setattr(el, attr, value)
    except ValueError:
        setattr(el, attr, _xml_safe(value))


def _unnest(void: etree._Element) -> None:
    """Move what libxml2 put inside a void element to just after it, as browsers have it."""
    after = void.tail
    _set(void, "tail", void.text)
    void.text = None
    anchor = void
    for child in list(void):
        anchor.addnext(child)  # addnext moves the child's tail along with it
        anchor = child
    if after:
        _set(anchor, "tail", (anchor.tail or "") + after)


class _Stop(Exception):
    """Raised by :class:`_CappedBuilder` to end a rebuild at the element bound."""


class _CappedBuilder:
    """An lxml parser target that builds the tree libxml2 would, except that an element which
    would sit deeper than ``max_depth`` is attached to its ancestor at half that depth instead
    (a "seam"): content stays in document order and keeps up to ``max_depth / 2`` levels of
    its own structure around it, and the tree never gets deeper than ``max_depth``."""

    def __init__(self, max_depth: int, max_elements: int) -> None:
        # max_elements only guards the rebuild: the body was already cut to that many tags
        self.root = etree.fromstring(b"<html></html>", parser=_PARSER)  # an HTML document
        self.stack: list[tuple[etree._Element, int]] = []  # open elements and their depth
        self.max_depth = max(max_depth, 2)
        self.seam = self.max_depth // 2
        self.max_elements = max_elements
        self.elements = 0
        self.seams = 0
        self.stopped = False

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        stack = self.stack
        if not stack and tag == "html":
            el, depth = self.root, 1
        else:
            self.elements += 1
            if self.elements > self.max_elements:
                self.stopped = True
                raise _Stop
            parent, depth = stack[-1] if stack else (self.root, 1)
            depth += 1
            if depth > self.max_depth:  # re-attach at the seam: walk up to that ancestor
                self.seams += 1
                for _ in range(depth - 1 - self.seam):
                    parent = parent.getparent()
                depth = self.seam + 1
            try:
                el = etree.SubElement(parent, tag)
            except ValueError:  # a name lxml cannot hold: keep the content, not the element
                stack.append((parent, depth - 1))
                return
        for name, value in attrib.items():
            try:
                el.set(name, value)
            except ValueError:
                try:
                    el.set(name, _xml_safe(value) or "")
                except ValueError:  # a name lxml cannot hold
                    continue
        stack.append((el, depth))

    def end(self, tag: str) -> None:
        if self.stack:
            self.stack.pop()

    def data(self, text: str) -> None:
        current = self.stack[-1][0] if self.stack else self.root
        if len(current):
            last = current[-1]
            _set(last, "tail", (last.tail or "") + text)
        else:
            _set(current, "text", (current.text or "") + text)

    def comment(self, text: str) -> None:
        current = self.stack[-1][0] if self.stack else self.root
        try:
            current.append(etree.Comment(_xml_safe(text)))
        except ValueError:  # "--" inside: lxml refuses such a comment
            return

    def close(self) -> etree._Element:
        return self.root


def _rebuild(data: bytes, limits: Limits) -> tuple[etree._Element, list[tuple[str, str]]]:
    """Parse again through :class:`_CappedBuilder` (no depth bound in libxml2's tokenizer)."""
    builder = _CappedBuilder(limits.max_dom_depth, limits.max_elements)
    parser = etree.HTMLParser(
        target=builder, encoding="utf-8", no_network=True, huge_tree=True, default_doctype=False
    )
    failed: Exception | None = None
    try:
        etree.fromstring(data, parser=parser)
    except _Stop:
        pass
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
        failed = exc
    kept = "all content was kept, in order"
    if failed is not None or builder.stopped:
        kept = "the content up to where the rebuild stopped was kept, in order (below)"
    problems = [
        (
            "document-too-deep",
            f"elements nest deeper than {limits.max_dom_depth} levels (max_dom_depth): "
            f"{builder.seams:,} times the deeper part was attached at depth "
            f"{builder.seam} instead; {kept}",
        )
    ]
    if failed is not None:
        total = len(_START_TAG.findall(data))  # the body was already cut to max_elements tags
        inside = builder.stack[-1][0].tag if builder.stack else "html"
        reason = (str(failed).strip().splitlines() or [""])[0]
        problems.append(
            (
                "document-rebuild-failed",
                f"the parser failed while rebuilding the too-deep page ({type(failed).__name__}: "
                f"{reason}) after {builder.elements:,} elements, inside <{inside}>: whatever "
                f"followed in the page was lost (about {total:,} start tags in all)",
            )
        )
    if builder.stopped:
        problems.append(
            (
                "document-too-large",
                f"the too-deep page was rebuilt only up to {limits.max_elements:,} elements "
                "(max_elements); the rest of the page was not read",
            )
        )
    return builder.root, problems


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
    if body.count(lt) <= limits.max_elements:  # cheap: fewer '<' than the bound
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
    if root is not None and _too_deep(_PARSER):
        root, deep = _rebuild(data, limits)
        problems.extend(deep)
    if root is None:  # nothing parseable: an empty document, so every layer finds nothing
        root = etree.fromstring(b"<html></html>", parser=_PARSER)
    # iter() with tag names is a C-level scan (far cheaper than an XPath over the tree)
    nested = [el for el in root.iter(*_VOID_TAGS) if len(el) or el.text]
    for void in reversed(nested):  # innermost first
        _unnest(void)
    base_href = None
    for base in root.iterfind(".//base[@href]"):
        base_href = base.get("href")
        break
    return Document(
        url=url,
        base_url=resolve_base(url, base_href),
        root=root,
        encoding=used,
        limits=limits,
        problems=problems,
    )
