"""The one record shape every extraction layer produces.

A :class:`Record` is an entity (or an error, or a skipped payload) found in one page::

    {source_url, format, type, id, properties, raw, source_element, provenance,
     context, kind, error, repairs}

* ``format`` names the layer (:data:`FORMATS`).
* ``type`` is a list of type names; schema.org IRIs are shortened to their local name
  (``http://schema.org/Product`` -> ``Product``), other vocabularies keep full IRIs.
* ``properties`` is a normalized view: nested entities are records again, repeated values
  are lists, single values are scalars (the JSON-LD compact convention).
* ``raw`` is the untouched block, attributes or triples the record was built from (kept on
  top-level records; nested records point into their parent's ``raw`` via ``source_element``).
* ``source_element`` locates the record: an XPath for markup, followed by ``#`` and a JSON
  path for values inside a JSON block (``/html/head/script[2]#$['@graph'][0]``).
* ``provenance`` carries the parser and its version, and per property a list of sightings
  ``{"path": ..., "raw": ...}``.
* ``kind`` is ``entity``, ``error`` (with ``error = {"code", "message"}``), ``skip``
  (a payload that cannot carry records, saying what arrived) or ``warning`` (something the
  page gets wrong that loses no data of a record, e.g. ``itemprop`` outside any item; also
  with ``error = {"code", "message"}``).
* property values follow one value model for every layer (:mod:`structcrawl.core.values`):
  references ``{"@id": iri}``, typed and language-tagged literals as value objects, plain
  literals as strings, repeated values as lists in document order.
* ``repairs`` lists labelled repairs applied to malformed input (the original stays in ``raw``).

Pure module: no Scrapy imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from structcrawl import __version__

__all__ = [
    "FORMATS",
    "SCHEMA_VERSION",
    "ErrorInfo",
    "FieldSource",
    "Provenance",
    "Record",
    "error_record",
    "page_outcome",
    "short_schema_name",
]

#: Layer names used in ``Record.format``.
FORMATS = (
    "json-ld",
    "microdata",
    "rdfa",
    "opengraph",
    "twitter",
    "dublincore",
    "microformats",
    "data-block",
    "json",
    "network-json",
    "selector",
    "page",
)

#: Version of the exported line shapes (the ``records`` feed's records, typed items): a new
#: major number when a field changes meaning or goes away, a new minor one when fields are
#: added. Written as ``schema_version`` on every exported line (CHANGELOG.md says what changed).
SCHEMA_VERSION = "1.0"

_SCHEMA_PREFIXES = (
    "http://schema.org/",
    "https://schema.org/",
    "http://www.schema.org/",
    "https://www.schema.org/",
    "schema:",
)


def short_schema_name(name: str) -> str:
    """Shorten a schema.org IRI or CURIE to its local name; leave anything else alone.

    >>> short_schema_name("http://schema.org/Product")
    'Product'
    >>> short_schema_name("https://schema.org/offers")
    'offers'
    >>> short_schema_name("http://ogp.me/ns#title")
    'http://ogp.me/ns#title'
    """
    if ":" not in name:  # already a local name (the common case)
        return name
    for prefix in _SCHEMA_PREFIXES:
        if name.startswith(prefix):
            local = name[len(prefix) :]
            if local and "/" not in local and "#" not in local:
                return local
    return name


@dataclass(slots=True)
class FieldSource:
    """Where one property value came from."""

    path: str
    raw: Any = None
    attribute: str | None = None  # the attribute read (Microdata), when not the text
    text: str | None = None  # the visible text beside a ``content`` attribute

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "raw": self.raw}
        if self.attribute is not None:
            out["attribute"] = self.attribute
        if self.text is not None:
            out["text"] = self.text
        return out


@dataclass(slots=True)
class ErrorInfo:
    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


@dataclass(slots=True)
class Provenance:
    parser: str
    parser_version: str = __version__
    fields: dict[str, list[FieldSource]] = field(default_factory=dict)

    def add(self, prop: str, path: str, raw: Any = None) -> None:
        self.fields.setdefault(prop, []).append(FieldSource(path, raw))

    def to_dict(self) -> dict[str, Any]:
        return {
            "parser": self.parser,
            "parser_version": self.parser_version,
            "fields": {k: [s.to_dict() for s in v] for k, v in self.fields.items()},
        }


@dataclass(slots=True, kw_only=True)
class Record:
    source_url: str
    format: str
    source_element: str
    provenance: Provenance
    type: list[str] = field(default_factory=list)
    id: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)
    raw: Any = None
    context: Any = None
    kind: str = "entity"
    error: ErrorInfo | None = None
    repairs: list[str] = field(default_factory=list)

    def add_value(self, prop: str, value: Any, path: str, raw: Any = None) -> None:
        """Add one value of ``prop``: a second value turns the property into a list."""
        if prop in self.properties:
            current = self.properties[prop]
            if isinstance(current, list):
                current.append(value)
            else:
                self.properties[prop] = [current, value]
        else:
            self.properties[prop] = value
        self.provenance.add(prop, path, None if isinstance(value, Record) else raw)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_url": self.source_url,
            "format": self.format,
            "kind": self.kind,
            "type": list(self.type),
            "id": self.id,
            "properties": {k: _plain(v) for k, v in self.properties.items()},
            "raw": self.raw,
            "context": self.context,
            "source_element": self.source_element,
            "provenance": self.provenance.to_dict(),
            "error": self.error.to_dict() if self.error else None,
            "repairs": list(self.repairs),
        }


def _plain(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def error_record(
    *,
    source_url: str,
    format: str,
    code: str,
    message: str,
    source_element: str = "",
    raw: Any = None,
    parser: str,
    kind: str = "error",
    type: list[str] | None = None,
) -> Record:
    """A record that says what went wrong (``kind='error'``) or what was skipped."""
    return Record(
        source_url=source_url,
        format=format,
        kind=kind,
        type=list(type or []),
        source_element=source_element,
        raw=raw,
        provenance=Provenance(parser=parser),
        error=ErrorInfo(code=code, message=message),
    )


def page_outcome(page: Mapping[str, Any]) -> str:
    """One outcome per page, from its records: ``records``, ``no-records``, ``skip:<code>``
    or ``error:<code>`` (the page ledger's and the quality report's).

    >>> page_outcome({"records": [{"kind": "skip", "error": {"code": "not-html"}}]})
    'skip:not-html'
    """
    records = page.get("records") or []
    if any(r.get("kind") == "entity" for r in records):
        return "records"
    for kind in ("error", "skip"):
        for r in records:
            if r.get("kind") == kind and r.get("error"):
                code = r["error"]["code"]
                return "no-records" if code == "no-records" else f"{kind}:{code}"
    return "no-records"
