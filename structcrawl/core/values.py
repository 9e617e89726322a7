"""The value model of ``Record.properties``, one for every layer, and the helpers that read it.

A property value is one of (the record format, ``docs/records.md``, says more):

* a **reference** to another node: ``{"@id": iri}`` (blank nodes as ``"_:label"``);
* a **typed literal**: ``{"@value": "10", "@type": "http://www.w3.org/2001/XMLSchema#integer"}``;
* a **language-tagged literal**: ``{"@value": "Bonjour", "@language": "fr"}``;
* a **plain literal**: a string (JSON-LD keeps JSON numbers and booleans as they are);
* a **nested record** (``Record`` in Python, its dict form after ``to_dict()``);
* a **list** of the above when the property has several values, in document order.

Properties whose schema.org range includes ``URL`` (``url``, ``image``, ``sameAs``...) keep
their IRIs as plain strings; the graph export types them.

These helpers are pure and import nothing: normalization, validation and entity resolution
read values through them instead of testing shapes themselves.

>>> ref_id({"@id": "https://a.example/#x"}), ref_id("https://a.example/")
('https://a.example/#x', None)
>>> literal({"@value": "10", "@type": XSD + "integer"}), literal("plain"), literal(3)
('10', 'plain', 3)
>>> datatype({"@value": "10", "@type": XSD + "integer"})
'http://www.w3.org/2001/XMLSchema#integer'
>>> language({"@value": "hi", "@language": "en"})
'en'
>>> text_of({"@id": "https://a.example/"}), text_of({"@value": 1.5}), text_of({"type": []})
('https://a.example/', '1.5', None)
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "RDF",
    "XSD",
    "datatype",
    "is_record",
    "is_ref",
    "is_value_object",
    "language",
    "literal",
    "make_literal",
    "make_ref",
    "ref_id",
    "text_of",
    "values_of",
]

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def make_ref(iri: str) -> dict[str, str]:
    """A reference value: ``{"@id": iri}``."""
    return {"@id": iri}


def make_literal(value: Any, datatype: str | None = None, language: str | None = None) -> Any:
    """A literal value: a value object when it has a datatype or a language, else ``value``.

    >>> make_literal("x"), make_literal("x", language="en"), make_literal("1", XSD + "byte")
    ('x', {'@value': 'x', '@language': 'en'}, {'@value': '1', '@type': 'http://www.w3.org/2001/XMLSchema#byte'})
    """
    if language:
        return {"@value": value, "@language": language}
    if datatype:
        return {"@value": value, "@type": datatype}
    return value


def is_ref(value: Any) -> bool:
    """True for a reference ``{"@id": str}`` (and nothing more in the dict)."""
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get("@id"), str)


def ref_id(value: Any) -> str | None:
    """The IRI (or ``_:`` blank node label) a reference points at; ``None`` for any other value."""
    return value["@id"] if is_ref(value) else None


def is_value_object(value: Any) -> bool:
    """True for a typed or language-tagged literal (``{"@value": ...}``)."""
    return isinstance(value, dict) and "@value" in value


def is_record(value: Any) -> bool:
    """True for a nested record in dict form (``Record.to_dict()``)."""
    return isinstance(value, dict) and "properties" in value and "type" in value


def literal(value: Any) -> Any:
    """The lexical value of a literal (plain, typed or language-tagged); ``None`` for a
    reference, a nested record or a list."""
    if isinstance(value, dict):
        return value.get("@value") if "@value" in value else None
    if isinstance(value, list):
        return None
    return value


def datatype(value: Any) -> str | None:
    """The datatype IRI of a typed literal, else ``None``."""
    if is_value_object(value) and isinstance(value.get("@type"), str):
        return str(value["@type"])
    return None


def language(value: Any) -> str | None:
    """The language tag of a language-tagged literal, else ``None``."""
    if is_value_object(value) and isinstance(value.get("@language"), str):
        return str(value["@language"])
    return None


def text_of(value: Any) -> str | None:
    """A string for any literal or reference (its lexical value or its IRI); ``None`` for a
    nested record, a list or ``None``. Booleans read ``true``/``false`` as in JSON."""
    if isinstance(value, dict):
        value = value["@id"] if is_ref(value) else literal(value)
    if value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def values_of(value: Any) -> list[Any]:
    """A property's values as a list (a single value is a list of one; ``None`` is empty)."""
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]
