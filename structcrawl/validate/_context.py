"""Is a JSON-LD block schema.org data at all? Its ``@context`` says.

A block without ``@context`` is not schema.org data (nor JSON-LD of any vocabulary: its keys
are plain strings), unless it writes schema.org IRIs out (``"@type":
"https://schema.org/Product"``). A block whose remote context is not schema.org's (a typo such
as ``https://shema.org``, or another vocabulary's context, which structcrawl never fetches)
uses terms structcrawl cannot expand. Both are reported once per block, as warnings of the
page; validation then leaves the block's records unchecked (not schema.org), saying why.

>>> context_problem({"@type": "Product", "name": "K"})[0]
'json-ld-no-context'
>>> context_problem({"@type": "https://schema.org/Product"}) is None
True
>>> context_problem({"@context": "https://shema.org", "@type": "Product"})[0]
'json-ld-unknown-context'
>>> context_problem({"@context": {"@vocab": "https://schema.org/"}, "@type": "Product"}) is None
True
>>> context_problem({"@context": "https://schema.org.example/", "@type": "Product"})[0]
'json-ld-unknown-context'
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from structcrawl.core.records import short_schema_name

__all__ = ["NO_CONTEXT", "UNKNOWN_CONTEXT", "context_problem", "is_schema_org"]

NO_CONTEXT = "json-ld-no-context"
UNKNOWN_CONTEXT = "json-ld-unknown-context"


def _nodes(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value]
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


_SCHEMA_HOSTS = frozenset({"schema.org", "www.schema.org"})


def is_schema_org(iri: Any) -> bool:
    """Whether an IRI (or a bare ``schema.org/...``) is on schema.org's own host.

    >>> is_schema_org("https://schema.org/"), is_schema_org("http://www.schema.org")
    (True, True)
    >>> is_schema_org("https://schema.org.example.com/"), is_schema_org("https://myschema.org")
    (False, False)
    """
    if not isinstance(iri, str) or not iri.strip():
        return False
    text = iri.strip()
    parts = urlsplit(text if "//" in text else f"//{text}")
    try:
        host = (parts.hostname or "").rstrip(".")
    except ValueError:
        return False
    return host in _SCHEMA_HOSTS


def _names_schema(context: Any) -> bool | None:
    """True when the context is (or includes) schema.org's, False when it names only other
    remote contexts, None when it is inline only (its own term definitions)."""
    items = context if isinstance(context, list) else [context]
    remote = False
    for item in items:
        if isinstance(item, str):
            if is_schema_org(item):
                return True
            remote = True
        elif isinstance(item, dict):
            if is_schema_org(item.get("@vocab")):
                return True
            if any(is_schema_org(v) for v in item.values()):
                return True
    return False if remote else None


def _schema_iri_types(node: dict[str, Any]) -> bool:
    types = node.get("@type")
    types = types if isinstance(types, list) else [types]
    named = [t for t in types if isinstance(t, str)]
    return bool(named) and all(short_schema_name(t) != t for t in named)


def context_problem(value: Any) -> tuple[str, str] | None:
    """``(code, message)`` when the block's top-level nodes are not schema.org data by their
    ``@context``; None when they are (or carry an inline context of their own)."""
    for node in _nodes(value):
        context = node.get("@context")
        if context is None:
            graph = node.get("@graph")
            if isinstance(graph, list) and graph and all(map(_schema_iri_types, _nodes(graph))):
                continue
            if _schema_iri_types(node) or not ("@type" in node or "@graph" in node):
                continue
            return (
                NO_CONTEXT,
                "this JSON-LD has no @context, so its terms belong to no vocabulary: it is "
                "not schema.org data and is not validated as such",
            )
        if _names_schema(context) is False:
            shown = (
                context if isinstance(context, str) else [c for c in context if isinstance(c, str)]
            )
            return (
                UNKNOWN_CONTEXT,
                f"@context {shown!r} is not schema.org's (structcrawl never fetches contexts): "
                "its terms are not read as schema.org and not validated",
            )
    return None
