"""Strict-JSON data: ``<script type="application/json">`` blocks (``__NEXT_DATA__`` and the
like) and JSON responses.

Each block or response becomes one record holding the parsed document (top-level keys as
properties, JSON-path provenance), plus one record per embedded typed node (an object with
``@type`` that is not itself inside a typed node), so schema.org-like data hidden in
application state is found. A JSON document with a top-level ``@context`` is JSON-LD and is
read as such. Parsing is strict: no repairs, no regular expressions over JavaScript, no
evaluation. Invalid JSON becomes an error record with the raw text and the parser's message.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from structcrawl.document import Document
from structcrawl.extract._jsonnodes import json_path, node_records
from structcrawl.extract._jsonparse import parse_json
from structcrawl.payload import split_content_type
from structcrawl.records import Provenance, Record, error_record

__all__ = ["DATA_BLOCK_IDS", "PARSER", "extract", "extract_json_text", "typed_nodes"]

PARSER = "structcrawl.extract.jsondata"
#: Ids of well-known framework state blocks (matched only on JSON-typed scripts).
DATA_BLOCK_IDS = frozenset(
    {"__NEXT_DATA__", "__NUXT_DATA__", "__APOLLO_STATE__", "__REMIX_CONTEXT__"}
)
_JSON_TYPES = frozenset({"application/json", "text/json"})
_MAX_WALK = 200_000  # bound on JSON nodes visited when looking for typed nodes


def _is_data_block(script_type: str | None) -> bool:
    mime, _ = split_content_type(script_type)
    return mime in _JSON_TYPES or (mime.endswith("+json") and mime != "application/ld+json")


def typed_nodes(value: Any, path: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    """``(json_path, node)`` for outermost objects carrying ``@type`` (bounded walk)."""
    stack: list[tuple[str, Any]] = [(path, value)]
    seen = 0
    while stack and seen < _MAX_WALK:
        p, v = stack.pop()
        seen += 1
        if isinstance(v, dict):
            if "@type" in v:
                yield p, v
                continue
            stack.extend((json_path(p, k), c) for k, c in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((json_path(p, i), c) for i, c in reversed(list(enumerate(v))))


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
) -> list[Record]:
    """Records for one strict-JSON document (a data block or a response body)."""
    parsed = parse_json(text, repair=False)
    if not parsed.ok:
        return [
            error_record(
                source_url=source_url,
                format=fmt,
                code="json-invalid",
                message=parsed.error or "invalid JSON",
                source_element=element or "$",
                raw=text,
                parser=PARSER,
                type=type_ or [],
            )
        ]
    value = parsed.values[0]
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
        return records
    typed = list(typed_nodes(value))
    records = []
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
    return records


def extract(doc: Document) -> list[Record]:
    records: list[Record] = []
    for script in doc.root.iter("script"):
        if not _is_data_block(script.get("type")):
            continue
        block_id = script.get("id")
        records.extend(
            extract_json_text(
                script.text or "",
                source_url=doc.url,
                base_url=doc.base_url,
                fmt="data-block",
                element=doc.path_of(script),
                type_=[block_id] if block_id else [],
            )
        )
    return records
