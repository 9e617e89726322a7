"""Cron expressions (five fields) matched against wall-clock minutes (pure).

    minute  hour  day-of-month  month  day-of-week
    0-59    0-23  1-31          1-12   0-7 (0 and 7 are Sunday)

A field is ``*``, a number, a range ``a-b``, a step ``*/n``, ``a-b/n`` or ``a/n`` (``a`` up to the
field's maximum), or a comma-separated list of these. Months and weekdays also take English
names (``jan``, ``mon-fri``). As in Vixie cron, when both day fields are restricted (neither
starts with ``*``) a day matches when either does: ``0 0 1,15 * mon`` runs on the 1st, the 15th
and every Monday. Macros: ``@yearly`` (``@annually``), ``@monthly``, ``@weekly``, ``@daily``
(``@midnight``), ``@hourly``.

Times are naive wall-clock datetimes; :mod:`structcrawl.ops.schedule` maps them to instants in
the schedule's time zone. Bad expressions return an error message, never raise.

>>> spec, error = parse_cron("*/15 9-17 * * mon-fri")
>>> error is None and spec.matches(datetime(2026, 11, 30, 9, 45))  # a Monday
True
>>> spec.next_after(datetime(2026, 11, 27, 17, 50))  # Friday evening: Monday 09:00
datetime.datetime(2026, 11, 30, 9, 0)
>>> parse_cron("61 * * * *")
(None, 'minute: 61 is out of range 0-59')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["CronSpec", "parse_cron"]

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
# name, lowest, highest, names (index + offset = value)
_FIELDS: tuple[tuple[str, int, int, tuple[str, ...], int], ...] = (
    ("minute", 0, 59, (), 0),
    ("hour", 0, 23, (), 0),
    ("day of month", 1, 31, (), 0),
    ("month", 1, 12, _MONTHS, 1),
    ("day of week", 0, 7, _DAYS, 0),
)
_NUMBER = re.compile(r"[0-9]+")
# Feb 29 with any weekday recurs within 8 years (2096 -> 2104); past that it never matches.
_HORIZON = timedelta(days=9 * 366)


@dataclass(frozen=True, slots=True)
class CronSpec:
    """A parsed expression: the allowed values of each field (weekdays 0-6, Sunday = 0)."""

    expr: str
    minutes: tuple[int, ...]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    day_star: bool
    weekday_star: bool

    def day_matches(self, when: datetime) -> bool:
        dom = when.day in self.days
        dow = when.isoweekday() % 7 in self.weekdays
        if self.day_star or self.weekday_star:
            return dom and dow
        return dom or dow

    def matches(self, when: datetime) -> bool:
        """Whether the minute of ``when`` is one of the expression's.

        >>> parse_cron("0 0 1,15 * mon")[0].matches(datetime(2026, 11, 30, 0, 0))  # a Monday
        True
        """
        return (
            when.minute in self.minutes
            and when.hour in self.hours
            and when.month in self.months
            and self.day_matches(when)
        )

    def next_after(self, when: datetime) -> datetime | None:
        """The first matching minute strictly after the minute of ``when`` (None: never, e.g.
        ``0 0 31 2 *``).

        >>> parse_cron("0 0 29 2 *")[0].next_after(datetime(2096, 3, 1))
        datetime.datetime(2104, 2, 29, 0, 0)
        """
        t = when.replace(second=0, microsecond=0) + timedelta(minutes=1)
        end = t + _HORIZON
        while t <= end:
            if t.month not in self.months:
                t = _first_of_next_month(t)
            elif not self.day_matches(t):
                t = datetime(t.year, t.month, t.day) + timedelta(days=1)
            elif t.hour not in self.hours:
                t = t.replace(minute=0) + timedelta(hours=1)
            else:
                minute = next((m for m in self.minutes if m >= t.minute), None)
                if minute is None:
                    t = t.replace(minute=0) + timedelta(hours=1)
                else:
                    return t.replace(minute=minute)
        return None

    def between(self, start: datetime, end: datetime) -> list[datetime]:
        """Matching minutes ``m`` with ``start <= m <= end`` (minutes of both), in order.

        >>> [t.minute for t in parse_cron("*/20 * * * *")[0].between(
        ...     datetime(2026, 1, 1, 0, 0), datetime(2026, 1, 1, 0, 59))]
        [0, 20, 40]
        """
        out: list[datetime] = []
        start = start.replace(second=0, microsecond=0)
        t: datetime | None = start if self.matches(start) else self.next_after(start)
        while t is not None and t <= end:
            out.append(t)
            t = self.next_after(t)
        return out


def _first_of_next_month(t: datetime) -> datetime:
    return datetime(t.year + (t.month == 12), t.month % 12 + 1, 1)


def _value(text: str, field: int) -> tuple[int | None, str | None]:
    name, lo, hi, names, offset = _FIELDS[field]
    low = text.lower()
    if names and low in names:
        return names.index(low) + offset, None
    if not _NUMBER.fullmatch(text):
        return None, f"{name}: {text!r} is not a number" + (
            f" or a name ({names[0]}, {names[1]}, ...)" if names else ""
        )
    value = int(text)
    if not lo <= value <= hi:
        return None, f"{name}: {value} is out of range {lo}-{hi}"
    return value, None


def _parse_part(part: str, field: int) -> tuple[range | None, str | None]:
    name, lo, hi, _, _ = _FIELDS[field]
    top = 6 if field == 4 else hi  # `*` and `a/n` weekdays stop at Saturday (7 is Sunday again)
    base, slash, step_text = part.partition("/")
    step = 1
    if slash:
        if not _NUMBER.fullmatch(step_text) or int(step_text) == 0:
            return None, f"{name}: step {step_text!r} must be a positive number"
        step = int(step_text)
    if base == "*":
        return range(lo, top + 1, step), None
    first_text, dash, last_text = base.partition("-")
    first, error = _value(first_text, field)
    if first is None:
        return None, error
    last = top if slash else first
    if dash:
        end, error = _value(last_text, field)
        if end is None:
            return None, error
        last = end
    if last < first:
        return None, f"{name}: range {base!r} runs backwards"
    return range(first, last + 1, step), None


def _parse_field(text: str, field: int) -> tuple[frozenset[int] | None, str | None]:
    values: set[int] = set()
    for part in text.split(","):
        if not part:
            return None, f"{_FIELDS[field][0]}: empty item in {text!r}"
        numbers, error = _parse_part(part, field)
        if numbers is None:
            return None, error
        values.update(numbers)
    if field == 4 and 7 in values:  # Sunday is 0 and 7
        values = (values - {7}) | {0}
    return frozenset(values), None


def parse_cron(expr: str) -> tuple[CronSpec | None, str | None]:
    """``(spec, None)``, or ``(None, reason)`` when ``expr`` is not a valid expression.

    >>> parse_cron("0 12 * *")
    (None, 'a cron expression has 5 fields (minute hour day-of-month month day-of-week), got 4')
    >>> parse_cron("@weekly")[0].weekdays
    frozenset({0})
    """
    if not isinstance(expr, str):
        return None, f"a cron expression is a string, got {type(expr).__name__}"
    text = _MACROS.get(expr.strip().lower(), expr)
    if text.strip().startswith("@"):
        return None, f"unknown macro {expr.strip()!r} (known: {', '.join(sorted(_MACROS))})"
    fields = text.split()
    if len(fields) != 5:
        return None, (
            "a cron expression has 5 fields (minute hour day-of-month month day-of-week), "
            f"got {len(fields)}"
        )
    parsed: list[frozenset[int]] = []
    for index, field_text in enumerate(fields):
        values, error = _parse_field(field_text, index)
        if values is None:
            return None, error
        parsed.append(values)
    minutes, hours, days, months, weekdays = parsed
    return (
        CronSpec(
            expr=expr.strip(),
            minutes=tuple(sorted(minutes)),
            hours=hours,
            days=days,
            months=months,
            weekdays=weekdays,
            day_star=fields[2].startswith("*"),
            weekday_star=fields[4].startswith("*"),
        ),
        None,
    )
