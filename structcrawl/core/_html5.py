"""Repairs of libxml2's HTML tree toward the tree the HTML parsing algorithm builds (the one
browsers, and the authors of the markup, see), for :func:`structcrawl.core.document.parse_html`,
where the difference changes what the markup says: which item or subject a property belongs to.

libxml2 parses by HTML 4 rules, so:

* it closes an open ``<p>`` before a block element only when the ``<p>`` is the current node
  (``<p>a<span><div>`` leaves the div inside the paragraph), and never before the HTML5
  elements it does not know (``<p>a<section>``, ``<article>``, ``<figure>``...): HTML's "in
  body" insertion mode closes a ``<p>`` in button scope before every such start tag
  (:func:`close_paragraphs`);
* it closes an open ``<li>``, ``<dd>`` or ``<dt>`` before the next one only in simple cases
  (``<dd>x<img><dd>`` nests the second definition inside the first), where HTML closes it
  whenever no other special element lies between them (:func:`close_list_items`);
* it parses ``<template>`` content as ordinary children, where HTML puts it in an inert
  document fragment that is no part of the document (:func:`drop_template_content`);
* it drops the attributes of an ``<html>`` or ``<body>`` start tag after the first (or after
  content that opened the body), where HTML adds each one the element does not have yet
  (``<body itemscope itemtype=...>`` in a page that already opened its body):
  :func:`merge_root_attributes`.

Both keep every remaining element's document order, so an index of the tree taken before
:func:`close_paragraphs` stays true.
"""

from __future__ import annotations

import re
from typing import Final

from lxml import etree

__all__ = [
    "P_CLOSERS",
    "close_list_items",
    "close_paragraphs",
    "drop_template_content",
    "merge_root_attributes",
    "misplaced_root_tags",
    "quirks_mode",
]

#: Start tags before which HTML closes a ``<p>`` element in button scope (HTML, 13.2.6.4.7
#: "The 'in body' insertion mode": address, article, ... ul; h1-h6; pre, listing; form;
#: li; dd, dt; plaintext; table (in a document not in quirks mode: see :func:`quirks_mode`);
#: hr; xmp).
P_CLOSERS: Final = frozenset(
    "address article aside blockquote center details dialog dir div dl fieldset figcaption "
    "figure footer header hgroup main menu nav ol p search section summary ul "
    "h1 h2 h3 h4 h5 h6 pre listing form li dd dt plaintext table hr xmp".split()
)
#: Public identifiers of the legacy DOCTYPEs that put a document in quirks mode (HTML,
#: 13.2.6.4.1 "The 'initial' insertion mode"; the common ones), where ``<table>`` does not
#: close a paragraph.
_QUIRKS_PUBLIC: Final = (
    "-//w3c//dtd html 3",
    "-//w3c//dtd html 4.0 transitional//",
    "-//w3c//dtd html 4.0 frameset//",
    "-//w3c//dtd w3 html",
    "-//w3o//",
    "-//ietf//",
    "-//microsoft//",
    "-//netscape comm. corp.//",
    "-//softquad",
    "-//spyglass//",
    "-//webtechs//",
)
_QUIRKS_WITHOUT_SYSTEM: Final = (
    "-//w3c//dtd html 4.01 transitional//",
    "-//w3c//dtd html 4.01 frameset//",
)
#: Elements that end "button scope" (HTML, 13.2.4.2 "has an element in button scope"): a
#: ``<p>`` outside them is not closed by a start tag inside them.
_BUTTON_SCOPE: Final = frozenset(
    "applet caption html table td th marquee object template button "
    "mi mo mn ms mtext annotation-xml foreignobject foreignObject desc title".split()
)


