"""Derive ``schemaorg-context.jsonld``, the schema.org JSON-LD context bundled in the package.

Not imported at run time (``structcrawl.extract._schemacontext`` reads the file). The context
is what JSON-LD expansion needs of ``"@context": "https://schema.org"`` without the network:
``@vocab`` is ``http://schema.org/``, ``schema:`` and ``xsd:`` are prefixes, ``id``/``type``
alias ``@id``/``@type`` (as schema.org's published context does), and every property whose
range includes ``URL`` is coerced to an IRI (``"@type": "@id"``), so ``"image": "a.jpg"``
expands to a node reference resolved against the document base. Beside it,
``schemaorg-literal-properties.json`` lists the properties whose every range is a datatype
(``Text``, ``Number``, ``Date``...). Both are derived from the shipped vocabulary
(``schemaorg.json.gz``, see ``README.md``)::

    .venv/bin/python structcrawl/vocab/context.py
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["derive_context", "literal_properties", "main"]

HERE = Path(__file__).parent
OUT = HERE / "schemaorg-context.jsonld"
LITERALS = HERE / "schemaorg-literal-properties.json"
_DATATYPES = frozenset(
    (
        "Boolean",
        "Date",
        "DateTime",
        "Number",
        "Integer",
        "Float",
        "Text",
        "Time",
        "CssSelectorType",
        "XPathType",
        "PronounceableText",
    )
)


def literal_properties(vocab: dict[str, Any]) -> list[str]:
    """Properties whose every range is a datatype (``Text``, ``Number``, ``Date``...) and not
    ``URL``: a URL written for them (``<a itemprop="telephone" href="tel:...">``) is text."""
    return sorted(
        name
        for name, (_, ranges) in vocab["properties"].items()
        if ranges and all(r in _DATATYPES for r in ranges)
    )


def derive_context(vocab: dict[str, Any]) -> dict[str, Any]:
    """The context document for a vocabulary in the ``schemaorg.json.gz`` shape."""
    terms: dict[str, Any] = {
        "@vocab": "http://schema.org/",
        "schema": "http://schema.org/",
        "xsd": "http://www.w3.org/2001/XMLSchema#",
        "id": "@id",
        "type": "@type",
    }
    for name in sorted(vocab["properties"]):
        ranges = vocab["properties"][name][1]
        if "URL" in ranges:
            terms[name] = {"@id": f"schema:{name}", "@type": "@id"}
    return {"@context": terms}


def main() -> int:
    vocab = json.loads(gzip.decompress((HERE / "schemaorg.json.gz").read_bytes()))
    text = json.dumps(derive_context(vocab), indent=1, sort_keys=True) + "\n"
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(text):,} characters)")
    literals = json.dumps(literal_properties(vocab), indent=0) + "\n"
    LITERALS.write_text(literals, encoding="utf-8")
    print(f"wrote {LITERALS} ({len(literals):,} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
