"""Numbers, and numbers with units.

* :func:`normalize_number` reads a number written as text (``"4,8"`` → ``"4.8"``,
  ``"1.234"`` only with a locale that says what the dot is). JSON numbers are kept as they are.
* :func:`normalize_quantity` reads a text value with a unit (``"750 ml"``, ``"1,2 kg"``) into
  ``{"value": "750", "unitText": "ml", "unitCode": "MLT"}``: the number as a decimal string,
  the unit exactly as written, and its UN/CEFACT common code when the unit is a known one.
  A value without a unit stays a scalar (a number read as text stays text, normalized).
  ``QuantitativeValue`` records are left as records: their ``value``/``minValue``/``maxValue``
  are normalized as numbers and their ``unitCode``/``unitText`` untouched.

Flags: ``number-ambiguous-separator``, ``number-unparsed``, ``quantity-unparsed`` (ranges,
lists such as ``"164 / 171 / 178 cm"``).
"""

from __future__ import annotations

from typing import Any

from structcrawl.normalize._numbers import AMBIGUOUS, NUMBER, decimal_separator, decimal_string
from structcrawl.normalize._result import Normalized, flagged

__all__ = ["UNIT_CODES", "normalize_number", "normalize_quantity"]

#: Unit text (case-sensitive where it matters) -> UN/CEFACT Recommendation 20 code.
# fmt: off
UNIT_CODES = {
    "g": "GRM", "kg": "KGM", "mg": "MGM", "t": "TNE", "lb": "LBR", "lbs": "LBR", "oz": "ONZ",
    "ml": "MLT", "mL": "MLT", "cl": "CLT", "dl": "DLT", "l": "LTR", "L": "LTR",
    "fl oz": "OZA", "gal": "GLL", "mm": "MMT", "cm": "CMT", "m": "MTR", "km": "KMT",
    "in": "INH", "″": "INH", '"': "INH", "ft": "FOT", "′": "FOT", "yd": "YRD", "mi": "SMI",
    "kcal": "E14", "kJ": "KJO", "cal": "A53", "W": "WTT", "kW": "KWT", "V": "VLT",
    "mAh": "E09", "Wh": "WHR", "lm": "LUM", "px": "E37", "°C": "CEL", "°F": "FAH",
}
# fmt: on


def _read(text: str, language: str | None, integer: bool) -> tuple[str | None, str | None]:
    """``(decimal string, problem code)``."""
    sep = decimal_separator(text, language=language, integer=integer)
    if sep == AMBIGUOUS:
        return None, "ambiguous"
    out = decimal_string(text, sep)
    return (out, None) if out is not None else (None, "unparsed")


def normalize_number(
    value: Any, *, language: str | None = None, integer: bool = False
) -> Normalized:
    """A number written as text, as a decimal string; ``integer`` reads every separator as a
    thousands separator (counts). JSON numbers pass through.

    >>> normalize_number("4,8").value, normalize_number("1.234", integer=True).value
    ('4.8', '1234')
    >>> [f.code for f in normalize_number("1.234").flags], normalize_number(4.5).value
    (['number-ambiguous-separator'], 4.5)
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return flagged(value, "number-unparsed", f"not a number: {value!r}")
    if not isinstance(value, str):
        return Normalized(value)
    text = value.strip()
    if text.isascii() and text.isdigit():
        return Normalized(text)
    if not NUMBER.fullmatch(text):
        return flagged(value, "number-unparsed", f"{text!r} is not a number")
    out, problem = _read(text, language, integer)
    if problem == "ambiguous":
        return flagged(
            value, "number-ambiguous-separator", f"{text!r}: thousands or decimal separator?"
        )
    if out is None:
        return flagged(value, "number-unparsed", f"{text!r} is not a number")
    return Normalized(out)


def normalize_quantity(value: Any, *, language: str | None = None) -> Normalized:
    """A number with its unit kept beside it.

    >>> normalize_quantity("750 ml").value
    {'value': '750', 'unitText': 'ml', 'unitCode': 'MLT'}
    >>> normalize_quantity("1,2 kg").value
    {'value': '1.2', 'unitText': 'kg', 'unitCode': 'KGM'}
    >>> normalize_quantity(60).value, normalize_quantity("1200").value
    (60, '1200')
    >>> [f.code for f in normalize_quantity("164 / 171 / 178 cm").flags]
    ['quantity-unparsed']
    """
    if not isinstance(value, str):
        return normalize_number(value, language=language)
    text = value.strip()
    m = NUMBER.match(text)
    if not m:
        return flagged(value, "quantity-unparsed", f"{text!r} does not start with a number")
    number, unit = m.group(0), text[m.end() :].strip()
    if not unit:
        return normalize_number(value, language=language)
    if any(c.isdigit() for c in unit) or len(unit) > 16:
        return flagged(value, "quantity-unparsed", f"{text!r} is not one number and a unit")
    out, problem = _read(number, language, False)
    if problem == "ambiguous":
        return flagged(
            value, "number-ambiguous-separator", f"{number!r}: thousands or decimal separator?"
        )
    if out is None:
        return flagged(value, "quantity-unparsed", f"{number!r} is not a number")
    result: dict[str, str] = {"value": out, "unitText": unit}
    code = UNIT_CODES.get(unit) or UNIT_CODES.get(unit.rstrip("."))
    if code is None and unit.lower() in UNIT_CODES and unit.lower() not in ("t", "m", "l"):
        code = UNIT_CODES[unit.lower()]
    if code:
        result["unitCode"] = code
    return Normalized(result)