_ROOT_NEEDLES: Final = (b"<body", b"<BODY", b"<Body", b"<html", b"<HTML", b"<Html")
#: a start tag with its attributes (quoted values may hold ``>``)
_ROOT_TAG = re.compile(rb"""<(body|html)(?=[\s/>])((?:[^>"']|"[^"]*"|'[^']*')*)>""", re.I)
_ATTRIBUTES_PARSER = etree.HTMLParser(encoding="utf-8", no_network=True, default_doctype=False)


#: Elements whose content is text, not markup (HTML, 13.1.2 "raw text" and "escapable raw
#: text" elements, and the ones the parser reads as such): a ``<body`` inside is no tag.
_TEXT_ELEMENTS: Final = (b"script", b"style", b"textarea", b"title", b"xmp", b"noembed")


def _in_text(data: bytes, at: int) -> bool:
    """Whether ``at`` lies inside a comment or a text-only element (not a tag there)."""
    lower = data[max(0, at - 65536) : at].lower()
    if lower.rfind(b"<!--") > lower.rfind(b"-->"):
        return True
    return any(lower.rfind(b"<" + name) > lower.rfind(b"</" + name) for name in _TEXT_ELEMENTS)


def _add_attributes(target: etree._Element, written: bytes) -> int:
    """Set on ``target`` each attribute of the tag text ``written`` that it lacks."""
    added = 0
    try:
        tag = etree.fromstring(b"<body" + written + b">", _ATTRIBUTES_PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return 0
    parsed = tag.find("body") if tag is not None else None
    for key, value in parsed.attrib.items() if parsed is not None else ():
        try:
            if target.get(key) is None:
                target.set(key, value)
                added += 1
        except ValueError:  # a name or value lxml cannot hold from Python
            continue
    return added


def misplaced_root_tags(parser: etree.HTMLParser) -> bool:
    """Whether libxml2 met, in the parse just done with ``parser``, an ``<html>`` or
    ``<body>`` start tag it had no place for (it reports each, and drops its attributes):
    only then is :func:`merge_root_attributes` needed."""
    return any(
        "misplaced <body>" in message or "misplaced <html>" in message
        for message in (error.message or "" for error in parser.error_log)
    )


def merge_root_attributes(root: etree._Element, data: bytes) -> int:
    """Give ``<html>`` and ``<body>`` the attributes of every start tag of theirs in ``data``
    that they lack (HTML, 13.2.6.4.7 "in body": an ``html`` or ``body`` start tag adds each
    attribute not already present on the element; libxml2 keeps only the first tag's, and
    none of a ``<body>`` tag met after content). Tags inside comments, scripts, styles,
    textareas and other text-only elements are not tags. Returns how many attributes were added.

    >>> data = b'<html><body><div>a</div><body itemscope itemtype="https://schema.org/WebPage">'
    >>> root = etree.fromstring(data, etree.HTMLParser())
    >>> merge_root_attributes(root, data), sorted(root.find("body").attrib)
    (2, ['itemscope', 'itemtype'])
    """
    added = 0
    body = root.find("body")
    for needle in _ROOT_NEEDLES:
        at = data.find(needle)
        while at >= 0:
            match = _ROOT_TAG.match(data, at)
            at = data.find(needle, at + 1)
            if match is None or not match.group(2).strip(b" \t\r\n\f/"):
                continue
            name = match.group(1).lower()
            target = root if name == b"html" else body
            if target is None or _in_text(data, match.start()):
                continue
            added += _add_attributes(target, match.group(2))
    return added


#: HTML's "special" elements (13.2.4.2) without address, div and p: an open ``<li>``,
#: ``<dd>`` or ``<dt>`` beyond one of them is not closed by the next list item.
_ITEM_SCOPE: Final = frozenset(
    "applet area article aside base basefont bgsound blockquote body br button caption center "
    "col colgroup dd details dir dl dt embed fieldset figcaption figure footer form frame "
    "frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe img input keygen li link "
    "listing main marquee menu meta nav noembed noframes noscript object ol param plaintext "
    "pre script search section select source style summary table tbody td template textarea "
    "tfoot th thead title tr track ul wbr xmp".split()
)
_CLOSES: Final = {"li": ("li",), "dd": ("dd", "dt"), "dt": ("dd", "dt")}


def _open_item(item: etree._Element) -> etree._Element | None:
    """The open list item of ``item``'s kind that its start tag closes, if any."""
    kinds = _CLOSES.get(item.tag, ())
    for ancestor in item.iterancestors():
        if ancestor.tag in kinds:
            return ancestor
        if ancestor.tag in _ITEM_SCOPE:
            return None
    return None


def _flatten(chain: list[etree._Element]) -> None:
    """Make the items of ``chain`` (each the child of the one before, as libxml2 nests
    ``<dd>a<dd>b<dd>c``) siblings, each moved once and after the items nested in it were
    moved out (moving an element costs lxml a walk of its subtree: splitting the chain from
    the top would be quadratic). What followed an inner item inside its outer one comes
    after the last item, innermost first, as :func:`_split` would leave it."""
    head = chain[0]
    after = head.tail
    head.tail = None
    end: etree._Element | None = None
    for inner in reversed(chain[1:]):
        text, inner.tail = inner.tail, None
        following = list(inner.itersiblings())
        head.addnext(inner)  # before the items placed so far
        if end is None:
            end = inner
        if text:
            end.tail = (end.tail or "") + text
        for el in following:
            end.addnext(el)  # carries its tail along
            end = el
    if end is not None and after:
        end.tail = (end.tail or "") + after


def close_list_items(items: list[etree._Element]) -> int:
    """Close each open ``<li>`` (``<dd>``, ``<dt>``) where the next one starts (HTML,
    13.2.6.4.7 "in body", "A start tag whose tag name is 'li'" and "one of: 'dd', 'dt'"):
    an element of ``items`` (document order) nested in an item of its kind, with only
    address, div, p or non-special elements between them, moves out after it. Chains of
    items each nested directly in the one before are flattened in linear time. Returns how
    many were moved.

    >>> root = etree.fromstring(b"<dl><dd>x<img><dd>y</dl>", etree.HTMLParser())
    >>> close_list_items(list(root.iter("dd"))), etree.tostring(root.find(".//dl"))
    (1, b'<dl><dd>x<img/></dd><dd>y</dd></dl>')
    >>> root = etree.fromstring(b"<dl><dd>a<dd>b<i>c</i><dd>d</dl>x", etree.HTMLParser())
    >>> close_list_items(list(root.iter("dd"))), etree.tostring(root.find(".//dl"))
    (2, b'<dl><dd>a</dd><dd>b<i>c</i></dd><dd>d</dd></dl>x')
    """
    nested: dict[etree._Element, etree._Element] = {}  # item -> the item first nested in it
    inner: set[etree._Element] = set()
    deeper: list[etree._Element] = []  # items whose parent is neither special nor an item
    for item in items:
        parent = item.getparent()
        if parent is None:
            continue
        if parent.tag in _CLOSES.get(item.tag, ()):
            if parent not in nested:
                nested[parent] = item
                inner.add(item)
        elif parent.tag not in _ITEM_SCOPE:  # the usual parent (ul, ol, dl) ends the search
            deeper.append(item)
    moved = 0
    for top in nested:
        if top in inner:
            continue  # inside a chain, flattened from its top
        chain = [top]
        while chain[-1] in nested:
            chain.append(nested[chain[-1]])
        _flatten(chain)
        moved += len(chain) - 1
    for item in deeper:  # through open inline elements, now on the flattened tree
        outer = _open_item(item)
        if outer is not None:
            _split(outer, item)
            moved += 1
    return moved


def drop_template_content(root: etree._Element) -> int:
    """Remove what libxml2 parsed inside each ``<template>``: HTML makes it the template's
    inert content (a separate document fragment), not children in the document, so no
    Microdata, RDFa, microformat or script inside it belongs to the page. Returns how many
    templates had content.

    >>> root = etree.fromstring(b'<div itemscope><template><b itemprop="x">1</b></template>'
    ...     b'<i itemprop="y">2</i></div>', etree.HTMLParser())
    >>> drop_template_content(root), [el.tag for el in root.iter("b", "i")]
    (1, ['i'])
    """
    emptied = 0
    for template in list(root.iter("template")):
        if template.text is None and not len(template):
            continue
        emptied += 1
        template.text = None
        for child in list(template):
            template.remove(child)  # its tail, still template content, goes along
    return emptied


def quirks_mode(root: etree._Element) -> bool:
    """Whether the page's DOCTYPE (none, or a legacy one) puts it in quirks mode.

    >>> quirks_mode(etree.fromstring(b"<p>x</p>", etree.HTMLParser()))
    True
    >>> quirks_mode(etree.fromstring(b"<!DOCTYPE html><p>x</p>", etree.HTMLParser()))
    False
    """
    info = root.getroottree().docinfo
    if not info.doctype:
        return True
    public = (info.public_id or "").lower()
    if public.startswith(_QUIRKS_PUBLIC):
        return True
    return not info.system_url and public.startswith(_QUIRKS_WITHOUT_SYSTEM)


def _first_closer(paragraph: etree._Element, closers: frozenset[str]) -> etree._Element | None:
    """The first element inside ``paragraph`` (document order) named one of ``closers``
    and not inside an element that ends button scope (whose subtrees are not entered)."""
    pending = list(reversed(paragraph))
    while pending:
        el = pending.pop()
        tag = el.tag
        if not isinstance(tag, str):
            continue  # a comment or processing instruction
        if tag in closers:
            return el
        if tag not in _BUTTON_SCOPE and len(el):
            pending.extend(reversed(el))
    return None


def _split(paragraph: etree._Element, closer: etree._Element) -> None:
    """Move ``closer`` and everything after it inside ``paragraph`` to just after it: what
    HTML builds when ``closer``'s start tag closes the paragraph and the elements open inside
    it. Elements keep their document order (only their parents change)."""
    after = paragraph.tail
    paragraph.tail = None
    anchor = paragraph
    node, moving = closer, [closer, *closer.itersiblings()]
    while True:
        parent = node.getparent()
        for el in moving:
            anchor.addnext(el)  # addnext carries the element's tail along
            anchor = el
        if parent is paragraph or parent is None:
            break
        if parent.tail:  # the text after the closed element
            anchor.tail = (anchor.tail or "") + parent.tail
            parent.tail = None
        node, moving = parent, list(parent.itersiblings())
    if after:
        anchor.tail = (anchor.tail or "") + after


def close_paragraphs(paragraphs: list[etree._Element], quirks: bool = False) -> int:
    """Close each ``<p>`` of ``paragraphs`` (document order) where HTML closes it: before the
    first element inside it (in button scope) whose start tag closes a paragraph (in
    ``quirks`` mode, a ``<table>`` does not). What
    followed moves out after the paragraph, so ``<p itemprop=description>..<section
    itemprop=review>`` no longer nests the review inside the paragraph. Formatting elements
    open at that point are closed, not reconstructed inside the moved content (their
    attributes would be copied there, which markup does not mean). Returns how many
    paragraphs were closed.

    >>> root = etree.fromstring(b'<body><p>a<span>b<section>c</section>d</span>e</p>f</body>',
    ...     etree.HTMLParser())
    >>> close_paragraphs(list(root.iter("p"))), etree.tostring(root.find("body"))
    (1, b'<body><p>a<span>b</span></p><section>c</section>def</body>')
    """
    closed = 0
    closers = P_CLOSERS - {"table"} if quirks else P_CLOSERS
    for paragraph in paragraphs:
        if not len(paragraph):
            continue
        closer = _first_closer(paragraph, closers)
        if closer is not None:
            _split(paragraph, closer)
            closed += 1
    return closed
