"""Repairs of libxml2's HTML tree toward the tree the HTML parsing algorithm builds (the one
browsers, and the authors of the markup, see), for :func:`structcrawl.core.document.parse_html`,
where the difference changes what the markup says: which item or subject a property belongs to.

libxml2 parses by HTML 4 rules, so:

* it closes an open ``<p>`` before a block element only when the ``<p>`` is the current node
  (``<p>a<span><div>`` leaves the div inside the paragraph), and never before the HTML5
  elements it does not know (``<p>a<section>``, ``<article>``, ``<figure>``...): HTML's "in
  body" insertion mode closes a ``<p>`` in button scope before every such start tag
  (:func:`close_paragraphs`);
* it parses ``<template>`` content as ordinary children, where HTML puts it in an inert
  document fragment that is no part of the document (:func:`drop_template_content`).

Both keep every remaining element's document order, so an index of the tree taken before
:func:`close_paragraphs` stays true.
"""

from __future__ import annotations

from typing import Final

from lxml import etree

__all__ = ["P_CLOSERS", "close_paragraphs", "drop_template_content", "quirks_mode"]

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


def _in_button_scope(el: etree._Element, paragraph: etree._Element) -> bool:
    """Whether no element between ``el`` and its ancestor ``paragraph`` ends button scope."""
    for ancestor in el.iterancestors():
        if ancestor is paragraph:
            return True
        if ancestor.tag in _BUTTON_SCOPE:
            return False
    return False


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
        for el in paragraph.iterdescendants(*closers):
            if _in_button_scope(el, paragraph):
                _split(paragraph, el)
                closed += 1
                break
    return closed
