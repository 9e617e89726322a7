"""Entity fingerprints: stable hashes of an entity's normalized properties (pure).

A merged entity is read as dotted fields (``name``, ``offers.price``, ``brand.@id``, and the
entity's own ``@type`` and ``@id``), each value is put in a canonical form and hashed, and the
entity's digest is the hash of all its field hashes. Two runs that saw the same values give
the same digest whatever the order of keys, sources or layers; a different value in one field
changes that field's hash only, so a change can name its fields.

* Nested objects are entered (``offers.price``); a list of objects is spread over its fields,
  each field holding the list of the elements' values (``offers.price`` = ``["9.99",
  "12.00"]``), so a changed price in the second offer is named ``offers.price``.
* Canonical values compare as the entity merge compares them
  (:mod:`structcrawl.entities.merge`), so the order in which pages were crawled never shows
  as a change: strings with whitespace collapsed and case folded, numbers by value whether
  written as JSON numbers or strings (``4.2`` = ``"4.20"``), object keys sorted, type lists
  as sets; list order otherwise counts.
* Where the entity's sources disagree (its ``conflicts``), the field's value is the set of
  values the sources gave, not the one chosen (which, between layers of equal precedence,
  depends on which page came first).
* Only ``properties``, ``type`` and ``id`` are read: retrieval times, sources, layers,
  conflicts and validation results never change a fingerprint. Fields matching an ``ignore``
  pattern (``fnmatch`` over the dotted name: ``offers.priceValidUntil``, ``*.dateModified``)
  are left out.

>>> fp = fingerprint({"key": "id:x", "type": ["Product"], "properties": {
...     "name": " Trail  Runner ", "offers": {"@type": ["Offer"], "price": "129.99"}}})
>>> sorted(fp.fields)
['@type', 'name', 'offers.@type', 'offers.price']
>>> fp.digest == fingerprint({"key": "id:x", "type": ["Product"], "properties": {
...     "offers": {"price": "129.99", "@type": ["Offer"]}, "name": "Trail Runner"}}).digest
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fnmatch import fnmatchcase
from typing import Any

from structcrawl.core.jsontext import sorted_compact

__all__ = [
    "FINGERPRINT_VERSION",
    "EntityFingerprint",
    "canonical",
    "field_values",
    "fingerprint",
    "is_ignored",
    "value_hash",
]

#: Bumped when the canonical form changes; stored with every fingerprint.
FINGERPRINT_VERSION = 1
#: Pages remembered per entity (to tell a vanished entity from one whose page failed).
MAX_PAGES = 20
_MAX_DEPTH = 6
_NUMBER = "\x00n:"


def _segment(name: str) -> str:
    return str(name).replace(".", "\\.")


def _number(text: str) -> str | None:
    """The canonical form of a finite decimal number written as text, else None."""
    try:
        number = Decimal(text)
    except (InvalidOperation, ValueError):
        return None
    return _NUMBER + format(number.normalize(), "f") if number.is_finite() else None


def canonical(value: Any, *, unordered: bool = False) -> Any:
    """The comparable form of a value (see the module doc).

    >>> canonical({"b": " X  y ", "a": [2.0, "2.00", True, None]})
    {'a': ['\\x00n:2', '\\x00n:2', True, None], 'b': 'x y'}
    >>> canonical(["Offer", "AggregateOffer"], unordered=True)
    ['aggregateoffer', 'offer']
    """
    if isinstance(value, str):
        text = " ".join(value.split())
        return _number(text) or text.casefold()
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return _number(repr(value)) or repr(value)
    if isinstance(value, Mapping):
        return {str(k): canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        items = [canonical(v) for v in value]
        if unordered:
            items.sort(key=sorted_compact)  # the same order as the spaced form sorts in
        return items
    return repr(value)


def value_hash(value: Any, *, unordered: bool = False) -> str:
    """A short (64-bit, hex) hash of the canonical form of ``value``.

    >>> value_hash(4) == value_hash(4.0) == value_hash("4.00")
    True
    >>> value_hash("a b") == value_hash(" A\\nb"), value_hash("a") == value_hash("b")
    (True, False)
    """
    if value is None:
        text = "z"
    elif isinstance(value, bool):
        text = "t" if value else "f"
    elif isinstance(value, (str, int, float)):
        text = "s" + canonical(value)  # a number and its string spelling agree
    else:
        text = "j" + sorted_compact(canonical(value, unordered=unordered))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def _is_type_field(name: str) -> bool:
    return name == "@type" or name.endswith(".@type")


def field_values(properties: Mapping[str, Any], prefix: str = "", depth: int = 0) -> dict[str, Any]:
    """Merged properties as dotted fields (nested objects entered, lists of objects spread).

    >>> field_values({"name": "X", "offers": [{"price": "1"}, {"price": "2", "sku": "b"}]})
    {'name': 'X', 'offers.price': ['1', '2'], 'offers.sku': [None, 'b']}
    >>> field_values({"brand": {"@id": "https://b.example/#b"}, "tags": ["a", "b"]})
    {'brand.@id': 'https://b.example/#b', 'tags': ['a', 'b']}
    """
    out: dict[str, Any] = {}
    for key, value in properties.items():
        name = prefix + _segment(key)
        if isinstance(value, Mapping) and value and depth < _MAX_DEPTH:
            out.update(field_values(value, name + ".", depth + 1))
        elif (
            isinstance(value, list)
            and value
            and depth < _MAX_DEPTH
            and all(isinstance(v, Mapping) for v in value)
        ):
            spread = [field_values(v, name + ".", depth + 1) for v in value]
            names = list(dict.fromkeys(n for element in spread for n in element))
            for n in names:
                out[n] = [element.get(n) for element in spread]
        else:
            out[name] = value
    return out


def is_ignored(name: str, patterns: Iterable[str]) -> bool:
    """Whether a dotted field matches one of the ``fnmatch`` patterns (case-sensitive).

    >>> is_ignored("offers.priceValidUntil", ["*.priceValidUntil"]), is_ignored("name", ["n*e"])
    (True, True)
    >>> is_ignored("offers.price", ["offers"])
    False
    """
    return any(fnmatchcase(name, p) for p in patterns)


def _disputed(conflicts: Any) -> dict[str, list[Any]]:
    """Per conflicting field, every value its sources gave (``conflicts`` of an entity item).

    >>> _disputed([{"field": "name", "values": [{"value": "B"}, {"value": "A"}]}, "junk"])
    {'name': ['B', 'A']}
    """
    out: dict[str, list[Any]] = {}
    for conflict in conflicts if isinstance(conflicts, list) else []:
        if not isinstance(conflict, Mapping) or not isinstance(conflict.get("field"), str):
            continue
        values = conflict.get("values")
        if isinstance(values, list):
            out[conflict["field"]] = [v.get("value") for v in values if isinstance(v, Mapping)]
    return out


def _digest(fields: Mapping[str, str]) -> str:
    text = sorted_compact(sorted(fields.items()))
    return f"v{FINGERPRINT_VERSION}:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True, slots=True, kw_only=True)
class EntityFingerprint:
    """What a run remembers of one entity.

    ``fields`` maps dotted field names to value hashes and ``digest`` hashes them all;
    ``seen`` is when the entity was last seen (its latest retrieval time), ``first_seen`` when
    a run saw it first, ``pages`` a few pages it was seen on, and ``entity`` its last known
    ``{"id", "type", "properties"}`` (what a ``gone`` entity item carries).
    """

    key: str
    digest: str
    fields: dict[str, str] = field(default_factory=dict)
    seen: str | None = None
    first_seen: str | None = None
    pages: tuple[str, ...] = ()
    entity: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "digest": self.digest,
            "fields": dict(self.fields),
            "seen": self.seen,
            "first_seen": self.first_seen,
            "pages": list(self.pages),
            "entity": self.entity,
        }

    @classmethod
    def from_dict(cls, data: Any) -> EntityFingerprint | None:
        """Read a stored fingerprint; anything malformed gives ``None`` (never raises).

        >>> EntityFingerprint.from_dict({"key": "k", "digest": "d"}).key
        'k'
        >>> EntityFingerprint.from_dict({"key": 3}) is None, EntityFingerprint.from_dict("x")
        (True, None)
        """
        if not isinstance(data, Mapping):
            return None
        key, digest = data.get("key"), data.get("digest")
        fields = data.get("fields") or {}
        pages = data.get("pages") or []
        entity = data.get("entity") or {}
        if not (isinstance(key, str) and isinstance(digest, str) and isinstance(fields, Mapping)):
            return None
        if not isinstance(pages, list) or not isinstance(entity, Mapping):
            return None
        seen, first = data.get("seen"), data.get("first_seen")
        return cls(
            key=key,
            digest=digest,
            fields={str(k): str(v) for k, v in fields.items()},
            seen=seen if isinstance(seen, str) else None,
            first_seen=first if isinstance(first, str) else None,
            pages=tuple(str(p) for p in pages),
            entity=dict(entity),
        )


def fingerprint(
    entity: Mapping[str, Any],
    *,
    ignore: Sequence[str] = (),
    seen: str | None = None,
    pages: Iterable[str] = (),
) -> EntityFingerprint:
    """The fingerprint of a merged entity (an entity item as a mapping: ``key``, ``id``,
    ``type``, ``properties``, ``conflicts``, ``last_seen``). ``seen`` defaults to its
    ``last_seen``."""
    properties = entity.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    types = [t for t in entity.get("type") or [] if isinstance(t, str)]
    values: dict[str, Any] = {"@type": types}
    if entity.get("id"):
        values["@id"] = entity.get("id")
    values.update(field_values(properties))
    disputed = _disputed(entity.get("conflicts"))
    for name, candidates in disputed.items():
        for inner in [n for n in values if n.startswith(name + ".")]:
            del values[inner]
        values[name] = candidates
    fields = {
        name: value_hash(value, unordered=_is_type_field(name) or name in disputed)
        for name, value in values.items()
        if not (ignore and is_ignored(name, ignore))
    }
    when = seen if seen is not None else entity.get("last_seen")
    return EntityFingerprint(
        key=str(entity.get("key") or ""),
        digest=_digest(fields),
        fields=fields,
        seen=when if isinstance(when, str) else None,
        first_seen=None,
        pages=tuple(dict.fromkeys(str(p) for p in pages if p))[:MAX_PAGES],
        entity={"id": entity.get("id"), "type": types, "properties": dict(properties)},
    )
