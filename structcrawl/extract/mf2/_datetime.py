"""Date and time handling for ``dt-*`` properties (value-class-pattern rules).

Only values assembled through the value class pattern are normalised: the date and time parts
are joined with a space, 12-hour times become 24-hour times with a two-digit hour, ``z`` becomes
``Z`` and a ``±hh:mm`` offset becomes ``±hhmm``. Values taken whole from an attribute or from
the text are returned as authored, except that a bare time is completed with the date of an
earlier ``dt-*`` property of the same microformat (the implied-date rule).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["date_of", "is_time", "join_parts", "normalize_time"]

_DATE: Final = r"\d{4}-(?:\d{2}-\d{2}|\d{3})"
_TZ: Final = r"(?:[Zz]|[+-]\d{1,2}(?::?\d{2})?)"
_AMPM: Final = r"(?:[aApP]\.?[mM]\.?)"
_TIME: Final = (
    r"(?P<h>\d{1,2})(?::(?P<m>\d{2})(?::(?P<s>\d{2}(?:\.\d+)?))?)?"
    r"\s*(?P<ampm>" + _AMPM + r")?"
    r"(?P<tz>" + _TZ + r")?"
)
_DATE_RE: Final = re.compile(_DATE)
_TZ_RE: Final = re.compile(_TZ)
_TIME_RE: Final = re.compile(_TIME)
_DATETIME_RE: Final = re.compile(_DATE + r"[Tt ]" + _TIME)
_LEADING_DATE_RE: Final = re.compile(r"(" + _DATE + r")(?:$|[Tt ])")


def is_time(value: str) -> bool:
    """Whether ``value`` is a time of day (with minutes, or an hour with am/pm)."""
    m = _TIME_RE.fullmatch(value)
    return bool(m and (m.group("m") or m.group("ampm")))


def normalize_time(value: str) -> str:
    """``7:30pm`` -> ``19:30``, ``07pm`` -> ``19:00``, ``19:00-08:00`` -> ``19:00-0800``."""
    m = _TIME_RE.fullmatch(value)
    if not m:
        return value
    hour = int(m.group("h"))
    minute, second, ampm, tz = m.group("m"), m.group("s"), m.group("ampm"), m.group("tz")
    if ampm:
        pm = ampm[0] in "pP"
        if pm and hour < 12:
            hour += 12
        elif not pm and hour == 12:
            hour = 0
    out = f"{hour:02d}:{minute or '00'}"
    if second:
        out += ":" + second
    if tz:
        out += _normalize_tz(tz)
    return out


def _normalize_tz(tz: str) -> str:
    if tz in ("z", "Z"):
        return "Z"
    return tz.replace(":", "")


def date_of(value: str) -> str | None:
    """The date at the start of a date or date-time value, if any."""
    m = _LEADING_DATE_RE.match(value)
    return m.group(1) if m else None


def join_parts(parts: list[str], implied_date: str | None) -> str | None:
    """Combine value-class-pattern parts into one date-time, or ``None`` if none applies.

    The first date, the first time and the first timezone win. A part holding a whole
    date-time is used as is when it comes before any other date or time part.
    """
    date = time = tz = None
    for part in parts:
        if date is None and time is None and _DATETIME_RE.fullmatch(part):
            return part
        if date is None and _DATE_RE.fullmatch(part):
            date = part
        elif time is None and is_time(part):
            time = part
        elif tz is None and _TZ_RE.fullmatch(part):
            tz = part
    if date is None and time is None:
        return None
    if time is None:
        return date
    out = normalize_time(time)
    match = _TIME_RE.fullmatch(time)
    if tz is not None and match is not None and not match.group("tz"):
        out += _normalize_tz(tz)
    date = date or implied_date
    return f"{date} {out}" if date else out
