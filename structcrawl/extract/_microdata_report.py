"""The Microdata layer's page-level records: warnings and the bounds it reached.

Pure helpers of :mod:`structcrawl.extract.microdata`, fed plain data (element paths, counts).
"""

from __future__ import annotations

from collections.abc import Sequence

from structcrawl.core.document import Document
from structcrawl.core.records import Record, error_record

__all__ = ["FORMAT", "PARSER", "bound_errors", "page_warnings"]

FORMAT = "microdata"
PARSER = "structcrawl.extract.microdata"
_MAX_WARNINGS = 20  # per kind and page; one more warning counts the rest


_CODES = (
    "microdata-itemprop-outside-item",
    "microdata-itemref-missing",
    "microdata-nested-scope-without-itemprop",
    "microdata-itemtype-not-absolute",
)


def page_warnings(
    doc: Document,
    outside: list[tuple[str, str]],
    missing: list[tuple[str, str]],
    nested: Sequence[tuple[str, str]] = (),
    relative: Sequence[tuple[str, str]] = (),
) -> list[Record]:
    """Warning records: ``outside`` lists ``(itemprop, element path)`` of properties outside
    any item, ``missing`` ``(id, element path)`` of ``itemref`` tokens naming no element,
    ``nested`` ``(itemtype, element path)`` of items inside another item's element that
    carry no ``itemprop`` (a separate top-level item, not a property of the outer one),
    ``relative`` ``(itemtype token, element path)`` of item types that are not absolute URLs
    (``itemtype="Product"``: Microdata types are URLs, a vocabulary is not guessed)."""
    found = [
        (
            "microdata-itemprop-outside-item",
            f"itemprop {name!r} is outside any item: its value belongs to no item",
            path,
        )
        for name, path in outside
    ]
    found += [
        ("microdata-itemref-missing", f"itemref names {ref!r}, but no element has that id", path)
        for ref, path in missing
    ]
    found += [
        (
            "microdata-nested-scope-without-itemprop",
            f"the item {itemtype or '(untyped)'!r} sits inside another item but has no itemprop:"
            " it is a separate top-level item, not a property of the one around it",
            path,
        )
        for itemtype, path in nested
    ]
    found += [
        (
            "microdata-itemtype-not-absolute",
            f"itemtype {token!r} is not an absolute URL: Microdata types are URLs "
            "(https://schema.org/...), so consumers read no known type here",
            path,
        )
        for token, path in relative
    ]
    out: list[Record] = []
    for code in _CODES:
        mine = [f for f in found if f[0] == code]
        out.extend(_warning(doc, c, m, path) for c, m, path in mine[:_MAX_WARNINGS])
        if len(mine) > _MAX_WARNINGS:
            more = len(mine) - _MAX_WARNINGS
            out.append(_warning(doc, code, f"{more:,} more like the above (not listed)"))
    return out


def _warning(doc: Document, code: str, message: str, element: str = "") -> Record:
    return _error(doc, code, message, element, kind="warning")


def bound_errors(
    doc: Document,
    *,
    unread: int,
    refused: int,
    many: bool,
    unshared: int,
    too_deep: int,
    first_unread: str,
) -> list[Record]:
    """Error records for the bounds the extraction reached (see the microdata module)."""
    limits = doc.limits
    records = []
    if unread or refused:
        bound = (
            f"{limits.max_items:,} items (max_items)"
            if many
            else f"{limits.max_visits:,} element visits (max_visits; itemref makes items "
            "share elements)"
        )
        records.append(
            _error(
                doc,
                "microdata-too-many-items" if many else "microdata-too-complex",
                f"after {bound} no more items were built: nested items from there on are "
                "references"
                + (f", and {unread:,} top-level items were not read" if unread else ""),
                first_unread,
            )
        )
    if unshared:
        records.append(
            _error(
                doc,
                "microdata-too-complex",
                f"items shared through itemref were built again {limits.max_shared:,} times "
                f"(max_shared); {unshared:,} more uses are references ({{'@ref': path}} or "
                "{'@id': itemid})",
            )
        )
    if too_deep:
        records.append(
            _error(
                doc,
                "microdata-too-deep",
                f"{too_deep:,} items nested deeper than {limits.max_nesting} levels "
                "(max_nesting) were kept as references ({'@ref': path} or {'@id': itemid}), "
                "not built",
            )
        )
    return records


def _error(
    doc: Document, code: str, message: str, element: str = "", kind: str = "error"
) -> Record:
    return error_record(
        source_url=doc.url,
        format=FORMAT,
        code=code,
        message=message,
        source_element=element,
        parser=PARSER,
        kind=kind,
    )
