"""The bundled schema.org JSON-LD context (``structcrawl/vocab/schemaorg-context.jsonld``).

Read once through :mod:`importlib.resources`; never fetched. It names the schema.org
properties whose range includes ``URL``: their values stay plain strings in records'
``properties`` (the value model, :mod:`structcrawl.core.values`), and JSON-LD expansion turns
them into IRIs. So do the properties whose every range is a datatype (``telephone``, ``name``:
a ``tel:`` link written for them is text), listed in ``schemaorg-literal-properties.json``.

>>> "image" in url_properties(), "author" in url_properties()
(True, False)
>>> iri_as_string("telephone"), iri_as_string("url"), iri_as_string("brand")
(True, True, False)
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = [
    "SCHEMA_CONTEXT_URLS",
    "iri_as_string",
    "literal_properties",
    "schema_context",
    "url_properties",
]

#: Context references that mean schema.org's published context.
SCHEMA_CONTEXT_URLS = frozenset(
    f"{scheme}://{www}schema.org{slash}{doc}"
    for scheme in ("http", "https")
    for www in ("", "www.")
    for slash in ("", "/")
    for doc in ("", "docs/jsonldcontext.json", "docs/jsonldcontext.jsonld")
    if not (doc and not slash)
)


@lru_cache(maxsize=1)
def schema_context() -> dict[str, Any]:
    """The context document (``{"@context": {...}}``); treat it as read-only."""
    blob = resources.files("structcrawl").joinpath("vocab", "schemaorg-context.jsonld")
    return dict(json.loads(blob.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def url_properties() -> frozenset[str]:
    """schema.org property names whose range includes ``URL``."""
    terms = schema_context()["@context"]
    return frozenset(k for k, v in terms.items() if isinstance(v, dict) and v.get("@type") == "@id")


@lru_cache(maxsize=1)
def literal_properties() -> frozenset[str]:
    """schema.org property names whose every range is a datatype (``Text``, ``Number``...)."""
    blob = resources.files("structcrawl").joinpath("vocab", "schemaorg-literal-properties.json")
    return frozenset(json.loads(blob.read_text(encoding="utf-8")))


def iri_as_string(prop: str) -> bool:
    """Whether an IRI value of ``prop`` stays a plain string in records (its schema.org range
    is ``URL``, or only datatypes) rather than a reference ``{"@id": iri}``."""
    return prop in url_properties() or prop in literal_properties()
