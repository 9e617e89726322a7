"""GTINs (EAN/UPC) and ISBNs: digits only, check digits verified.

A label in front (``EAN 4006381333931``, ``ISBN-13: 978-...``, ``urn:isbn:...``), spaces and
hyphens are removed. ``gtin8``/``gtin12``/``gtin13``/``gtin14`` must have that many digits,
``gtin`` any of them. Flags (the original value is kept): ``gtin-invalid`` / ``isbn-invalid``
(other characters), ``gtin-length`` / ``isbn-length``, ``gtin-check-digit`` /
``isbn-check-digit``.
"""

from __future__ import annotations

import re
from typing import Any

from structcrawl.normalize._result import Normalized, flagged

__all__ = [
    "GTIN_PROPERTIES",
    "gtin_check_digit",
    "gtin14",
    "isbn13",
    "normalize_gtin",
    "normalize_isbn",
]

#: Property -> the digit counts it allows.
GTIN_PROPERTIES: dict[str, tuple[int, ...]] = {
    "gtin": (8, 12, 13, 14),
    "gtin8": (8,),
    "gtin12": (12,),
    "gtin13": (13,),
    "gtin14": (14,),
}
_LABEL = re.compile(
    r"(?:urn:)?(?:isbn(?:-?1[03])?|ean(?:-?(?:8|13))?|upc(?:-?a)?|gtin(?:-?(?:8|12|13|14))?)"
    r"\s*[:#]?\s*",
    re.I,
)
_NOISE = str.maketrans("", "", " -\u00a0\u2010\u2011\u2012\u2013")


def _clean(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    m = _LABEL.match(text)
    if m:
        text = text[m.end() :]
    return text.translate(_NOISE)


def gtin_check_digit(body: str) -> int:
    """The GS1 check digit for the digits before it.

    >>> gtin_check_digit("061414110001")
    9
    """
    total = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(body)))
    return (10 - total % 10) % 10


def _isbn10_ok(digits: str) -> bool:
    total = sum((10 - i) * (10 if c in "Xx" else int(c)) for i, c in enumerate(digits))
    return total % 11 == 0


def normalize_gtin(value: Any, prop: str = "gtin") -> Normalized:
    """Digits of a valid GTIN for ``prop`` (``gtin``, ``gtin8``, ... ``gtin14``).

    >>> normalize_gtin("0614-1411-0001-9", "gtin13").value
    '0614141100019'
    >>> [f.code for f in normalize_gtin("0614141100018", "gtin13").flags]
    ['gtin-check-digit']
    """
    lengths = GTIN_PROPERTIES.get(prop, GTIN_PROPERTIES["gtin"])
    digits = _clean(value)
    if not digits or not digits.isascii() or not digits.isdigit():
        return flagged(value, "gtin-invalid", f"{value!r} is not a string of digits")
    if len(digits) not in lengths:
        want = "/".join(str(n) for n in lengths)
        return flagged(value, "gtin-length", f"{len(digits)} digits, {prop} has {want}")
    if gtin_check_digit(digits[:-1]) != int(digits[-1]):
        return flagged(value, "gtin-check-digit", f"check digit of {digits} is wrong")
    return Normalized(digits)


def normalize_isbn(value: Any) -> Normalized:
    """Digits of a valid ISBN-10 (``X`` as last character allowed) or ISBN-13.

    >>> normalize_isbn("ISBN 978-3-16-148410-0").value, normalize_isbn("0-306-40615-2").value
    ('9783161484100', '0306406152')
    """
    digits = _clean(value)
    if not digits or not digits.isascii():
        return flagged(value, "isbn-invalid", f"{value!r} is not an ISBN")
    body, last = digits[:-1], digits[-1:]
    if not body.isdigit() or not (last.isdigit() or (last in "Xx" and len(digits) == 10)):
        return flagged(value, "isbn-invalid", f"{value!r} is not an ISBN")
    if len(digits) == 10:
        if not _isbn10_ok(digits):
            return flagged(value, "isbn-check-digit", f"check digit of {digits} is wrong")
        return Normalized(digits.upper())
    if len(digits) == 13:
        if not digits.startswith(("978", "979")):
            return flagged(value, "isbn-invalid", f"{digits} does not start with 978 or 979")
        if gtin_check_digit(body) != int(last):
            return flagged(value, "isbn-check-digit", f"check digit of {digits} is wrong")
        return Normalized(digits)
    return flagged(value, "isbn-length", f"{len(digits)} digits, an ISBN has 10 or 13")


def gtin14(value: Any, prop: str = "gtin") -> str | None:
    """A valid GTIN as 14 digits (zero-padded), the form keys compare; else ``None``.

    >>> gtin14("614141100019", "gtin12")
    '00614141100019'
    """
    result = normalize_gtin(value, prop)
    return result.value.zfill(14) if result.ok else None


def isbn13(value: Any) -> str | None:
    """A valid ISBN as ISBN-13 digits (ISBN-10 converted); else ``None``.

    >>> isbn13("0-306-40615-2")
    '9780306406157'
    """
    result = normalize_isbn(value)
    if not result.ok:
        return None
    digits = str(result.value)
    if len(digits) == 10:
        body = "978" + digits[:9]
        return body + str(gtin_check_digit(body))
    return digits
