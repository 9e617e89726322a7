"""Durations to ISO 8601 (``PT1H30M``).

ISO values are validated and written canonically: hours, minutes and seconds are carried
(``PT90M`` → ``PT1H30M``), never into days (a day is not always 24 hours); years, months,
weeks and days are kept as written; a zero duration is ``PT0S``. Plain text is read when each
number has a unit (``90 min`` → ``PT1H30M``, ``1 h 30 min``, ``1 Std. 30 Min.``, ``2 heures``);
``m`` is minutes only after an hour part (``1h 30m``), since ``30m`` alone may mean metres or
months. A number without unit (``90``) or a clock form (``1:30``: hours or minutes?) is flagged
``duration-ambiguous``; other text ``duration-unparsed``; malformed ISO ``duration-invalid``.
Open Graph ``video:duration`` / ``music:duration`` are whole seconds by definition.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from structcrawl.normalize._result import Normalized, flagged

__all__ = ["normalize_duration"]

_NUM = r"(\d+(?:[.,]\d+)?)"
_ISO = re.compile(
    rf"P(?:{_NUM}Y)?(?:{_NUM}M)?(?:{_NUM}W)?(?:{_NUM}D)?(?:T(?:{_NUM}H)?(?:{_NUM}M)?(?:{_NUM}S)?)?",
    re.I,
)
_PART = re.compile(r"(\d+(?:[.,]\d+)?)\s*([^\W\d_]+)\.?")
_CLOCK = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?")
_JOINERS = frozenset({"and", "und", "et", "y", "e", "en", "i", "og", "och"})
_UNITS: dict[str, str] = {}
for _unit, _words in {
    "D": "d day days tag tage tagen jour jours dia dias día días giorno giorni dag dagen",
    "H": "h hr hrs hour hours std stunde stunden heure heures hora horas ora ore uur timer",
    "M": "min mins minute minutes minuten minuto minutos minuti mn",
    "S": "s sec secs second seconds sek sekunde sekunden seconde secondes segundo segundos",
}.items():
    for _w in _words.split():
        _UNITS[_w] = _unit


def _dec(text: str) -> Decimal:
    return Decimal(text.replace(",", "."))


def _plain(d: Decimal) -> str:
    text = format(d.normalize(), "f")
    return text


def _canonical(date_parts: list[tuple[str, Decimal]], seconds: Decimal) -> str:
    out = "P" + "".join(f"{_plain(v)}{u}" for u, v in date_parts if v)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    clock = "".join(f"{_plain(v)}{u}" for u, v in (("H", hours), ("M", minutes), ("S", secs)) if v)
    if clock:
        out += "T" + clock
    return out if out != "P" else "PT0S"


def _from_seconds(value: Any) -> Normalized:
    text = str(value).strip() if isinstance(value, int | str) else ""
    if isinstance(value, bool) or not (text.isascii() and text.isdigit()):
        return flagged(value, "duration-invalid", f"{value!r} is not a whole number of seconds")
    return Normalized(_canonical([], Decimal(text)))


def normalize_duration(value: Any, *, seconds: bool = False) -> Normalized:
    """An ISO 8601 duration; ``seconds`` reads a bare number as seconds (Open Graph).

    >>> normalize_duration("PT90M").value, normalize_duration("90 min").value
    ('PT1H30M', 'PT1H30M')
    >>> normalize_duration("P1DT2H").value, normalize_duration("pt0m").value
    ('P1DT2H', 'PT0S')
    >>> [f.code for f in normalize_duration("1:30").flags]
    ['duration-ambiguous']
    """
    if seconds:
        return _from_seconds(value)
    if not isinstance(value, str):
        return flagged(value, "duration-ambiguous", f"{value!r}: a number without a unit")
    text = value.strip()
    m = _ISO.fullmatch(text)
    if m:
        y, mo, w, d, h, mi, s = m.groups()
        if text.upper() == "P" or text.upper().endswith("T"):
            return flagged(value, "duration-invalid", f"{text!r} has no components")
        total = _dec(h or "0") * 3600 + _dec(mi or "0") * 60 + _dec(s or "0")
        parts = [(u, _dec(v)) for u, v in (("Y", y), ("M", mo), ("W", w), ("D", d)) if v]
        return Normalized(_canonical(parts, total))
    if text.startswith(("P", "p", "-")):
        return flagged(value, "duration-invalid", f"{text!r} is not an ISO 8601 duration")
    return _parse_text(value, text)


def _parse_text(raw: Any, text: str) -> Normalized:
    if _CLOCK.fullmatch(text):
        return flagged(raw, "duration-ambiguous", f"{text!r}: hours:minutes or minutes:seconds?")
    try:
        _dec(text)
        return flagged(raw, "duration-ambiguous", f"{text!r}: a number without a unit")
    except InvalidOperation:
        pass
    days, secs = Decimal(0), Decimal(0)
    seen: set[str] = set()
    pos = 0
    for m in _PART.finditer(text):
        gap = text[pos : m.start()].replace(",", " ").replace("+", " ").split()
        if any(g.casefold() not in _JOINERS for g in gap):
            return flagged(raw, "duration-unparsed", f"unrecognised text in {text!r}")
        pos = m.end()
        word = m.group(2).casefold()
        unit = _UNITS.get(word)
        if word == "m" and "H" in seen:
            unit = "M"
        if unit is None or unit in seen:
            code = "duration-ambiguous" if word == "m" else "duration-unparsed"
            return flagged(raw, code, f"unit {m.group(2)!r} not understood in {text!r}")
        seen.add(unit)
        amount = _dec(m.group(1))
        if unit == "D":
            days += amount
        else:
            secs += amount * {"H": 3600, "M": 60, "S": 1}[unit]
    if not seen or text[pos:].strip(" .,"):
        return flagged(raw, "duration-unparsed", f"{text!r} is not a duration")
    return Normalized(_canonical([("D", days)] if days else [], secs))
