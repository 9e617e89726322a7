"""Normalizing one record dict in place: properties, provenance sightings, flags, key."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from structcrawl.core import values as _values
from structcrawl.core.currency import page_language
from structcrawl.normalize._props import currency_raw_key, table_for
from structcrawl.normalize._result import Flag, Normalized
from structcrawl.normalize.dates import DATE_DATATYPES, normalize_date
from structcrawl.normalize.durations import normalize_duration
from structcrawl.normalize.enums import normalize_enum
from structcrawl.normalize.identifiers import normalize_gtin, normalize_isbn
from structcrawl.normalize.keys import entity_key
from structcrawl.normalize.prices import normalize_currency, normalize_price
from structcrawl.normalize.quantities import normalize_number, normalize_quantity
from structcrawl.normalize.urls import normalize_url

__all__ = ["NormalizeContext", "normalize_record"]


@dataclass(frozen=True, slots=True)
class NormalizeContext:
    """What normalization knows about the page: its URL, its document base (``<base href>``),
    its language (``<html lang>``, a BCP 47 tag) and the site's IANA time zone."""

    page_url: str
    base_url: str | None = None
    language: str | None = None
    timezone: str | None = None

    def place(self, language: str | None = None) -> dict[str, Any]:
        """What the one currency policy reads an ambiguous sign by: the page's language
        (``language``, a value's own tag, when given), region (``en-CA``) and host
        (:mod:`structcrawl.core.currency`)."""
        page_lang, region, host = _page_place(self.language, self.page_url)
        return {"language": language or page_lang, "region": region, "host": host}


@lru_cache(maxsize=256)
def _page_place(tag: str | None, page_url: str) -> tuple[str | None, str | None, str]:
    """``(language, region, host)`` of a page, read once per page, not once per price."""
    language, region = page_language(tag)
    host = (urlsplit(page_url).hostname or "") if page_url else ""
    return language, region, host.lower()


_EXPLICIT_RELATIVE = ("/", "./", "../", "#", "?")
_URL_KEYS = ("url", "secure_url", "value")  # in og:image-style and mf2 {"value", "alt"} dicts


def _is_record(value: Any) -> bool:
    return isinstance(value, dict) and "properties" in value and "kind" in value


def _unwrap(raw: Any) -> Any:
    return raw.get("@value") if isinstance(raw, dict) and "@value" in raw else raw


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(values: list[Any], hints: Any) -> bool:
    """True when no value of a property without a kind is normalized: plain scalars (not
    references, literals or lists), and no aligned sighting says a datatype (a raw typed
    literal makes a date of a plain string)."""
    for v in values:  # plain loops: most properties have one value and one sighting
        if type(v) not in _SCALARS:
            return False
    for s in hints:
        if isinstance(s, dict) and isinstance(s.get("raw"), dict):
            return False
    return True


