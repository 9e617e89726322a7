"""Prices to decimal strings and currencies to ISO 4217 codes.

Prices are read by the ``price-parser`` package (amount and currency text found in one
string); this module decides only which separator is the decimal one (see ``_numbers``) and
passes it on. The written precision is kept (``"1299.00"`` stays two decimals).

Flags: ``price-non-numeric`` (``"Free"``, ``"call us"``), ``price-unparsed`` (several numbers,
``"10-20 €"``), ``price-ambiguous-separator`` (``"1.234"`` with neither a currency nor a
locale that says what the dot is), ``currency-ambiguous`` (``"$"``, ``"kr"``, ``"¥"`` where
the page does not say which), ``currency-unknown``; and the note ``currency-from-page`` (such a
sign read by the one currency policy, :mod:`structcrawl.core.currency`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from babel.numbers import get_currency_precision, list_currencies
from price_parser import Price

from structcrawl.core.currency import sign_currency
from structcrawl.normalize._numbers import AMBIGUOUS, NUMBER, decimal_separator, decimal_string
from structcrawl.normalize._result import Flag, Normalized, flagged

__all__ = ["PriceResult", "normalize_currency", "normalize_price"]

_ISO_CODES = frozenset(list_currencies())
# Currency signs that name one currency (keys folded to lower case).
# fmt: off
_SYMBOLS = {
    "€": "EUR", "euro": "EUR", "euros": "EUR", "£": "GBP", "us$": "USD", "u$s": "USD",
    "usd$": "USD", "c$": "CAD", "ca$": "CAD", "can$": "CAD", "a$": "AUD", "au$": "AUD",
    "nz$": "NZD", "hk$": "HKD", "s$": "SGD", "r$": "BRL", "mx$": "MXN", "nt$": "TWD",
    "₹": "INR", "₽": "RUB", "руб": "RUB", "руб.": "RUB", "₩": "KRW", "₺": "TRY", "₴": "UAH",
    "₪": "ILS", "zł": "PLN", "kč": "CZK", "ft": "HUF", "lei": "RON", "лв": "BGN", "лв.": "BGN",
    "₫": "VND", "฿": "THB", "₱": "PHP", "₦": "NGN", "₡": "CRC", "₲": "PYG", "₸": "KZT",
    "₾": "GEL", "₼": "AZN", "fr.": "CHF", "sfr.": "CHF", "円": "JPY", "원": "KRW",
    "rm": "MYR", "rp": "IDR", "rp.": "IDR", "грн": "UAH", "грн.": "UAH", "tl": "TRY",
    "đ": "VND", "kn": "HRK",
    # the Arab countries' currencies as their shops abbreviate them
    "ر.س": "SAR", "د.إ": "AED", "ج.م": "EGP", "د.ك": "KWD", "ر.ق": "QAR", "د.ب": "BHD",
    "ر.ع": "OMR", "د.أ": "JOD",
}
# fmt: on
# Signs used by several currencies: read by the page (structcrawl.core.currency), else flagged.
# fmt: off
_AMBIGUOUS = frozenset({
    "$", "¥", "￥", "元", "kr", "kr.", "r", "rs", "rs.", "₨", "fr", "fcfa", "cfa", "din", "dh", "c",
})
# fmt: on


@dataclass(frozen=True, slots=True)
class PriceResult:
    """A normalized price: ``value`` (decimal string, or the original when flagged), the
    ISO 4217 ``currency`` found in the price text itself with its original ``currency_raw``
    (``"€"``), and the flags."""

    value: Any
    currency: str | None = None
    currency_raw: str | None = None
    flags: tuple[Flag, ...] = ()

    @property
    def ok(self) -> bool:
        """Normalized: no flag but notes (``currency-from-page``)."""
        return all(f.note for f in self.flags)


@lru_cache(maxsize=512)
def _minor_digits(code: str | None) -> int | None:
    if not code:
        return None
    try:
        return int(get_currency_precision(code))
    except (KeyError, ValueError):  # pragma: no cover - babel falls back to 2
        return None


def normalize_currency(
    value: Any, *, language: str | None = None, region: str | None = None, host: str = ""
) -> Normalized:
    """ISO 4217 code for a currency code or sign. A sign several currencies use is read by
    the one currency policy (:func:`structcrawl.core.currency.sign_currency`) from the page's
    ``language``, ``region`` and ``host``, with the note ``currency-from-page``; where the page
    does not say, it stays as written, flagged ``currency-ambiguous``.

    >>> normalize_currency("€").value, normalize_currency("usd").value
    ('EUR', 'USD')
    >>> [f.code for f in normalize_currency("$").flags]
    ['currency-ambiguous']
    >>> r = normalize_currency("$", language="en", region="ca")
    >>> r.value, r.ok, [f.code for f in r.flags]
    ('CAD', True, ['currency-from-page'])
    """
    if not isinstance(value, str):
        return flagged(value, "currency-unknown", f"not a currency: {type(value).__name__}")
    text = value.strip()
    upper = text.upper()
    if len(text) == 3 and upper in _ISO_CODES:
        return Normalized(upper)
    key = text.casefold()
    code = _SYMBOLS.get(key)
    if code:
        return Normalized(code)
    if key in _AMBIGUOUS:
        code = sign_currency(text, language, region, host)
        if code:
            why = f"{text!r} read as {code} from the page's language, region or domain"
            return Normalized(code, (Flag("currency-from-page", why, note=True),))
        return flagged(value, "currency-ambiguous", f"{text!r} is used by several currencies")
    return flagged(value, "currency-unknown", f"{text!r} is not an ISO 4217 code or known sign")


def _number(value: int | float) -> str:
    text = format(Decimal(repr(value)), "f") if isinstance(value, float) else str(value)
    return text


def normalize_price(
    value: Any,
    *,
    currency: str | None = None,
    language: str | None = None,
    region: str | None = None,
    host: str = "",
) -> PriceResult:
    """A price as a decimal string; ``currency`` (ISO 4217, from the price's layer) and
    ``language`` are hints for reading separators; a sign in the text several currencies use
    is read as :func:`normalize_currency` reads it (``language``, ``region``, ``host``).

    >>> r = normalize_price("1.299,00 €")
    >>> r.value, r.currency, r.currency_raw
    ('1299.00', 'EUR', '€')
    >>> normalize_price(129.99).value, normalize_price("1,299.00").value
    ('129.99', '1299.00')
    >>> [f.code for f in normalize_price("1.234").flags]
    ['price-ambiguous-separator']
    >>> normalize_price("1.234", language="de").value
    '1234'
    """
    if isinstance(value, bool) or value is None:
        return PriceResult(value, flags=(Flag("price-non-numeric", f"not a price: {value!r}"),))
    if isinstance(value, int | float):
        try:
            return PriceResult(_number(value))
        except (InvalidOperation, ValueError):
            return PriceResult(value, flags=(Flag("price-non-numeric", f"{value!r}"),))
    if not isinstance(value, str):
        return PriceResult(
            value, flags=(Flag("price-non-numeric", f"not a price: {type(value).__name__}"),)
        )
    text = value.strip()
    minor = _minor_digits(currency)
    if text.isascii() and text.replace(".", "", 1).isdigit():  # the machine form: no parsing
        return _amount(value, text, text, None, None, minor, language, currency)
    numbers = NUMBER.findall(text)
    if not numbers:
        return PriceResult(value, flags=(Flag("price-non-numeric", f"no amount in {text!r}"),))
    if len(numbers) > 1:
        return PriceResult(
            value, flags=(Flag("price-unparsed", f"more than one number in {text!r}"),)
        )
    found, found_raw = None, None
    currency_flags: tuple[Flag, ...] = ()
    parsed = Price.fromstring(text)
    sign = parsed.currency or _sign_beside(text, numbers[0])
    if sign:
        found_raw = sign.strip()
        cur = normalize_currency(found_raw, language=language, region=region, host=host)
        if cur.ok:
            found = cur.value
            minor = _minor_digits(currency or found)
            currency_flags = cur.flags if currency is None else ()  # its note, if any
        elif currency is None:  # the layer names no currency either: say so
            currency_flags = cur.flags
    result = _amount(value, text, numbers[0], found, found_raw, minor, language, currency or found)
    if currency_flags:
        found = result.currency if all(f.note for f in currency_flags) else None
        return PriceResult(result.value, found, found_raw, currency_flags + result.flags)
    return result


def _sign_beside(text: str, number: str) -> str | None:
    """A currency sign price-parser does not know (``元``), written alone beside the amount."""
    rest = text.replace(number, " ", 1).strip(" \u00a0~:·()").strip()
    key = rest.casefold()
    return rest if rest and (key in _SYMBOLS or key in _AMBIGUOUS) else None


def _amount(
    raw: Any,
    text: str,
    number: str,
    found: str | None,
    found_raw: str | None,
    minor: int | None,
    language: str | None,
    code: str | None = None,
) -> PriceResult:
    sep = decimal_separator(number, language=language, minor_digits=minor, currency=code)
    if sep == AMBIGUOUS:
        message = f"{number!r}: thousands or decimal separator? (no currency or locale decides)"
        return PriceResult(raw, found, found_raw, (Flag("price-ambiguous-separator", message),))
    if text == number:
        out = decimal_string(number, sep)
    else:  # price-parser reads the amount, told which separator is the decimal one
        amount = Price.fromstring(text, decimal_separator=sep or _other(number)).amount
        out = None if amount is None else format(amount, "f")
        if out is not None and number.lstrip().startswith("-"):
            out = "-" + out
    if out is None:
        return PriceResult(
            raw, found, found_raw, (Flag("price-unparsed", f"{number!r} is not a number"),)
        )
    return PriceResult(out, found, found_raw)


def _other(number: str) -> str:
    """A decimal separator the number does not use (its separators then all group digits)."""
    return "," if "." in number else "."
