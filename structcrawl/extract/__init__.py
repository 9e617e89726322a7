"""Semantic extraction: every layer of one page, from one parse, into one record shape.

:func:`extract_payload` is what the item pipeline and ``structcrawl extract`` both call: it
classifies the payload, parses HTML once (or JSON strictly), runs each requested syntax over
the shared tree and returns the page's records, errors included. A syntax that fails never
loses the others: its failure becomes an error record naming the syntax and the exception.
Bounds met on the way (:mod:`structcrawl.core.limits`) become error records naming the bound.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from structcrawl.core.document import Document, parse_html
from structcrawl.core.limits import DEFAULT_LIMITS, Limits, raw_excerpt
from structcrawl.core.payload import EXTRACTABLE, classify, split_content_type
from structcrawl.core.records import Record, error_record
from structcrawl.extract import (
    dublincore,
    jsondata,
    jsonld,
    microdata,
    microformats,
    opengraph,
    rdfa,
)

__all__ = ["SYNTAXES", "PageExtraction", "extract_document", "extract_payload", "parse_syntaxes"]

Extractor = Callable[[Document], list[Record]]

#: Syntax name -> extractor over a parsed document, in output order.
SYNTAXES: dict[str, Extractor] = {
    "json-ld": jsonld.extract,
    "microdata": microdata.extract,
    "rdfa": rdfa.extract,
    "opengraph": opengraph.extract,  # also yields the ``twitter`` records
    "dublincore": dublincore.extract,
    "microformats": microformats.extract,
    "data-block": jsondata.extract,
}


def parse_syntaxes(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """Validate a syntax selection (comma-separated string or iterable); ``None`` = all."""
    if value is None:
        return tuple(SYNTAXES)
    names = [v.strip() for v in (value.split(",") if isinstance(value, str) else value)]
    names = [n for n in names if n]
    unknown = [n for n in names if n not in SYNTAXES]
    if unknown:
        raise ValueError(f"unknown syntaxes {unknown}; known: {', '.join(SYNTAXES)}")
    return tuple(names)


@dataclass(slots=True)
class PageExtraction:
    """All records of one payload, and what was learned about it on the way."""

    payload_kind: str
    records: list[Record] = field(default_factory=list)
    encoding: str | None = None
    base_url: str | None = None

    @property
    def errors(self) -> list[Record]:
        return [r for r in self.records if r.kind == "error"]


def extract_document(doc: Document, syntaxes: Iterable[str] | None = None) -> list[Record]:
    """Run the selected extractors over one parsed document (page-level problems of the parse,
    such as a truncated body, come first as ``page`` error records)."""
    records: list[Record] = [
        error_record(
            source_url=doc.url,
            format="page",
            code=code,
            message=message,
            parser="structcrawl.document",
        )
        for code, message in doc.problems
    ]
    for name in parse_syntaxes(syntaxes) if syntaxes is not None else SYNTAXES:
        try:
            records.extend(SYNTAXES[name](doc))
        except Exception as exc:  # one syntax failing must not lose the others
            records.append(
                error_record(
                    source_url=doc.url,
                    format=name,
                    code="extractor-failed",
                    message=f"{type(exc).__name__}: {exc}",
                    parser=f"structcrawl.extract.{name}",
                )
            )
    return records


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16: its BOM starts the same way
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _json_codec(body: bytes, charset: str | None) -> str:
    """The codec for a JSON body: a byte order mark wins (as in browsers), then the declared
    charset (UTF-8 read with its BOM dropped), then UTF-8.

    >>> _json_codec(codecs.BOM_UTF16_LE + b"{}", "utf-8"), _json_codec(b"{}", "UTF-8")
    ('utf-16', 'utf-8-sig')
    """
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return codec
    if charset is None or charset.lower().replace("_", "-") in ("utf-8", "utf8"):
        return "utf-8-sig"
    return charset


def extract_payload(
    body: bytes,
    url: str,
    content_type: str | None = None,
    *,
    syntaxes: Iterable[str] | None = None,
    document: Document | None = None,
    limits: Limits | None = None,
) -> PageExtraction:
    """Classify ``body`` and extract every record it carries (or say why it carries none).

    ``document``, when the caller already parsed the page (the spider does, to find links),
    is used instead of parsing again (with the bounds it was parsed with). ``limits`` bound the
    work (:mod:`structcrawl.core.limits`; default :data:`~structcrawl.core.limits.DEFAULT_LIMITS`).
    """
    limits = limits or DEFAULT_LIMITS
    kind = classify(content_type, body)
    if kind not in EXTRACTABLE:
        mime, _ = split_content_type(content_type)
        return PageExtraction(
            payload_kind=kind,
            records=[
                error_record(
                    source_url=url,
                    format="page",
                    kind="skip",
                    code=f"payload-{kind}",
                    message=f"{kind} payload (Content-Type: {mime or 'none'}, {len(body)} bytes)"
                    " cannot carry structured records",
                    parser="structcrawl.payload",
                )
            ],
        )
    if kind == "json":
        return _json_payload(body, url, content_type, limits)
    doc = (
        document
        if document is not None
        else parse_html(body, url, content_type=content_type, limits=limits)
    )
    return PageExtraction(
        payload_kind=kind,
        records=extract_document(doc, syntaxes),
        encoding=doc.encoding,
        base_url=doc.base_url,
    )


def _json_payload(
    body: bytes, url: str, content_type: str | None, limits: Limits
) -> PageExtraction:
    """A JSON payload: its records, or the error record saying why it was not read."""
    _, charset = split_content_type(content_type)
    if len(body) > limits.max_body_bytes:
        return PageExtraction(
            payload_kind="json",
            records=[
                error_record(
                    source_url=url,
                    format="json",
                    code="json-too-large",
                    message=f"JSON body of {len(body):,} bytes is larger than "
                    f"{limits.max_body_bytes:,} (max_body_bytes): not parsed; raw holds "
                    "its beginning",
                    raw=raw_excerpt(body[:4096].decode("utf-8", "replace")),
                    parser=jsondata.PARSER,
                )
            ],
        )
    try:
        text = body.decode(_json_codec(body, charset))
    except (UnicodeDecodeError, LookupError) as exc:
        return PageExtraction(
            payload_kind="json",
            records=[
                error_record(
                    source_url=url,
                    format="json",
                    code="json-undecodable",
                    message=str(exc),
                    raw=body[:2048].decode("latin-1"),
                    parser=jsondata.PARSER,
                )
            ],
        )
    records = jsondata.extract_json_text(
        text, source_url=url, base_url=url, fmt="json", limits=limits
    )
    return PageExtraction(payload_kind="json", records=records, encoding=charset, base_url=url)