class _Walker:
    """Normalizes one record (and, first, the records nested in it)."""

    def __init__(self, ctx: NormalizeContext):
        self.ctx = ctx
        self.base = ctx.base_url or ctx.page_url or None

    def record(self, rec: dict[str, Any]) -> None:
        if (rec.get("kind") or "entity") != "entity":
            rec["flags"] = []
            return
        props = rec.get("properties")
        if not isinstance(props, dict):
            props = {}
        for value in props.values():
            self._nested(value)
        provenance = rec.get("provenance")
        fields = provenance.get("fields") if isinstance(provenance, dict) else None
        fields = fields if isinstance(fields, dict) else {}
        table = table_for(rec)
        flags: list[dict[str, Any]] = []
        currencies: dict[str, str | None] = {}
        order = list(props)
        first = [p for p in order if table.get(p) == "currency"]
        if first:  # currencies first (their prices read them), the rest in order
            order = first + [p for p in order if table.get(p) != "currency"]
        for prop in order:
            self._property(props, prop, table, fields.get(prop) or [], flags, currencies)
        for prop, sightings in fields.items():
            if prop not in props and isinstance(sightings, list):  # og:image:width and such
                for s in sightings:
                    if isinstance(s, dict):
                        s["value"] = self._quiet(prop, table.get(prop), s.get("raw"), {})
        rec["flags"] = flags
        rec["key"] = entity_key(rec)

    def _nested(self, value: Any) -> None:
        if _is_record(value):
            self.record(value)
        elif isinstance(value, list):
            for v in value:
                self._nested(v)

    def _property(
        self,
        props: dict[str, Any],
        prop: str,
        table: Mapping[str, str],
        sightings: list[Any],
        flags: list[dict[str, Any]],
        currencies: dict[str, str | None],
    ) -> None:
        value = props[prop]
        values = value if isinstance(value, list) else [value]
        aligned = len(sightings) == len(values)
        kind = table.get(prop)
        if kind is None and _plain(values, sightings if aligned else ()):
            # nothing to normalize (most properties): values and sightings stay as they are
            props[prop] = list(value) if isinstance(value, list) else value
            for i, s in enumerate(sightings):
                if isinstance(s, dict):
                    s["value"] = values[i] if aligned else _unwrap(s.get("raw"))
            return
        out = []
        for i, v in enumerate(values):
            hint = sightings[i].get("raw") if aligned and isinstance(sightings[i], dict) else None
            out.append(self._value(props, prop, kind, v, hint, flags, currencies))
        props[prop] = out if isinstance(value, list) else out[0]
        for i, s in enumerate(sightings):
            if not isinstance(s, dict):
                continue
            if aligned:
                s["value"] = None if _is_record(out[i]) else out[i]
            else:
                s["value"] = self._quiet(prop, kind, s.get("raw"), currencies)

    def _value(
        self,
        props: dict[str, Any],
        prop: str,
        kind: str | None,
        v: Any,
        hint: Any,
        flags: list[dict[str, Any]],
        currencies: dict[str, str | None],
    ) -> Any:
        if _is_record(v):
            return v
        if _values.is_value_object(v):  # a typed or language-tagged literal: its datatype and
            # language guide normalization; a normalized value is plain, else it stays as is
            if kind is None and _values.datatype(v) not in DATE_DATATYPES:
                return v
            hint, v = v, _values.literal(v)
        if isinstance(v, list):  # an @list inside a value
            return [self._value(props, prop, kind, x, None, flags, currencies) for x in v]
        if isinstance(v, dict) and set(v) == {"@id"} and kind != "enum":
            result = normalize_url(v["@id"], base=self.base, is_id=True)
            self._flag(flags, prop, v, result)
            return {"@id": result.value}
        if kind is None:
            datatype = hint.get("@type") if isinstance(hint, dict) else None
            if not isinstance(datatype, str) or datatype not in DATE_DATATYPES:
                return v
            kind = "date"
        language = self.ctx.language
        if isinstance(hint, dict) and isinstance(hint.get("@language"), str):
            language = hint["@language"]
        if kind.startswith("price:"):
            return self._price(props, prop, kind[6:], v, language, flags, currencies)
        if kind == "og-price" and isinstance(v, dict):
            group = dict(v)
            if "amount" in group:
                self._price(
                    group,
                    prop,
                    "currency",
                    group["amount"],
                    language,
                    flags,
                    {},
                    amount_key="amount",
                )
            return group
        if kind == "og-quantity" and isinstance(v, dict):
            group = dict(v)
            if "value" in group:
                result = normalize_number(group["value"], language=language)
                self._flag(flags, prop, group["value"], result)
                group["value"] = result.value
            return group
        if kind == "currency":
            result = normalize_currency(v, **self.ctx.place())
            self._flag(flags, prop, v, result)
            if prop not in currencies:
                currencies[prop] = result.value if result.ok else None
                if result.ok and result.value != v:
                    props.setdefault(currency_raw_key(prop), v)
            return result.value
        result = self._apply(kind, prop, v, language)
        self._flag(flags, prop, v, result)
        return result.value

    def _apply(self, kind: str, prop: str, v: Any, language: str | None) -> Normalized:
        if kind == "date":
            return normalize_date(v, timezone=self.ctx.timezone, language=language)
        if kind in ("url", "url-or-text"):
            if isinstance(v, dict):
                return self._url_dict(v)
            if kind == "url-or-text" and not _looks_like_url(v):
                return Normalized(v)
            return normalize_url(v, base=self.base)
        if kind == "enum":
            return normalize_enum(prop, v)
        if kind == "gtin":
            return normalize_gtin(v, prop if prop.startswith("gtin") else "gtin")
        if kind == "isbn":
            return normalize_isbn(v)
        if kind == "duration":
            return normalize_duration(v)
        if kind == "duration-seconds":
            return normalize_duration(v, seconds=True)
        if kind == "quantity":
            return normalize_quantity(v, language=language)
        if kind in ("number", "integer", "og-quantity"):  # og-quantity: a bare value
            return normalize_number(v, language=language, integer=kind == "integer")
        if kind == "og-price":  # a bare amount instead of the usual group
            price = normalize_price(v, **self.ctx.place(language))
            return Normalized(price.value, price.flags)
        return Normalized(v)  # an unknown kind: nothing to do

    def _url_dict(self, v: dict[str, Any]) -> Normalized:
        out = dict(v)
        flags: list[Flag] = []
        for key in _URL_KEYS:
            if isinstance(out.get(key), str):
                result = normalize_url(out[key], base=self.base)
                out[key] = result.value
                flags.extend(result.flags)
        return Normalized(out, tuple(flags))

    def _price(
        self,
        props: dict[str, Any],
        prop: str,
        currency_prop: str,
        v: Any,
        language: str | None,
        flags: list[dict[str, Any]],
        currencies: dict[str, str | None],
        amount_key: str | None = None,
    ) -> Any:
        """Normalize price ``v``; ``props`` is its layer (a record's properties, or an Open
        Graph price group whose ``amount_key`` is updated here)."""
        if amount_key is not None and currency_prop in props:  # the group's own currency
            raw_currency = props[currency_prop]
            currency = normalize_currency(raw_currency, **self.ctx.place())
            self._flag(flags, prop, raw_currency, currency)
            if currency.ok:
                currencies[currency_prop] = props[currency_prop] = currency.value
                if currency.value != raw_currency:
                    props.setdefault(currency_raw_key(currency_prop), raw_currency)
        known = currencies.get(currency_prop)
        result = normalize_price(v, currency=known, **self.ctx.place(language))
        self._flag(flags, prop, v, Normalized(result.value, result.flags))
        if amount_key is not None:
            props[amount_key] = result.value
        if result.currency:
            if currency_prop not in props:
                props[currency_prop] = result.currency
                props.setdefault(currency_raw_key(currency_prop), result.currency_raw)
                currencies[currency_prop] = result.currency
            elif known and known != result.currency:
                flags.append(
                    {
                        "field": prop,
                        "code": "price-currency-conflict",
                        "message": f"price says {result.currency_raw!r}, "
                        f"{currency_prop} says {known}",
                        "raw": v,
                    }
                )
        return result.value

    def _quiet(
        self, prop: str, kind: str | None, raw: Any, currencies: dict[str, str | None]
    ) -> Any:
        """The normalized form of one sighting's raw value, when sightings and values do not
        line up one to one (flags are reported once, on the property values)."""
        v = _unwrap(raw)
        if v is None or kind is None or isinstance(v, dict | list):
            return v
        if kind.startswith("price:"):
            place = self.ctx.place(self.ctx.language)
            return normalize_price(v, currency=currencies.get(kind[6:]), **place).value
        if kind == "currency":
            return normalize_currency(v, **self.ctx.place()).value
        return self._apply(kind, prop, v, self.ctx.language).value

    @staticmethod
    def _flag(flags: list[dict[str, Any]], prop: str, raw: Any, result: Normalized) -> None:
        for f in result.flags:
            flag = {"field": prop, "code": f.code, "message": f.message, "raw": raw}
            if f.note:
                flag["note"] = True  # how the value was read, not a failure
            flags.append(flag)


