"""Two syntaxes on one page saying different things about one entity.

Records of different layers (JSON-LD, Microdata, RDFa) are about the same entity when they
share an ``id`` (``@id``, ``itemid``, ``about``), or, without ids, when each layer has exactly
one top-level record of that schema.org type on the page (the usual product page that carries
its product twice). Compared, each only when both sides state it: ``name``/``headline``
(normalized: case, accents as written, punctuation and runs of spaces), the offer prices (as
decimals: they disagree when the two sets share no price), ``priceCurrency`` (of the
entity, or of its offers: the sets of codes, case-insensitive), ``availability`` (schema.org
short names), ``sku``, ``gtin*``, ``mpn``. Each difference is a
``syntax-disagreement`` conflict on both records, naming the other layer and its value.

>>> a = {"kind": "entity", "format": "json-ld", "type": ["Product"], "id": None,
...      "properties": {"name": "Kettle K1", "offers": {"type": ["Offer"],
...                     "properties": {"price": "29.00"}}}}
>>> b = {"kind": "entity", "format": "microdata", "type": ["Product"], "id": None,
...      "properties": {"name": "Kettle K1", "offers": {"type": ["Offer"],
...                     "properties": {"price": "24.00"}}}}
>>> [(c["field"], c["other_format"]) for c in syntax_conflicts([a, b])[0]]
[('offers.price', 'microdata')]
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from decimal import Decimal, InvalidOperation
from typing import Any

from structcrawl.core.records import short_schema_name

__all__ = ["SYNTAX_FORMATS", "syntax_conflicts"]

SYNTAX_FORMATS = ("json-ld", "microdata", "rdfa")
_NAMES = ("name", "headline")
_CODES = ("sku", "gtin", "gtin8", "gtin12", "gtin13", "gtin14", "mpn", "priceCurrency")
_NON_WORD = re.compile(r"[\W_]+")


def _scalar(value: Any) -> Any:
    if isinstance(value, dict):
        return value.get("@value", value.get("@id"))
    return value


def _texts(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [str(_scalar(v)).strip() for v in items if isinstance(_scalar(v), (str, int, float))]


def _norm(text: str) -> str:
    return " ".join(_NON_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).split())


def _offers(props: dict[str, Any]) -> list[dict[str, Any]]:
    offers = props.get("offers")
    items = offers if isinstance(offers, list) else [offers]
    return [
        o["properties"]
        for o in items
        if isinstance(o, dict) and isinstance(o.get("properties"), dict)
    ]


def _prices(props: dict[str, Any]) -> set[Decimal]:
    out = set()
    for offer in _offers(props):
        for name in ("price", "lowPrice", "highPrice"):
            for text in _texts(offer.get(name)):
                try:
                    number = Decimal(text.replace(",", "."))
                except InvalidOperation:
                    continue
                if number.is_finite():
                    out.add(number.normalize())
    return out


def _facts(record: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    """field -> (comparable form, value as shown) of what the record states."""
    props = record.get("properties") or {}
    facts: dict[str, tuple[str, Any]] = {}
    for name in _NAMES:
        texts = _texts(props.get(name))
        if texts:
            facts[name] = (_norm(texts[0]), texts[0])
    for name in _CODES:
        texts = _texts(props.get(name))
        if texts:
            facts[name] = (texts[0].casefold(), texts[0])
    prices = _prices(props)
    if prices:
        facts["offers.price"] = (",".join(sorted(map(str, prices))), sorted(map(str, prices)))
    for name, norm in (("availability", short_schema_name), ("priceCurrency", str.upper)):
        found = sorted({norm(t) for o in _offers(props) for t in _texts(o.get(name))})
        if found:
            facts[f"offers.{name}"] = (",".join(found), found)
    return facts


def _disagree(field: str, a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    if field == "offers.price":
        return not set(a[0].split(",")) & set(b[0].split(","))
    return a[0] != b[0]


def _groups(records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    by_id: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_type: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        if record.get("kind") != "entity" or record.get("format") not in SYNTAX_FORMATS:
            continue
        if isinstance(record.get("id"), str) and not record["id"].startswith("_:"):
            by_id[record["id"]].append(record)
            continue
        for t in record.get("type") or []:
            if isinstance(t, str):
                by_type[short_schema_name(t)][record["format"]].append(record)
    groups = [g for g in by_id.values() if len({r["format"] for r in g}) > 1]
    for layers in by_type.values():
        if len(layers) > 1 and all(len(rs) == 1 for rs in layers.values()):
            groups.append([rs[0] for rs in layers.values()])
    return groups


def syntax_conflicts(records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Per record of ``records`` (same order), its ``syntax-disagreement`` conflicts."""
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for group in _groups(records):
        facts = [_facts(r) for r in group]
        for i, mine in enumerate(facts):
            for j, theirs in enumerate(facts):
                if i == j or group[i]["format"] == group[j]["format"]:
                    continue
                for field in mine.keys() & theirs.keys():
                    if _disagree(field, mine[field], theirs[field]) and not any(
                        c["field"] == field and c["other_format"] == group[j]["format"]
                        for c in out[id(group[i])]
                    ):
                        out[id(group[i])].append(
                            {
                                "field": field,
                                "record_value": mine[field][1],
                                "other_value": theirs[field][1],
                                "other_format": group[j]["format"],
                                "code": "syntax-disagreement",
                                "message": f"{field}: {group[i]['format']} says "
                                f"{mine[field][1]!r}, {group[j]['format']} says "
                                f"{theirs[field][1]!r}",
                            }
                        )
    return [out.get(id(r), []) for r in records]
