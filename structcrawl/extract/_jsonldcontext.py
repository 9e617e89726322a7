"""Just enough of JSON-LD context processing to name terms and types correctly.

Inline contexts are honoured: ``@vocab``, term definitions (string or ``{"@id": ...}``) and
prefixes (``"shop": "https://shop.example/vocab#"`` makes ``shop:bin`` a full IRI). A remote
context is never fetched: schema.org's is known (terms are schema.org names), any other leaves
terms as written. Expanded schema.org IRIs are shortened back to local names, so ``name``,
``schema:name`` and ``http://schema.org/name`` all read ``name``.

>>> Terms.of({"@vocab": "https://v.example/#", "ex": "https://ex.example/"}).term("ex:a")
'https://ex.example/a'
>>> Terms.of({"@vocab": "https://v.example/#"}).term("bin")
'https://v.example/#bin'
>>> Terms.of("https://schema.org").term("schema:name")
'name'
"""

from __future__ import annotations

from typing import Any

from structcrawl.core.records import short_schema_name

__all__ = ["Terms"]

_SCHEMA_CONTEXTS = frozenset(
    {
        "http://schema.org",
        "https://schema.org",
        "http://schema.org/",
        "https://schema.org/",
        "http://www.schema.org",
        "https://www.schema.org",
        "http://www.schema.org/",
        "https://www.schema.org/",
    }
)


#: Prefixes read as their usual namespaces when a context does not define them (datatypes
#: such as ``xsd:integer`` are written so without declaring ``xsd``).
_WELL_KNOWN = {
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
}


def _flatten(context: Any) -> list[Any]:
    if not isinstance(context, list):
        return [context]
    return [c for item in context for c in _flatten(item)]


class Terms:
    """Term and type naming under one (possibly merged) context."""

    __slots__ = ("vocab", "defs", "simple")

    def __init__(self, vocab: str | None, defs: dict[str, str]):
        self.vocab = vocab
        self.defs = defs
        # schema.org-only (or no) context: names are what they say, after shortening
        self.simple = not defs and vocab in (None, "http://schema.org/")

    @classmethod
    def of(cls, context: Any, parent: Terms | None = None) -> Terms:
        vocab = parent.vocab if parent else None
        defs = dict(parent.defs) if parent else {}
        for ctx in _flatten(context):
            if isinstance(ctx, str):
                if ctx.rstrip("/") + "/" in _SCHEMA_CONTEXTS or ctx in _SCHEMA_CONTEXTS:
                    vocab = "http://schema.org/"
            elif isinstance(ctx, dict):
                if isinstance(ctx.get("@vocab"), str):
                    vocab = ctx["@vocab"]
                for key, value in ctx.items():
                    if key.startswith("@"):
                        continue
                    iri = value.get("@id") if isinstance(value, dict) else value
                    if isinstance(iri, str):
                        defs[key] = iri
            elif ctx is None:
                vocab, defs = None, {}
        return cls(vocab, defs)

    def _expand(self, key: str) -> str:
        if key in self.defs:
            iri = self.defs[key]
            prefix, colon, suffix = iri.partition(":")
            if colon and prefix in self.defs and prefix != key:
                return self.defs[prefix] + suffix
            return iri
        prefix, colon, suffix = key.partition(":")
        if colon:
            if prefix in self.defs and not suffix.startswith("//"):
                return self.defs[prefix] + suffix
            if prefix in _WELL_KNOWN:
                return _WELL_KNOWN[prefix] + suffix
            return key
        if self.vocab and self.vocab != "http://schema.org/":
            return self.vocab + key
        return key

    def term(self, key: str) -> str:
        """The name a property key is reported under."""
        if self.simple and not key.startswith(("xsd:", "rdf:")):
            return short_schema_name(key)
        return short_schema_name(self._expand(key))

    def types(self, value: Any) -> list[str]:
        values = value if isinstance(value, list) else [value]
        return [self.term(v) for v in values if isinstance(v, str)]
