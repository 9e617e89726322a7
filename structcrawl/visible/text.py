"""The text of an element a reader sees (pure): its own and its descendants', those hidden
or not rendered left out (:func:`~structcrawl.visible.tree.rendered`), comments' contents
too. Read by the compiled walk's module where the install built it
(:mod:`structcrawl.visible._cwalk`: libxml2's nodes, the texts and tails lxml reads, ~9 times
as fast on a large page's body), else by :func:`_visible_text`, the reference it is tested
against (``tests/test_compiled.py``).

>>> from lxml import html
>>> root = html.fromstring("<body><p>Mug <b hidden>old</b>12 <!-- x -->EUR<script>s</script>"
...     "</p><p style='display: none'>gone</p></body>")
>>> [visible_text(p) for p in root.iter("p")]
['Mug 12 EUR', '']
"""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

from structcrawl.core.extensions import compiled
from structcrawl.visible.tree import rendered
from structcrawl.visible.walk import COMPILED

__all__ = ["visible_text"]


def _visible_text(el: etree._Element) -> str:
    """:func:`visible_text` in Python: the reference of the compiled one."""
    parts: list[str] = []
    stack: list[etree._Element | str] = [el]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            parts.append(node)
            continue
        if node.tail and node is not el:
            stack.append(node.tail)
        if not rendered(node):
            continue
        children: list[etree._Element | str] = list(node)
        stack.extend(reversed(children))
        if node.text:
            stack.append(node.text)
    return "".join(parts)


#: the compiled text (``(element, rendered) -> str``), where the walk is compiled (the same
#: module: built and wanted alike)
_compiled: Callable[[etree._Element, Callable[[etree._Element], bool]], str] | None = (
    compiled("structcrawl.visible._cwalk", "visible_text") if COMPILED else None
)


def visible_text(el: etree._Element) -> str:
    """The text of ``el`` without its hidden or non-rendered descendants (see the module
    doc)."""
    return _compiled(el, rendered) if _compiled is not None else _visible_text(el)
