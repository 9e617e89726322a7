"""Differential comparison with extruct over the fixture corpus (tests/test_extruct_differential.py).

For each fixture page, the typed top-level entities each tool finds per syntax (JSON-LD,
Microdata, RDFa, Open Graph, microformats), as ``"syntax: Type1 Type2"`` strings. extruct runs
with ``uniform=True`` and ``errors="strict"`` (so a failure shows as the exception it raises);
untyped items are left out on both sides (extruct's uniform Dublin Core and RDFa subject nodes
carry no type and have no counterpart to compare).
"""

from __future__ import annotations

import logging
import warnings
from collections import Counter
from typing import Any

from tests._fixtures import Case

#: structcrawl layer -> extruct syntax
SYNTAXES = {
    "json-ld": "json-ld",
    "microdata": "microdata",
    "rdfa": "rdfa",
    "opengraph": "opengraph",
    "microformats": "microformat",
}
_PREFIXES = ("http://schema.org/", "https://schema.org/", "http://ogp.me/ns#")


def _short(name: str) -> str:
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def _key(layer: str, types: Any) -> str:
    names = [types] if isinstance(types, str) else list(types)
    return f"{layer}: {' '.join(sorted(_short(str(t)) for t in names))}"


def structcrawl_entities(case: Case) -> Counter[str]:
    return Counter(
        _key(r["format"], r["type"])
        for r in case.extract()
        if r["kind"] == "entity" and r["format"] in SYNTAXES and r["type"]
    )


def extruct_entities(case: Case) -> Counter[str] | str:
    """extruct's entities, or ``"raises <Exception>"`` when it fails on the page."""
    import extruct

    back = {v: k for k, v in SYNTAXES.items()}
    logging.disable(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = extruct.extract(
                case.page.read_bytes(),
                base_url=case.meta["url"],
                syntaxes=list(SYNTAXES.values()),
                uniform=True,
                errors="strict",
            )
    except Exception as exc:  # the disagreement is that extruct fails
        return f"raises {type(exc).__name__}"
    finally:
        logging.disable(logging.NOTSET)
    found: Counter[str] = Counter()
    for syntax, items in data.items():
        for item in items:
            types = item.get("@type") if isinstance(item, dict) else None
            if types:
                found[_key(back[syntax], types)] += 1
    return found


def difference(case: Case) -> dict[str, Any] | None:
    """What the two tools disagree on for ``case`` (``None``: they agree)."""
    ours = structcrawl_entities(case)
    theirs = extruct_entities(case)
    if isinstance(theirs, str):
        return {"extruct": theirs}
    if ours == theirs:
        return None
    return {
        "only_structcrawl": sorted((ours - theirs).elements()),
        "only_extruct": sorted((theirs - ours).elements()),
    }
