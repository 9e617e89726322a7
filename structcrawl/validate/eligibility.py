"""Rich-result eligibility of a record, per Google Search feature, from rules kept as data.

The rules are ``structcrawl/schemas/eligibility.toml`` (one ``[[feature]]`` per feature, each
naming the Google documentation page it follows: Product snippet, Merchant listing, Article,
Breadcrumb, Event, Recipe, JobPosting, Review snippet, Organization, Local business, FAQ).
:func:`eligibility` gives, for every feature whose types the record has (subtypes included),
one verdict:

* ``not eligible``: a required property is missing (``missing`` lists them; ``a|b`` means one
  of them), or the record's validation found a value Google rejects (``blocked_by``);
* ``eligible with warnings``: recommended properties are missing (``recommended_missing``) or
  the validation found something Google warns about (``warned_by``);
* ``eligible``.

>>> record = {"kind": "entity", "type": ["Product"], "properties": {
...     "name": "K1", "offers": {"type": ["Offer"], "properties": {"price": "29.00"}}},
...     "validation": {"errors": [], "warnings": []}}
>>> [(v["feature"], v["status"]) for v in eligibility(record)]
[('product-snippet', 'eligible with warnings'), ('merchant-listing', 'not eligible')]
>>> next(v for v in eligibility(record) if v["feature"] == "merchant-listing")["verdict"]
'not eligible: image, offers.priceCurrency|offers.priceSpecification'
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from structcrawl.core.records import short_schema_name
from structcrawl.validate.vocabulary import Vocabulary, is_schema_term

__all__ = ["Feature", "eligibility", "features"]

ELIGIBLE = "eligible"
WARNINGS = "eligible with warnings"
NOT_ELIGIBLE = "not eligible"


@dataclass(frozen=True, slots=True)
class Feature:
    """One rich-result feature's rule (see the rules file for the fields)."""

    id: str
    name: str
    source: str
    types: frozenset[str]
    required: tuple[str, ...]
    recommended: tuple[str, ...] = ()
    required_if: tuple[tuple[str, tuple[str, ...]], ...] = ()
    when: tuple[str, ...] = ()
    top_level: bool = False
    blocked_by: frozenset[str] = frozenset()
    warned_by: frozenset[str] = frozenset()
    note: str = ""

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Feature:
        return cls(
            id=data["id"],
            name=data["name"],
            source=data["source"],
            types=frozenset(data["types"]),
            required=tuple(data.get("required", ())),
            recommended=tuple(data.get("recommended", ())),
            required_if=tuple((k, tuple(v)) for k, v in data.get("required_if", {}).items()),
            when=tuple(data.get("when", ())),
            top_level=bool(data.get("top_level", False)),
            blocked_by=frozenset(data.get("blocked_by", ())),
            warned_by=frozenset(data.get("warned_by", ())),
            note=str(data.get("note", "")),
        )


@lru_cache(maxsize=1)
def features() -> tuple[Feature, ...]:
    """The packaged rules, read once."""
    blob = resources.files("structcrawl").joinpath("schemas", "eligibility.toml")
    data = tomllib.loads(blob.read_text(encoding="utf-8"))
    return tuple(Feature.from_data(f) for f in data["feature"])


def _present(value: Any) -> bool:
    return value not in (None, "", [], {})


def _has(props: Any, path: list[str]) -> bool:
    """Whether ``path`` is present under ``props`` (every list item must have the rest; a
    reference, which points elsewhere, counts as having it)."""
    if not path:
        return True
    if not isinstance(props, dict):
        return False
    value = props.get(path[0])
    if not _present(value):
        return False
    items = value if isinstance(value, list) else [value]
    rest = path[1:]
    if not rest:
        return True
    for item in items:
        if isinstance(item, dict) and "@id" in item and "properties" not in item:
            continue
        nested = item.get("properties") if isinstance(item, dict) else None
        if not _has(nested, rest):
            return False
    return True


def _satisfied(props: dict[str, Any], alternatives: str) -> bool:
    return any(_has(props, option.split(".")) for option in alternatives.split("|"))


def _codes(record: dict[str, Any]) -> set[str]:
    validation = record.get("validation") or {}
    found = {i.get("code") for i in validation.get("errors", []) + validation.get("warnings", [])}
    found |= {c.get("code") for c in record.get("conflicts") or []}
    return {c for c in found if isinstance(c, str)}


def _types(record: dict[str, Any], vocab: Vocabulary) -> set[str]:
    types = [t for t in record.get("type") or [] if isinstance(t, str) and is_schema_term(t)]
    return {a for t in types for a in vocab.ancestors(short_schema_name(t))}


def verdict(feature: Feature, record: dict[str, Any]) -> dict[str, Any]:
    """One feature's verdict on one record (that the feature applies to)."""
    props = record.get("properties") or {}
    missing = [p for p in feature.required if not _satisfied(props, p)]
    for present, paths in feature.required_if:
        if _satisfied(props, present):
            missing += [p for p in paths if not _satisfied(props, p) and p not in missing]
    codes = _codes(record)
    blocked = sorted(codes & feature.blocked_by)
    weak = [p for p in feature.recommended if not _satisfied(props, p)]
    warned = sorted(codes & feature.warned_by)
    if missing or blocked:
        status = NOT_ELIGIBLE
        said = ", ".join(missing + [f"a value Google rejects ({c})" for c in blocked])
        text = f"{NOT_ELIGIBLE}: {said}"
    elif weak or warned:
        status = text = WARNINGS
    else:
        status = text = ELIGIBLE
    out: dict[str, Any] = {
        "feature": feature.id,
        "name": feature.name,
        "status": status,
        "verdict": text,
        "missing": missing,
        "blocked_by": blocked,
        "recommended_missing": weak,
        "warned_by": warned,
        "source": feature.source,
    }
    if feature.note:
        out["note"] = feature.note
    return out


def eligibility(
    record: dict[str, Any], nested: bool = False, vocab: Vocabulary | None = None
) -> list[dict[str, Any]]:
    """The verdicts of every feature that applies to ``record`` (``[]`` for records that are
    not schema.org entities, or were not validated as such). ``nested``: the record sits
    inside another (features for top-level items only do not apply)."""
    if record.get("kind", "entity") != "entity":
        return []
    if "skipped" in (record.get("validation") or {}):
        return []
    vocab = vocab or Vocabulary.default()
    types = _types(record, vocab)
    props = record.get("properties") or {}
    out = []
    for feature in features():
        if not types & feature.types or (feature.top_level and nested):
            continue
        if feature.when and not any(_satisfied(props, p) for p in feature.when):
            continue
        out.append(verdict(feature, record))
    return out
