"""Strict-JSON data: ``<script type="application/json">`` blocks (``__NEXT_DATA__`` and the
like) and JSON responses.

Each block or response becomes one record holding the parsed document (top-level keys as
properties, JSON-path provenance), plus one record per embedded typed node (an object with
``@type`` that is not itself inside a typed node), so schema.org-like data hidden in
application state is found. A JSON document with a top-level ``@context`` is JSON-LD and is
read as such. Parsing is strict: no repairs, no regular expressions over JavaScript, no
evaluation. Invalid JSON becomes an error record with the raw text and the parser's message.
Valid JSON made safe by the parser (repeated keys, overflowing numbers, lone surrogates) is
labelled in ``repairs``, the text kept in the first record's ``raw``.

Bounds (:mod:`structcrawl.core.limits`): a block longer than ``max_json_chars`` (``json-too-large``)
or nested deeper than ``max_json_depth`` (``json-too-deep``) is not extracted; typed records
after the ``max_items``-th (``json-too-many-items``) and blocks after the ``max_blocks``-th
(``data-block-too-many-blocks``) are not read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from structcrawl.core.document import Document
from structcrawl.core.limits import DEFAULT_LIMITS, Limits, raw_excerpt
from structcrawl.core.payload import split_content_type
from structcrawl.core.records import Provenance, Record, error_record
from structcrawl.extract._jsonnodes import json_path, node_records
from structcrawl.extract._jsonparse import parse_json

__all__ = ["PARSER", "extract", "extract_json_text", "typed_nodes"]

PARSER = "structcrawl.extract.jsondata"
_JSON_TYPES = frozenset({"application/json", "text/json"})
_MAX_WALK = 200_000  # bound on JSON nodes visited when looking for typed nodes


def _is_data_block(script_type: str | None) -> bool:
    mime, _ = split_content_type(script_type)
    return mime in _JSON_TYPES or (mime.endswith("+json") and mime != "application/ld+json")


def typed_nodes(value: Any, path: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    """``(json_path, node)`` for outermost objects carrying ``@type`` (bounded walk)."""
    # (parent's path, key, node): a node's own path is spelled only if it is an object or an
    # array (most nodes are strings and numbers, which need none)
    stack: list[tuple[str, str | int | None, Any]] = [(path, None, value)]
    seen = 0
    while stack and seen < _MAX_WALK:
        parent, key, v = stack.pop()
        seen += 1
        if isinstance(v, dict):
            p = parent if key is None else json_path(parent, key)
            if "@type" in v:
                yield p, v
                continue
            stack.extend((p, k, c) for k, c in reversed(list(v.items())))
        elif isinstance(v, list):
            p = parent if key is None else json_path(parent, key)
            stack.extend((p, i, c) for i, c in reversed(list(enumerate(v))))


def _document_record(
    value: Any, *, source_url: str, fmt: str, element: str, type_: list[str]
) -> Record:
    rec = Record(
        source_url=source_url,
        format=fmt,
        source_element=element or "$",
        provenance=Provenance(parser=PARSER),
        type=type_,
        raw=value,
    )
    loc = (lambda p: f"{element}#{p}") if element else (lambda p: p)
    if isinstance(value, dict):
        for key, v in value.items():
            rec.add_value(key, v, loc(json_path("$", key)), v)
    else:
        rec.add_value("value", value, loc("$"), value)
    return rec


def extract_json_text(
    text: str,
    *,
    source_url: str,
    base_url: str,
    fmt: str,
    element: str = "",
    type_: list[str] | None = None,
    limits: Limits | None = None,
) -> list[Record]:
    """Records for one strict-JSON document (a data block or a response body)."""
    limits = limits or DEFAULT_LIMITS

    def error(code: str, message: str, raw: str) -> list[Record]:
        return [
            error_record(
                source_url=source_url,
                format=fmt,
                code=code,
                message=message,
                source_element=element or "$",
                raw=raw,
                parser=PARSER,
                type=type_ or [],
            )
        ]

    if len(text) > limits.max_json_chars:
        return error(
            "json-too-large",
            f"JSON of {len(text):,} characters is larger than {limits.max_json_chars:,} "
            "(max_json_chars): not parsed; raw holds its beginning",
            raw_excerpt(text),
        )
    parsed = parse_json(text, repair=False, max_depth=limits.max_json_depth)
    if parsed.too_deep:
        return error(
            "json-too-deep",
            f"JSON nested deeper than {limits.max_json_depth} arrays/objects "
            "(max_json_depth): not extracted",
            text,
        )
    if not parsed.ok:
        return error("json-invalid", parsed.error or "invalid JSON", text)
    records = _records(parsed.values[0], source_url, base_url, fmt, element, type_, limits, error)
    if parsed.notes and records and records[0].kind == "entity":
        records[0].raw = text  # what was made safe (repeated keys, ...) lives on in raw
        for rec in records:
            rec.repairs.extend(parsed.notes)
    return records


def _records(
    value: Any,
    source_url: str,
    base_url: str,
    fmt: str,
    element: str,
    type_: list[str] | None,
    limits: Limits,
    error: Callable[[str, str, str], list[Record]],
) -> list[Record]:
    if (
        isinstance(value, dict)
        and "@context" in value
        or (
            isinstance(value, list)
            and value
            and all(isinstance(v, dict) and "@context" in v for v in value)
        )
    ):
        records, _ = node_records(
            value,
            source_url=source_url,
            base_url=base_url,
            fmt="json-ld",
            parser=PARSER,
            element=element,
        )
        if len(records) > limits.max_items:
            return records[: limits.max_items] + error(
                "json-too-many-items",
                f"{len(records):,} JSON-LD nodes: only the first {limits.max_items:,} were "
                "kept as records (max_items)",
                "",
            )
        return records
    typed = list(typed_nodes(value))
    records = []
    too_many = len(typed) > limits.max_items
    extra = error(
        "json-too-many-items",
        f"{len(typed):,} typed objects: only the first {limits.max_items:,} were extracted as "
        "records (max_items)",
        "",
    )
    typed = typed[: limits.max_items]
    if not (typed and typed[0][0] == "$"):  # a typed top-level object is its own record
        records.append(
            _document_record(
                value, source_url=source_url, fmt=fmt, element=element, type_=type_ or []
            )
        )
    for path, node in typed:
        found, _ = node_records(
            node,
            source_url=source_url,
            base_url=base_url,
            fmt=fmt,
            parser=PARSER,
            element=element,
            path=path,
        )
        for rec in found:
            rec.raw = node
        records.extend(found)
    return records + extra if too_many else records


def extract(doc: Document) -> list[Record]:
    limits = doc.limits
    records: list[Record] = []
    blocks = [s for s in doc.index().named("script") if _is_data_block(s.get("type"))]
    for index, script in enumerate(blocks):
        if index == limits.max_blocks or len(records) >= limits.max_items:
            bound = "max_blocks" if index == limits.max_blocks else "max_items"
            records.append(
                error_record(
                    source_url=doc.url,
                    format="data-block",
                    code="data-block-too-many-blocks",
                    message=f"{len(blocks):,} JSON data blocks: the {len(blocks) - index:,} "
                    f"from this one on were not read ({bound})",
                    source_element=doc.path_of(script),
                    parser=PARSER,
                )
            )
            break
        block_id = script.get("id")
        records.extend(
            extract_json_text(
                script.text or "",
                source_url=doc.url,
                base_url=doc.base_url,
                fmt="data-block",
                element=doc.path_of(script),
                type_=[block_id] if block_id else [],
                limits=limits,
            )
        )
    return records
