"""Element XPaths for provenance, as lxml writes them, in linear time (see
:class:`ElementPaths`)."""

from __future__ import annotations

from typing import Any

from lxml import etree

__all__ = ["ElementPaths"]


class ElementPaths:
    """Element XPaths exactly as ``root.getroottree().getpath(el)`` writes them, without its
    quadratic cost on wide trees.

    lxml's ``getpath`` counts the same-name siblings of the element *and of every ancestor* on
    each call, so the paths of n siblings (a page of 50,000 ``<meta>`` or ``<script>`` tags, or
    of 50,000 items with a property each) cost O(n²). The first calls go to ``getpath`` (on
    real pages, a few dozen calls, it is several times faster than anything done in Python);
    after them, ancestors' paths are remembered and a parent asked about more than a few
    times has its children indexed once.

    ``native``: how many paths to ask of ``getpath`` first (``0``: none); see
    :meth:`native_for`.

    >>> root = etree.fromstring(b"<html><body><p>a</p><p>b<b>c</b></p><i/></body></html>",
    ...                         etree.HTMLParser())
    >>> paths, tree = ElementPaths(root, native=0), root.getroottree()
    >>> all(paths(el) == tree.getpath(el) for _ in range(10) for el in root.iter())
    True
    >>> paths(root.find(".//b"))
    '/html/body/p[2]/b'
    """

    __slots__ = ("_tree", "_calls", "_steps", "_known", "_native")
    #: getpath steps (siblings passed) allowed in all for a tree's first paths: a path costs
    #: at most one step per element of the tree, so a tree of n elements gets STEPS // n
    NATIVE_STEPS = 2_000_000
    _NATIVE_CALLS = 8  # per parent, before its children are indexed
    NATIVE_PATHS = 256  # whole paths asked of getpath, before the linear-time method

    def __init__(self, root: etree._Element, native: int = NATIVE_PATHS) -> None:
        self._tree = root.getroottree()
        self._calls: dict[Any, int] = {}
        self._steps: dict[Any, dict[Any, str]] = {}  # indexed parent -> child -> "div[2]"
        self._known: dict[Any, str] = {}  # element -> its path (ancestors of asked elements)
        self._native = native  # getpath calls left: each costs O(siblings x depth)

    @classmethod
    def native_for(cls, size: int) -> int:
        """How many paths to ask of ``getpath`` in a tree of ``size`` elements: as many as
        keep its worst case (every path passing every element) under :attr:`NATIVE_STEPS`,
        between 16 and 4,096.

        >>> ElementPaths.native_for(800), ElementPaths.native_for(50_000)
        (2500, 40)
        """
        return max(16, min(4096, cls.NATIVE_STEPS // max(size, 1)))

    def __call__(self, element: etree._Element) -> str:
        if not isinstance(element.tag, str):
            return self._tree.getpath(element)
        if self._native > 0:
            self._native -= 1
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
