"""The text of an element as a reader sees it, in paragraphs (pure).

Block-level elements (``p``, headings, list items, ``div``, ``br``, table rows, ...) end a
paragraph; inline elements run on; what a browser does not show as text is skipped
(``script``, ``style``, ``template``, ``noscript``, ``iframe``, form controls, ``hidden``
elements) and so are figure captions, which are not part of an article's running text.

>>> from lxml import etree
>>> el = etree.fromstring("<div><h2>Title</h2><p>One <b>bold</b> line.</p><script>x()</script>"
...     "<figure><img/><figcaption>Photo: A</figcaption></figure><p>Two<br/>lines</p></div>")
>>> paragraphs(el)
['Title', 'One bold line.', 'Two', 'lines']
"""

from __future__ import annotations

from lxml import etree

from structcrawl.core.extensions import compiled
from structcrawl.visible.walk import COMPILED as WALK_COMPILED

__all__ = ["COMPILED", "paragraphs"]

_BLOCK = frozenset(
    (
        "address article aside blockquote body br dd details div dl dt fieldset figure footer "
        "form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody "
        "td th thead tfoot tr ul"
    ).split()
)
_SKIP = frozenset(
    "script style template noscript iframe object embed svg canvas select option textarea "
    "button input figcaption head title".split()
)


def _tag(el: etree._Element) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def paragraphs(element: etree._Element) -> list[str]:
    """The paragraphs of ``element``'s shown text, whitespace collapsed, empty ones dropped
    (read from libxml2's nodes by :mod:`structcrawl.visible._cwalk` where it is built: 3-4
    times as fast on a large article; :func:`_paragraphs` the reference)."""
    if _compiled is not None:
        return _compiled(element, _BLOCK, _SKIP, _tag)  # type: ignore[no-any-return]
    return _paragraphs(element)


def _paragraphs(element: etree._Element) -> list[str]:
    """:func:`paragraphs` in Python: a depth-first walk of the element's subtree."""
    out: list[str] = []
    current: list[str] = []

    def flush() -> None:
        text = " ".join("".join(current).split())
        if text:
            out.append(text)
        current.clear()

    stack: list[tuple[etree._Element, bool]] = [(element, False)]
    while stack:  # depth first, without recursion (pages can nest a thousand levels deep)
        el, closing = stack.pop()
        tag = _tag(el)
        if closing or not isinstance(el.tag, str) or tag in _SKIP or el.get("hidden") is not None:
            if closing and tag in _BLOCK:
                flush()
            if el is not element and el.tail:
                current.append(el.tail)
            continue
        if tag in _BLOCK:
            flush()
        if el.text:
            current.append(el.text)
        stack.append((el, True))
        stack.extend((child, False) for child in reversed(el))
    flush()
    return out


#: the compiled twin of :func:`_paragraphs` (:mod:`structcrawl.visible._cwalk`, an optional
#: build, imported once the walk's module made it: :func:`structcrawl.core.extensions.compiled`);
#: None where not built or not wanted
_compiled = compiled("structcrawl.visible._cwalk", "paragraphs") if WALK_COMPILED else None
#: whether :func:`paragraphs` reads with the compiled walk
COMPILED = _compiled is not None