def _looks_like_url(v: Any) -> bool:
    if not isinstance(v, str):
        return False
    text = v.strip()
    return (
        "://" in text
        or text.startswith(_EXPLICIT_RELATIVE)
        or text.startswith(("javascript:", "data:", "mailto:"))
    )


def normalize_record(record: dict[str, Any], ctx: NormalizeContext) -> dict[str, Any]:
    """Normalize ``record`` (a ``Record.to_dict()``) in place and return it.

    Every entity record, nested ones included, gets normalized ``properties``, a ``value``
    beside each provenance sighting's ``raw`` (``None`` where the value is a nested record,
    which carries its own), ``flags`` (``{field, code, message, raw}``, on the record that
    holds the field) and its ``key`` (:func:`~structcrawl.normalize.keys.entity_key`). A price
    whose currency had to be derived fills the layer's currency property with the ISO code and
    keeps the original text in ``currencyRaw``. Error and skip records are left as they are,
    with ``flags: []``. Normalizing a normalized record changes nothing.

    >>> rec = {"kind": "entity", "format": "json-ld", "type": ["Offer"], "id": None,
    ...        "source_url": "https://shop.example/p", "properties": {"price": "1.299,00 €"},
    ...        "provenance": {"fields": {"price": [{"path": "$.price", "raw": "1.299,00 €"}]}}}
    >>> out = normalize_record(rec, NormalizeContext("https://shop.example/p"))
    >>> out["properties"], out["provenance"]["fields"]["price"][0]["value"], out["flags"]
    ({'price': '1299.00', 'priceCurrency': 'EUR', 'currencyRaw': '€'}, '1299.00', [])
    """
    if isinstance(record, dict):
        _Walker(ctx).record(record)
    return record
