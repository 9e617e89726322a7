"""Dates and times to ISO 8601.

* A date-only value stays a date (``2026-02-03``); reduced precision (``2026``, ``2026-02``)
  and times of day (``19:00``) are kept as such.
* A date-time gets an explicit offset: its own (``Z`` is written ``+00:00``), else the site's
  IANA time zone (``timezone``), else it is kept local and flagged ``date-no-timezone`` — never
  silently UTC. A local time that a daylight-saving change makes ambiguous or non-existent in
  that zone is flagged ``date-dst-ambiguous``.
* Other forms are read only when unambiguous: RFC 2822 (``Tue, 03 Feb 2026 07:30:00 -0800``),
  month names in the value's language or English (``3 mars 2025``, ``14. März 2026``,
  ``March 14, 2026``), numeric dates with a four-digit year whose day/month order the
  language fixes (``03/04/2025`` is ``date-ambiguous`` without one, ``13/04/2025`` is not).
* Anything else is kept as it is and flagged ``date-unparsed`` (or ``date-invalid`` for
  impossible dates such as ``2026-02-30``).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from email.utils import parsedate_to_datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from structcrawl.normalize._locale import day_month_order, is_filler, month_number
from structcrawl.normalize._result import Flag, Normalized, flagged

__all__ = ["DATE_DATATYPES", "get_zone", "normalize_date"]

_XSD = "http://www.w3.org/2001/XMLSchema#"
#: Literal datatypes that make a value a date whatever its property.
DATE_DATATYPES = frozenset(
    [f"{_XSD}{t}" for t in ("date", "dateTime", "dateTimeStamp")]
    + [f"xsd:{t}" for t in ("date", "dateTime", "dateTimeStamp")]
    + [
        f"{p}{t}"
        for p in ("http://schema.org/", "https://schema.org/", "schema:", "")
        for t in ("Date", "DateTime")
    ]
)

_ISO = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[Tt ]\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?"
    r"\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?"
)
_ISO_BASIC = re.compile(
    r"(\d{4})(\d{2})(\d{2})(?:[Tt](\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?)?"
    r"([Zz]|[+-]\d{2}(?:\d{2})?)?"
)
_REDUCED = re.compile(r"(\d{4})(?:-(\d{2}))?")
_TIME_ONLY = re.compile(r"(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?([Zz]|[+-]\d{2}:?\d{2})?")
_RFC2822 = re.compile(
    r"(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{1,2}:\d{2}(?::\d{2})?"
    r"\s*(?:[+-]\d{4}|[A-Za-z]{1,5})"
)
# A time inside free text: "18:30", "6:30 pm", "18h30", "10:00 Uhr", with an optional zone.
_TIME_IN_TEXT = re.compile(
    r"(?<![\d.:])(\d{1,2})(?::|h(?=\d))(\d{2})(?::(\d{2}))?"
    r"(?:\s*([ap])\.?\s*m\b\.?)?"
    r"(?:\s*(z\b|utc\b|gmt\b|[+-]\d{2}:?\d{2}))?",
    re.I,
)
_NUMERIC_DATE = re.compile(r"(?<!\d)(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})(?!\d)")
_TOKEN = re.compile(r"(\d+)(?:st|nd|rd|th|er|re|e|º|ª)?\b\.?|([^\W\d_]+\.?)|(\S)")


@lru_cache(maxsize=256)
def get_zone(name: str | None) -> tzinfo | None:
    """The ``ZoneInfo`` for an IANA name (cached), or ``None`` for no or an unknown name.

    >>> get_zone("Europe/Berlin")
    zoneinfo.ZoneInfo(key='Europe/Berlin')
    >>> get_zone("Mars/Olympus") is None
    True
    """
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        return None


def _offset(text: str | None) -> tzinfo | None:
    if not text:
        return None
    if text in "Zz" or text.casefold() in ("utc", "gmt"):
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
    if hours > 18 or minutes > 59:
        raise ValueError(f"offset {text} out of range")
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def _precision(frac: str | None) -> int:
    """Digits of a fraction of a second worth writing: 0 (none or all zeros), 3 or 6."""
    if not frac or not frac.strip("0"):
        return 0
    return 3 if len(frac) <= 3 else 6


def _timespec(precision: int) -> str:
    return {0: "seconds", 3: "milliseconds"}.get(precision, "microseconds")


def _fraction(text: str | None) -> int:
    return int((text or "0")[:6].ljust(6, "0"))


def _finish(
    d: date, t: time | None, zone: tzinfo | None, precision: int, tz_name: str | None
) -> Normalized:
    spec = _timespec(precision)
    if t is None:
        iso = d.isoformat()
        if zone is not None:  # an XSD date with a zone: keep it
            offset = datetime.combine(d, time(), zone).isoformat()[19:]
            iso += offset
        return Normalized(iso)
    dt = datetime.combine(d, t)
    if zone is not None:
        return Normalized(dt.replace(tzinfo=zone).isoformat(timespec=spec))
    site = get_zone(tz_name)
    if site is None:
        why = f"unknown time zone {tz_name!r}" if tz_name else "no site time zone configured"
        return Normalized(
            dt.isoformat(timespec=spec),
            (Flag("date-no-timezone", f"local time kept without offset ({why})"),),
        )
    local = dt.replace(tzinfo=site)
    out = local.isoformat(timespec=spec)
    if local.utcoffset() != dt.replace(tzinfo=site, fold=1).utcoffset():
        return Normalized(
            out,
            (Flag("date-dst-ambiguous", f"{dt} is ambiguous or skipped in {tz_name}"),),
        )
    return Normalized(out)


def _from_parts(raw: Any, parts: tuple[str | None, ...], tz_name: str | None) -> Normalized:
    y, mo, d, h, mi, s, frac, off = parts
    try:
        day = date(int(y or 0), int(mo or 0), int(d or 0))
        t = None
        if h is not None:
            t = time(int(h), int(mi or 0), int(s or 0), _fraction(frac))
        zone = _offset(off)
    except ValueError as exc:
        return flagged(raw, "date-invalid", f"not a real date or time: {exc}")
    return _finish(day, t, zone, _precision(frac), tz_name)


def normalize_date(
    value: Any, *, timezone: str | None = None, language: str | None = None
) -> Normalized:
    """ISO 8601 for a date or date-time value; see the module docstring for the rules.

    >>> normalize_date("2026-02-03T07:30:00-08:00").value
    '2026-02-03T07:30:00-08:00'
    >>> normalize_date("2026-03-21T10:00", timezone="Europe/Berlin").value
    '2026-03-21T10:00:00+01:00'
    >>> normalize_date("14. März 2026", language="de").value
    '2026-03-14'
    >>> [f.code for f in normalize_date("03/04/2025").flags]
    ['date-ambiguous']
    """
    if not isinstance(value, str):
        return flagged(value, "date-unparsed", f"not a date string: {type(value).__name__}")
    text = value.strip()
    m = _ISO.fullmatch(text) or _ISO_BASIC.fullmatch(text)
    if m:
        return _from_parts(value, m.groups(), timezone)
    m = _REDUCED.fullmatch(text)
    if m:
        if m.group(2) and not 1 <= int(m.group(2)) <= 12:
            return flagged(value, "date-invalid", f"no month {m.group(2)}")
        return Normalized(text)
    m = _TIME_ONLY.fullmatch(text)
    if m:
        h, mi, s, frac, off = m.groups()
        try:
            t = time(int(h), int(mi), int(s or 0), _fraction(frac), tzinfo=_offset(off))
        except ValueError as exc:
            return flagged(value, "date-invalid", f"not a real time: {exc}")
        spec = _timespec(_precision(frac))
        return Normalized(t.isoformat(timespec=spec))
    if not text:
        return flagged(value, "date-unparsed", "empty")
    if _RFC2822.fullmatch(text):
        try:
            dt = parsedate_to_datetime(text)
        except (ValueError, TypeError, IndexError):
            return flagged(value, "date-unparsed", "not a valid RFC 2822 date")
        return _finish(dt.date(), dt.time(), dt.tzinfo, 0, timezone)
    return _parse_local(value, text, language, timezone)


def _parse_local(raw: Any, text: str, language: str | None, tz_name: str | None) -> Normalized:
    """Human forms: a month name or a numeric date, maybe a time, nothing else unexplained."""
    clock: tuple[str | None, ...] = (None, None, None, None)
    rest = text
    m = _TIME_IN_TEXT.search(text)
    if m:
        h, mi, s, ampm, off = m.groups()
        if ampm:
            hour = int(h)
            if not 1 <= hour <= 12:
                return flagged(raw, "date-invalid", f"{h} is not a 12-hour clock hour")
            h = str(hour % 12 + (12 if ampm.casefold() == "p" else 0))
        clock = (h, mi, s, off)
        rest = f"{text[: m.start()]} {text[m.end() :]}"
    numbers: list[str] = []
    months: list[int] = []
    numeric = _NUMERIC_DATE.search(rest)
    if numeric:
        rest = f"{rest[: numeric.start()]} {rest[numeric.end() :]}"
    for num, word, _punct in _TOKEN.findall(rest):
        if num:
            numbers.append(num)
        elif word:
            month = month_number(word, language)
            if month is not None:
                months.append(month)
            elif not is_filler(word, language):
                return flagged(raw, "date-unparsed", f"unrecognised word {word!r}")
    if numeric:
        if numbers or months:
            return flagged(raw, "date-unparsed", "more than one date")
        ymd = _numeric_order(numeric.group(1), numeric.group(3), numeric.group(4), language)
        if isinstance(ymd, Flag):
            return Normalized(raw, (ymd,))
    elif len(months) == 1 and len(numbers) == 2:
        years = [n for n in numbers if len(n) == 4]
        if len(years) != 1:
            return flagged(raw, "date-ambiguous", "no four-digit year")
        day = numbers[1] if numbers[0] == years[0] else numbers[0]
        ymd = (years[0], str(months[0]), day)
    else:
        return flagged(raw, "date-unparsed", "not a recognised date form")
    h, mi, s, off = clock
    return _from_parts(raw, (*ymd, h, mi, s, None, off), tz_name)


def _numeric_order(a: str, b: str, c: str, language: str | None) -> tuple[str, str, str] | Flag:
    if len(a) == 4:
        return a, b, c  # 2025/04/03: year first is always year-month-day
    if len(c) != 4:
        return Flag("date-ambiguous", "no four-digit year")
    order = day_month_order(language)
    if order == "DM":
        return c, b, a
    if order == "MD":
        return c, a, b
    valid = set()
    for day, month in ((a, b), (b, a)):
        try:
            valid.add(date(int(c), int(month), int(day)))
        except ValueError:
            continue
    if len(valid) == 1:
        found = valid.pop()
        return str(found.year), str(found.month), str(found.day)
    if not valid:
        return Flag("date-invalid", f"no valid date in {a}/{b}/{c}")
    return Flag(
        "date-ambiguous",
        f"day/month order of {a}/{b}/{c} unknown for language {language or 'unset'}",
    )
