"""microformats2 (and common v1 classes through backcompat), via :mod:`structcrawl.extract.mf2`.

Runs only when the page has microformat root classes, over the shared tree. Each top-level
item becomes a record (``type`` such as ``h-card``); nested items, in properties or as
``children``, become nested records; single values are scalars, repeated ones lists.

Bounds (``doc.limits``): items nested deeper than ``max_nesting`` are left out with their
subtree (``microformats-too-deep``), and after ``max_items`` items nothing more is read
(``microformats-too-many-items``); each says so in one error record.
"""

from __future__ import annotations

from typing import Any

from structcrawl.core.document import Document
from structcrawl.core.records import Provenance, Record, error_record
from structcrawl.extract.mf2 import parse_mf2

__all__ = ["FORMAT", "PARSER", "extract"]

FORMAT = "microformats"
PARSER = "structcrawl.extract.microformats"


def _record(doc: Document, item: dict[str, Any], top: bool) -> Record:
    path = item.get("_path", "")
    rec = Record(
        source_url=doc.url,
        format=FORMAT,
        source_element=path,
        provenance=Provenance(parser=PARSER),
        type=list(item.get("type", [])),
        raw=_clean(item) if top else None,
    )
    value_paths = item.get("_paths", {})
    for prop, values in item.get("properties", {}).items():
        converted = [_value(doc, v) for v in values]
        rec.properties[prop] = converted[0] if len(converted) == 1 else converted
        paths = value_paths.get(prop) or [path] * len(values)
        for v, vpath in zip(values, paths, strict=False):
            raw = None if isinstance(v, dict) and "type" in v else _clean(v)
            rec.provenance.add(prop, vpath, raw)
    children = [_record(doc, c, False) for c in item.get("children", [])]
    if children:
        rec.properties["children"] = children
        for c in children:
            rec.provenance.add("children", c.source_element)
    return rec


def _value(doc: Document, value: Any) -> Any:
    if isinstance(value, dict) and "type" in value:
        return _record(doc, value, False)
    return value


def _clean(item: Any) -> Any:
    """The item as the mf2 JSON format has it (without our internal paths)."""
    if isinstance(item, dict):
        return {k: _clean(v) for k, v in item.items() if k not in ("_path", "_paths")}
    if isinstance(item, list):
        return [_clean(v) for v in item]
    return item


def extract(doc: Document) -> list[Record]:
    limits = doc.limits
    parsed = parse_mf2(
        doc.root,
        doc.url,
        with_paths=True,
        max_items=limits.max_items,
        max_nesting=limits.max_nesting,
        rels=False,  # rels are not records
        classed=doc.index().having("class"),
        classes=doc.index().values("class"),
        linked=doc.index().having("rel"),
        base=doc.base_url,  # <base href> applied as mf2's document_base does
    )
    records = [_record(doc, item, True) for item in parsed.get("items", [])]
    bounds = parsed.get("_limits", {})
    if bounds.get("too_deep"):
        records.append(
            _error(
                doc,
                "microformats-too-deep",
                f"{bounds['too_deep']:,} microformats nested deeper than {limits.max_nesting} "
                "levels (max_nesting) were left out, with their content",
            )
        )
    if bounds.get("truncated"):
        records.append(
            _error(
                doc,
                "microformats-too-many-items",
                f"more than {limits.max_items:,} microformats on the page (max_items): only the "
                "first were read",
            )
        )
    return records


def _error(doc: Document, code: str, message: str) -> Record:
    return error_record(
        source_url=doc.url, format=FORMAT, code=code, message=message, parser=PARSER
    )
