"""Reading the digits of a number written by people: which separator is the decimal one.

``"1.299,00"`` and ``"1,299.00"`` say it themselves; ``"12,5"`` too (a group has three
digits); ``"1.234"`` does not: it is 1234 in Germany and 1.234 in the US. Such a value is read
only when a hint fixes it (a currency without minor units, or one with three; the page's
locale), otherwise the caller flags it.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from structcrawl.normalize._locale import currency_decimal, number_symbols

__all__ = ["AMBIGUOUS", "NUMBER", "decimal_string", "decimal_separator"]

#: Returned by :func:`decimal_separator` when the text does not say which separator it uses.
AMBIGUOUS = "?"
_GROUP_ONLY = frozenset(" '\u00a0\u202f\u2009\u2019")  # never a decimal separator
_DIGITS = frozenset("0123456789")
#: One number as people write it: digits with group and decimal separators inside.
NUMBER = re.compile(r"[+-]?(?:\d[\d.,'’\u00a0\u202f\u2009 ]*\d|\d)")


def decimal_separator(
    text: str,
    *,
    language: str | None = None,
    minor_digits: int | None = None,
    integer: bool = False,
    currency: str | None = None,
) -> str | None:
    """The decimal separator of ``text`` (digits and separators only): ``"."``, ``","``,
    ``None`` when it has no fractional part, or :data:`AMBIGUOUS`.

    >>> decimal_separator("1.299,00"), decimal_separator("12,5"), decimal_separator("1.299.000")
    (',', ',', None)
    >>> decimal_separator("1.234") == AMBIGUOUS
    True
    >>> decimal_separator("1.234", language="de"), decimal_separator("1.234", language="en")
    (None, '.')
    >>> decimal_separator("1.234", minor_digits=0), decimal_separator("0.500")
    (None, '.')
    >>> decimal_separator("3.499", currency="ARS"), decimal_separator("1.234", currency="EUR")
    (None, '?')
    >>> decimal_separator("12,5,3") == decimal_separator("1.2,50") == AMBIGUOUS
    True
    """
    dots, commas = text.count("."), text.count(",")
    if dots and commas:
        last = "." if text.rfind(".") > text.rfind(",") else ","
        if text.count(last) != 1 or not _grouped(
            text[: text.rfind(last)], "," if last == "." else "."
        ):
            return AMBIGUOUS
        return last
    if not dots and not commas:
        return None
    sep = "." if dots else ","
    if dots + commas > 1:
        # repeated: it groups thousands, if the groups are groups ("12,5,3" is no number)
        return None if _grouped(text, sep) else AMBIGUOUS
    if integer:
        return None
    head, _, tail = text.partition(sep)
    head = head.lstrip("+-")
    if len(tail) != 3 or head.strip("0") == "" or any(c in _GROUP_ONLY for c in head):
        return sep
    if minor_digits == 0:
        return None
    if minor_digits == 3:
        return sep
    symbols = number_symbols(language)
    if symbols is not None:
        decimal, group = symbols
        if sep == decimal:
            return sep
        if sep == group:
            return None
    # no language to say: the currency, where every country using it writes numbers one way
    agreed = currency_decimal(currency)
    if agreed is not None:
        return sep if sep == agreed else None
    return AMBIGUOUS


def _grouped(text: str, sep: str) -> bool:
    """Whether the digits of ``text`` split by ``sep`` are digit groups: 1-3 digits, then
    groups of three (``1.299.000``), or the Indian grouping (``1,23,456``: twos, then three).

    >>> _grouped("1.299.000", "."), _grouped("1,23,456", ","), _grouped("12,5,3", ",")
    (True, True, False)
    """
    parts = text.lstrip("+-").split(sep)
    if len(parts) < 2:
        return True
    first, *middle, last = ("".join(c for c in p if c in _DIGITS) for p in parts)
    if not 1 <= len(first) <= 3 or len(last) != 3:
        return False
    return all(len(p) == 3 for p in middle) or all(len(p) == 2 for p in middle)


def decimal_string(text: str, separator: str | None) -> str | None:
    """``text`` as a plain decimal string (``"1299.00"``), given its decimal separator; ``None``
    when what is left is not a number. The written precision is kept.

    >>> decimal_string("1.299,00", ","), decimal_string("1 234", None), decimal_string("x", None)
    ('1299.00', '1234', None)
    """
    sign = ""
    body = text.strip()
    if body[:1] in "+-":
        sign, body = ("-" if body[0] == "-" else ""), body[1:]
    if separator and separator in body:
        head, _, tail = body.rpartition(separator)
        head = head or "0"
    else:
        head, tail = body, ""
    head = "".join(c for c in head if c not in _GROUP_ONLY and c not in ".,")
    if not head or not set(head) <= _DIGITS or not set(tail) <= _DIGITS:
        return None
    out = f"{sign}{head}.{tail}" if tail else f"{sign}{head}"
    try:
        Decimal(out)
    except InvalidOperation:  # pragma: no cover - digits only by now
        return None
    return out
