"""JSON-LD: every ``application/ld+json`` block, in head or body.

Objects, arrays and ``@graph`` containers become one record per node; nested nodes stay nested
as records; node references (``{"@id": ...}``) stay references. ``@id`` values and URL-valued
schema.org properties are resolved against the document base. ``@context`` is kept on every
record. A block that is not valid JSON becomes an error record with its raw text and the
parser's message; labelled repairs (:mod:`structcrawl.extract._jsonparse`) recover common
publisher mistakes and say so on each record. Nothing is evaluated.

Bounds (``doc.limits``): a block longer than ``max_json_chars`` (``json-ld-too-large``, its
beginning kept in ``raw``) or nested deeper than ``max_json_depth`` (``json-ld-too-deep``) is
not extracted; blocks after the ``max_blocks``-th and records after the ``max_items``-th are
not read (one ``json-ld-too-many-blocks`` / ``json-ld-too-many-items`` record says how many).
The page's other blocks are unaffected. Valid JSON made safe by
:func:`~structcrawl.extract._jsonparse.parse_json` (a repeated key, a number overflowing a
double, a lone surrogate escape) is labelled like a repair, its text kept in ``raw``. Records
of a repaired block share its text: the first holds all of it, the others its first 2,000
characters.
"""

from __future__ import annotations

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.core.limits import raw_excerpt
from structcrawl.core.payload import split_content_type
from structcrawl.core.records import Record, error_record
from structcrawl.extract._jsonnodes import node_records
from structcrawl.extract._jsonparse import parse_json

__all__ = ["FORMAT", "PARSER", "extract", "ld_json_scripts"]

FORMAT = "json-ld"
PARSER = "structcrawl.extract.jsonld"


def ld_json_scripts(doc: Document) -> list:
    """The ``<script type="application/ld+json">`` elements, in document order."""
    found = []
    for script in doc.index().named("script"):
        mime, _ = split_content_type(script.get("type"))
        if mime == "application/ld+json":
            found.append(script)
    return found


def _error(
    doc: Document, code: str, message: str, element: str = "", raw: str = "", kind: str = "error"
) -> Record:
    return error_record(
        source_url=doc.url,
        format=FORMAT,
        code=code,
        message=message,
        source_element=element,
        raw=raw,
        parser=PARSER,
        kind=kind,
    )


def extract(doc: Document, repairs: str = "safe") -> list[Record]:
    """The page's JSON-LD records (``repairs``: ``none``, ``safe`` or ``all``, see
    :mod:`structcrawl.extract.options`)."""
    limits = doc.limits
    records: list[Record] = []
    scripts = ld_json_scripts(doc)
    entities = 0
    for index, script in enumerate(scripts):
        if index == limits.max_blocks:
            records.append(
                _error(
                    doc,
                    "json-ld-too-many-blocks",
                    f"{len(scripts):,} JSON-LD blocks: only the first {limits.max_blocks:,} "
                    f"were read (max_blocks); {len(scripts) - index:,} were not",
                    doc.path_of(script),
                )
            )
            break
        if entities >= limits.max_items:
            records.append(
                _error(
                    doc,
                    "json-ld-too-many-items",
                    f"more than {limits.max_items:,} JSON-LD records on the page (max_items): "
                    f"the {len(scripts) - index:,} blocks from this one on were not read",
                    doc.path_of(script),
                )
            )
            break
        block = _block(doc, script, repairs, limits.max_items - entities)
        entities += sum(1 for r in block if r.kind == "entity")
        records.extend(block)
    return records


def _block(doc: Document, script: etree._Element, repairs: str, room: int) -> list[Record]:
    """The records of one script element: its nodes (at most ``room`` of them), or the error
    or skip record saying why it has none."""
    limits = doc.limits
    element = doc.path_of(script)
    text = script.text or ""
    if len(text) > limits.max_json_chars:
        message = (
            f"JSON-LD block of {len(text):,} characters is larger than "
            f"{limits.max_json_chars:,} (max_json_chars): not parsed; raw holds its beginning"
        )
        return [_error(doc, "json-ld-too-large", message, element, raw_excerpt(text))]
    if not text.strip():
        return [_error(doc, "json-ld-empty", "empty JSON-LD block", element, text, "skip")]
    parsed = parse_json(
        text,
        repair=repairs,
        max_depth=limits.max_json_depth,
        max_repair_chars=limits.max_repair_chars,
    )
    if parsed.too_deep:
        message = (
            f"JSON-LD block nested deeper than {limits.max_json_depth} arrays/objects "
            "(max_json_depth): not extracted"
        )
        return [_error(doc, "json-ld-too-deep", message, element, text)]
    if not parsed.ok:
        return [_error(doc, "json-ld-invalid", parsed.error or "invalid JSON", element, text)]
    value = parsed.values[0] if len(parsed.values) == 1 else parsed.values
    labels = parsed.repairs + parsed.notes  # the original text stays in raw
    block_records, problems = node_records(
        value,
        source_url=doc.url,
        base_url=doc.base_url,
        fmt=FORMAT,
        parser=PARSER,
        element=element,
        keep_raw=text if labels else None,
    )
    out: list[Record] = []
    if len(block_records) > room:
        kept = max(room, 0)
        message = (
            f"this block holds {len(block_records):,} records; only {kept:,} were kept, so "
            f"that the page has at most {limits.max_items:,} (max_items)"
        )
        out.append(_error(doc, "json-ld-too-many-items", message, element))
        block_records = block_records[:kept]
    for i, rec in enumerate(block_records):
        rec.repairs = list(labels)
        if i and labels:  # one full copy of a repaired block's text is enough
            rec.raw = raw_excerpt(text)
    return out + block_records + _problem_records(doc, problems, element, text)


_MAX_PROBLEMS = 20  # per block: non-node values reported one by one


def _problem_records(
    doc: Document, problems: list[tuple[str, str]], element: str, text: str
) -> list[Record]:
    """Skip/error records for top-level values that are not node objects (the first few; one
    more record counts the rest). The first holds the block's text, the others its start."""
    out = []
    for i, (path, message) in enumerate(problems[:_MAX_PROBLEMS]):
        null = message.endswith("found NoneType")
        out.append(
            error_record(
                source_url=doc.url,
                format=FORMAT,
                code="json-ld-null" if null else "json-ld-not-a-node",
                message=message,
                source_element=f"{element}#{path}",
                raw=text if i == 0 else raw_excerpt(text),
                parser=PARSER,
                kind="skip" if null else "error",
            )
        )
    if len(problems) > _MAX_PROBLEMS:
        out.append(
            _error(
                doc,
                "json-ld-not-a-node",
                f"{len(problems) - _MAX_PROBLEMS:,} more top-level values of this block are not "
                "node objects (not reported one by one)",
                element,
                raw_excerpt(text),
            )
        )
    return out
