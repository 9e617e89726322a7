"""The microformats2 document walk: items, properties, children, backcompat and rels.

The walk is iterative (an explicit stack of element iterators), so arbitrarily deep documents
cannot exhaust Python's recursion limit. Each microformat root opens an :class:`Item`; its
output dict is created empty when the root is entered (so that properties and children keep
document order) and filled in when the root's subtree has been walked, which is also when the
implied properties are computed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from lxml import etree

from structcrawl.core.document import ElementPaths

from ._implied import implied_name, implied_photo, implied_url
from ._item import Item, document_base
from ._rels import parse_rels
from ._scan import MEANINGFUL, ROOT_TOKEN, class_scan
from ._text import tag_last_segment
from ._values import Boundary, parse_dt, parse_e, parse_p, parse_u
from ._vocab import (
    BACKCOMPAT_ROOTS,
    BACKCOMPAT_TYPES,
    ITEM_CONTEXT_ROOTS,
    PropSpec,
    backcompat_properties,
    mf2_properties,
    mf2_roots,
    split_tokens,
)

__all__ = ["MAX_NESTING", "ROOT_TOKEN", "Mf2Parser", "document_base"]

#: Microformats nested deeper than this are ignored (with their subtree): the output stays
#: shallow enough for recursive consumers (json.dumps, ==, jsonschema) on hostile documents.
MAX_NESTING: Final = 100
_MAX_INCLUDE_DEPTH: Final = 8
_MAX_INCLUDES: Final = 512


class Mf2Parser:
    """One parse of one document (see :func:`structcrawl.extract.mf2.parse_mf2`)."""

    def __init__(
        self,
        root: etree._Element,
        base: str,
        with_paths: bool,
        *,
        max_items: int | None = None,
        max_nesting: int = MAX_NESTING,
        rels: bool = True,
        classed: Iterable[etree._Element] | None = None,
        linked: Iterable[etree._Element] | None = None,
        classes: Sequence[str] | None = None,
    ) -> None:
        self.root = root
        self.base = base
        self.with_paths = with_paths
        self.max_items = max_items
        self.max_nesting = max_nesting
        self.rels = rels
        self.opened = 0  # items parsed
        self.too_deep = 0  # items ignored for nesting deeper than max_nesting
        self.truncated = False  # items not read after max_items
        self._paths = ElementPaths(root) if with_paths else None  # getpath, linear
        self._visited: set[etree._Element] = set()
        self._includes_used = 0
        self._ids: dict[str, etree._Element] | None = None
        self._candidates, self._vcp, self._classes, makers = class_scan(root, classed, classes)
        # The elements the walk must enter: those whose class may mean something to it, those
        # with a rel (a classic property), and their ancestors. Under any other element the
        # walk would only hand its context down to elements that do nothing with it.
        self._on_path: set[etree._Element] = set()
        if self._candidates:
            if linked is None:
                linked = (el for el in root.iter(etree.Element) if el.get("rel") is not None)
            on_path = self._on_path
            for el in (*makers, *linked):
                node: etree._Element | None = el
                while node is not None and node not in on_path:
                    on_path.add(node)
                    node = node.getparent()

    def _boundary(self, item: Item) -> Boundary:
        """The value-class-pattern boundary of ``item`` (None: no value classes in document)."""
        return item.boundary if self._vcp else None

    # -- public ---------------------------------------------------------------------------

    def parse(self) -> dict[str, Any]:
        items: list[dict[str, Any]] = []
        for el in self._candidates:
            if el in self._visited:
                continue
            if self.max_items is not None and self.opened >= self.max_items:
                self.truncated = True
                break
            tokens = split_tokens(el.get("class"))
            if mf2_roots(tokens) or any(t in BACKCOMPAT_ROOTS for t in tokens):
                self._walk(el, items)
        rels, rel_urls = parse_rels(self.root, self.base) if self.rels else ({}, {})
        return {"items": items, "rels": rels, "rel-urls": rel_urls}

    # -- walk -----------------------------------------------------------------------------

    def _walk(self, start: etree._Element, items: list[dict[str, Any]]) -> None:
        # frame: [element, children iterator, opened item or None, context item,
        #         include depth, elements still to include after the children]
        stack: list[list[Any]] = []
        on_path = self._on_path
        self._enter(start, None, 0, stack, items)
        while stack:
            frame = stack[-1]
            depth = frame[4]
            child = next(frame[1], None)
            if child is None:
                if frame[5]:
                    self._enter(frame[5].pop(0), frame[3], depth + 1, stack, items)
                    continue
                stack.pop()
                if frame[2] is not None:
                    self._finish(frame[2])
                continue
            if not isinstance(child.tag, str) or child.tag == "template":
                continue
            if child not in on_path:
                continue  # nothing below has a class or rel that means anything here
            ctx: Item | None = frame[3]
            if ctx is not None and ctx.backcompat and child.get("class"):
                target = self._include_target(child, ctx, depth)
                if target is not None:
                    child, depth = target, depth + 1
            self._enter(child, ctx, depth, stack, items)

    def _enter(
        self,
        el: etree._Element,
        ctx: Item | None,
        depth: int,
        stack: list[list[Any]],
        items: list[dict[str, Any]],
    ) -> None:
        cls = self._classes.get(el)
        rel = el.get("rel") if ctx is not None and ctx.backcompat else None
        if rel is None and (cls is None or MEANINGFUL.search(cls) is None):
            # no root, no property, no classic name: nothing here but the children
            stack.append([el, iter(el), None, ctx, depth, None])
            return
        tokens = split_tokens(cls)
        roots = mf2_roots(tokens)
        bc_roots: tuple[str, ...] = ()
        if not roots:
            bc_roots = tuple(sorted(t for t in set(tokens) if t in BACKCOMPAT_ROOTS))
            if (
                not bc_roots
                and "item" in tokens
                and ctx is not None
                and any(r in ITEM_CONTEXT_ROOTS for r in ctx.roots)
            ):
                bc_roots = ("item",)
            types = sorted({t for r in bc_roots for t in BACKCOMPAT_TYPES[r]})
        else:
            types = roots
        props: list[PropSpec] = []
        if ctx is not None:
            if ctx.backcompat:
                props = backcompat_properties(ctx.roots, tokens, split_tokens(rel))
            else:
                props = mf2_properties(tokens)
        if not types:
            if props and ctx is not None:
                self._add_simple(el, ctx, props)
            stack.append([el, iter(el), None, ctx, depth, None])
            return
        level = 1 if ctx is None else ctx.level + 1
        full = self.max_items is not None and self.opened >= self.max_items
        if level > self.max_nesting or full:
            # Too deep (or too many): ignore the subtree, and keep its roots from counting as
            # top-level.
            if full:
                self.truncated = True
            else:
                self.too_deep += 1
            self._visited.add(el)
            self._visited.update(d for d in el.iterdescendants() if d.get("class"))
            stack.append([el, iter(()), None, ctx, depth, None])
            return
        item = Item(el, types, bc_roots, level)
        self.opened += 1
        if depth == 0:
            self._visited.add(el)
        if ctx is None:
            item.out = {}
            items.append(item.out)
        elif props:
            ctx.has_nested = True
            for prefix, name, _special in props:
                slot: dict[str, Any] = {}
                ctx.add(prefix, name, slot, el)
                item.slots.append((prefix, slot))
        else:
            ctx.has_nested = True
            item.out = {}
            ctx.children.append(item.out)
        if bc_roots:
            item.includes = self._root_includes(el, depth)
        stack.append([el, iter(el), item, item, depth, list(item.includes)])

    def _add_simple(self, el: etree._Element, ctx: Item, props: list[PropSpec]) -> None:
        """Parse a property element that is not itself a microformat."""
        p_value: str | None = None
        u_value: Any = None
        for prefix, name, special in props:
            if prefix == "p":
                if special == "tag":
                    value: Any = tag_last_segment(el.get("href") or "")
                else:
                    if p_value is None:
                        p_value = parse_p(el, self.base, self._boundary(ctx))
                    value = p_value
            elif prefix == "u":
                if u_value is None:
                    u_value = parse_u(el, self.base, self._boundary(ctx), not ctx.backcompat)
                value = u_value
            elif prefix == "dt":
                value, date = parse_dt(el, self._boundary(ctx), ctx.date)
                if date:
                    ctx.date = date
            else:
                value = parse_e(el, self.base)
            ctx.add(prefix, name, value, el)

    def _finish(self, item: Item) -> None:
        """Complete ``item`` once its subtree has been walked."""
        el = item.el
        props = item.props
        if not item.backcompat:
            if "name" not in props and not item.has_pe and not item.has_nested:
                name = implied_name(el, self._is_root)
                props["name"] = [name]
                item.first_p_name = name
            if not item.has_u and not item.has_nested:
                if "photo" not in props:
                    photo = implied_photo(el, self.base, self._is_root)
                    if photo is not None:
                        props["photo"] = [photo]
                if "url" not in props:
                    url = implied_url(el, self.base, self._is_root)
                    if url is not None:
                        props["url"] = [url]
                        item.first_u_url = url
        core: dict[str, Any] = {"type": item.types, "properties": props}
        if not item.backcompat:
            el_id = el.get("id")
            if el_id:
                core["id"] = el_id
        if item.children:
            core["children"] = item.children
        if self._paths is not None:
            getpath = self._paths
            core["_path"] = getpath(el)
            # per value, the element it came from (implied values come from the item itself)
            core["_paths"] = {
                name: [getpath(e) for e in item.prop_elements.get(name, [])]
                or [core["_path"]] * len(values)
                for name, values in props.items()
            }
        if item.out is not None:
            item.out.update(core)
        for prefix, slot in item.slots:
            slot.update(core)
            if prefix == "e":
                slot.update(parse_e(el, self.base))
            else:
                slot["value"] = self._nested_value(item, prefix)

    def _nested_value(self, item: Item, prefix: str) -> Any:
        """The ``value`` of a microformat used as a ``p-``/``u-``/``dt-`` property."""
        el = item.el
        if prefix == "p":
            name = item.first_p_name
            if name is not None:
                return name.get("value", "") if isinstance(name, dict) and "type" in name else name
            return parse_p(el, self.base, self._boundary(item), item.includes)
        if prefix == "u":
            url = item.first_u_url
            if url is not None:
                return url.get("value", "") if isinstance(url, dict) and "type" in url else url
            return parse_u(el, self.base, self._boundary(item), not item.backcompat)
        return parse_dt(el, self._boundary(item), None)[0]

    def _is_root(self, el: etree._Element) -> bool:
        tokens = split_tokens(el.get("class"))
        return bool(mf2_roots(tokens)) or any(t in BACKCOMPAT_ROOTS for t in tokens)

    # -- include pattern (classic microformats only) -------------------------------------

    def _by_id(self, ident: str) -> etree._Element | None:
        if self._ids is None:
            self._ids = {}
            for node in self.root.iterfind(".//*[@id]"):
                self._ids.setdefault(node.get("id") or "", node)
        return self._ids.get(ident)

    def _usable_include(self, target: etree._Element | None, root: etree._Element) -> bool:
        """A target may be included if it is neither inside nor around ``root``."""
        if target is None or self._includes_used >= _MAX_INCLUDES:
            return False
        if target is root or _is_ancestor(target, root) or _is_ancestor(root, target):
            return False
        self._includes_used += 1
        return True

    def _root_includes(self, el: etree._Element, depth: int) -> list[etree._Element]:
        """Elements included into classic root ``el`` by ``itemref`` or ``td[headers]``."""
        if depth >= _MAX_INCLUDE_DEPTH:
            return []
        refs = split_tokens(el.get("itemref"))
        if el.tag in ("td", "th"):
            refs += split_tokens(el.get("headers"))
        out: list[etree._Element] = []
        for ref in refs:
            target = self._by_id(ref)
            if target is not None and target not in out and self._usable_include(target, el):
                out.append(target)
        return out

    def _include_target(self, el: etree._Element, ctx: Item, depth: int) -> etree._Element | None:
        """The element an ``a.include`` / ``object.include`` stands for, if usable."""
        cls = el.get("class") or ""
        if depth >= _MAX_INCLUDE_DEPTH or "include" not in cls:
            return None
        if "include" not in split_tokens(cls):
            return None
        ref = el.get("data") if el.tag == "object" else el.get("href")
        if not ref or not ref.startswith("#"):
            return None
        target = self._by_id(ref[1:])
        if target is not None and _is_ancestor(target, el):
            return None  # an element including itself (from inside): a loop, not data
        return target if self._usable_include(target, ctx.el) else None


def _is_ancestor(ancestor: etree._Element, node: etree._Element) -> bool:
    parent = node.getparent()
    while parent is not None:
        if parent is ancestor:
            return True
        parent = parent.getparent()
    return False
