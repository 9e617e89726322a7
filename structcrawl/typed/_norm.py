"""Normalizing item values with the project's normalizers (pure)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from structcrawl.core.readers import literal, ref, text
from structcrawl.normalize.enums import normalize_enum
from structcrawl.normalize.identifiers import normalize_gtin
from structcrawl.normalize.prices import _minor_digits, normalize_currency, normalize_price

__all__ = ["availability", "currency", "gtin", "plain_words", "price"]

_NOT_WORD = re.compile(r"[\W_]+")


def plain_words(value: str | None) -> str:
    """Letters and digits only, case-folded, single-spaced; ``""`` for nothing.

    >>> plain_words("Mug – Oat_Milk "), plain_words(None)
    ('mug oat milk', '')
    """
    return " ".join(_NOT_WORD.sub(" ", (value or "").casefold()).split())


_AVAILABILITY_WORDS = {
    "instock": "InStock", "in_stock": "InStock", "available": "InStock", "true": "InStock",
    "outofstock": "OutOfStock", "out_of_stock": "OutOfStock", "soldout": "SoldOut",
    "sold_out": "SoldOut", "false": "OutOfStock", "unavailable": "OutOfStock",
    "preorder": "PreOrder", "pre_order": "PreOrder", "backorder": "BackOrder",
    "discontinued": "Discontinued", "limitedavailability": "LimitedAvailability",
    "low_stock": "LimitedAvailability", "lowstock": "LimitedAvailability",
}  # fmt: skip


def availability(value: Any) -> str | None:
    """A schema.org ItemAvailability member name (``"InStock"``), or ``None``.

    >>> availability({"@id": "http://schema.org/InStock"}), availability("in stock")
    ('InStock', 'InStock')
    >>> availability(True), availability("IN_STOCK"), availability("ask us")
    ('InStock', 'InStock', None)
    """
    plain = literal(value[0] if isinstance(value, list) and value else value)
    if isinstance(plain, bool):
        return "InStock" if plain else "OutOfStock"
    raw = ref(plain) if isinstance(plain, dict) else text(plain)
    if not raw:
        return None
    result = normalize_enum("availability", raw)
    if result.ok and isinstance(result.value, str):
        return result.value.rsplit("/", 1)[-1]
    return _AVAILABILITY_WORDS.get(raw.strip().casefold().replace(" ", "").replace("-", "_"))


def currency(value: Any) -> str | None:
    """An ISO 4217 code for a currency code or unambiguous sign, else ``None``."""
    raw = text(value)
    if not raw:
        return None
    result = normalize_currency(raw)
    return str(result.value) if result.ok else None


def price(
    value: Any,
    currency_code: str | None = None,
    language: str | None = None,
    *,
    region: str | None = None,
    host: str = "",
) -> tuple[str | None, str | None, str | None]:
    """``(decimal string, currency found in the text, currency sign as written)``; the amount
    is written with at least the currency's minor digits (``19.5`` USD -> ``"19.50"``).

    >>> price(19.5, "USD"), price("12800", "JPY")[0], price("1.299,00 €")
    (('19.50', None, None), '12800', ('1299.00', 'EUR', '€'))
    """
    plain = literal(value[0] if isinstance(value, list) and value else value)
    if isinstance(plain, dict) or plain is None:
        return None, None, None
    result = normalize_price(
        plain, currency=currency_code, language=language, region=region, host=host
    )
    if not result.ok or not isinstance(result.value, str):
        return None, result.currency, result.currency_raw
    return (
        _pad(result.value, currency_code or result.currency),
        result.currency,
        result.currency_raw,
    )


def _pad(amount: str, code: str | None) -> str:
    try:
        number = Decimal(amount)
    except InvalidOperation:
        return amount
    minor = _minor_digits(code) if code else 2
    minor = 2 if minor is None else minor
    exponent = number.as_tuple().exponent
    if isinstance(exponent, int) and -exponent < minor:
        number = number.quantize(Decimal(1).scaleb(-minor))
    return format(number, "f")


def gtin(value: Any, prop: str = "gtin") -> str | None:
    """Valid GTIN digits (as written: 8, 12, 13 or 14 digits), else ``None``."""
    raw = text(value)
    if not raw:
        return None
    result = normalize_gtin(raw, prop if prop.startswith("gtin") else "gtin")
    if not result.ok:
        result = normalize_gtin(raw, "gtin")
    return str(result.value) if result.ok else None
