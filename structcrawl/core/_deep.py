"""Repairs of the tree libxml2 builds, for :func:`structcrawl.core.document.parse_html`: pages
nested deeper than libxml2 builds are rebuilt with the deeper parts re-attached at half the
bound (nothing after them is lost), and content nested into void elements is moved out."""

from __future__ import annotations

import re

from lxml import etree

from structcrawl.core.limits import Limits

__all__ = ["html_parser", "rebuild", "unnest"]


def html_parser() -> etree.HTMLParser:
    # A plain etree parser: lxml.html's element-class lookup runs Python code for every element
    # touched from Python, which costs more than the parse itself on large pages. No table of
    # the ``id`` attributes (nothing looks an element up by it in libxml2; every layer reads
    # the element index): building it is ~10-15% of libxml2's parse of a large page, and each
    # id a page repeats (16 a large page) was an error in the parser's log.
    return etree.HTMLParser(
        encoding="utf-8",
        remove_blank_text=False,
        no_network=True,
        huge_tree=True,
        default_doctype=False,
        collect_ids=False,
    )


_PARSER = html_parser()
_START_TAG = re.compile(rb"<[A-Za-z]")


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


def unnest(void: etree._Element) -> None:
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


def rebuild(data: bytes, limits: Limits) -> tuple[etree._Element, list[tuple[str, str]]]:
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
