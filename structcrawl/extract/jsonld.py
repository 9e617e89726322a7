"""JSON-LD: every ``application/ld+json`` block, in head or body.

Objects, arrays and ``@graph`` containers become one record per node; nested nodes stay nested
as records; node references (``{"@id": ...}``) stay references. ``@id`` values and URL-valued
schema.org properties are resolved against the document base. ``@context`` is kept on every
record. A block that is not valid JSON becomes an error record with its raw text and the
parser's message; labelled repairs (:mod:`structcrawl.extract._jsonparse`) recover common
publisher mistakes and say so on each record. Nothing is evaluated.
"""

from __future__ import annotations

from structcrawl.document import Document
from structcrawl.extract._jsonnodes import node_records
from structcrawl.extract._jsonparse import parse_json
from structcrawl.payload import split_content_type
from structcrawl.records import Record, error_record

__all__ = ["FORMAT", "PARSER", "extract", "ld_json_scripts"]

FORMAT = "json-ld"
PARSER = "structcrawl.extract.jsonld"


def ld_json_scripts(doc: Document) -> list:
    """The ``<script type="application/ld+json">`` elements, in document order."""
    found = []
    for script in doc.root.iter("script"):
        mime, _ = split_content_type(script.get("type"))
        if mime == "application/ld+json":
            found.append(script)
    return found


def extract(doc: Document) -> list[Record]:
    records: list[Record] = []
    for script in ld_json_scripts(doc):
        element = doc.path_of(script)
        text = script.text or ""
        if not text.strip():
            records.append(
                error_record(
                    source_url=doc.url,
                    format=FORMAT,
                    code="json-ld-empty",
                    message="empty JSON-LD block",
                    source_element=element,
                    raw=text,
                    parser=PARSER,
                    kind="skip",
                )
            )
            continue
        parsed = parse_json(text)
        if not parsed.ok:
            records.append(
                error_record(
                    source_url=doc.url,
                    format=FORMAT,
                    code="json-ld-invalid",
                    message=parsed.error or "invalid JSON",
                    source_element=element,
                    raw=text,
                    parser=PARSER,
                )
            )
            continue
        value = parsed.values[0] if len(parsed.values) == 1 else parsed.values
        block_records, problems = node_records(
            value,
            source_url=doc.url,
            base_url=doc.base_url,
            fmt=FORMAT,
            parser=PARSER,
            element=element,
            keep_raw=text if parsed.repairs else None,
        )
        for rec in block_records:
            rec.repairs = list(parsed.repairs)
        records.extend(block_records)
        for path, message in problems:
            null = message.endswith("found NoneType")
            records.append(
                error_record(
                    source_url=doc.url,
                    format=FORMAT,
                    code="json-ld-null" if null else "json-ld-not-a-node",
                    message=message,
                    source_element=f"{element}#{path}",
                    raw=text,
                    parser=PARSER,
                    kind="skip" if null else "error",
                )
            )
    return records
