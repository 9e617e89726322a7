"""The pieces of the report page (pure): escaping, numbers as a reader writes them, tables and
inline SVG bar charts.

>>> num(1234567), num(0.123456), num(12.3456), num(-0.4), num(3.0), num(None), num("x")
('1,234,567', '0.1235', '12.35', '-0.4', '3', '–', 'x')
>>> percent(0.1234), seconds(0.0058213), seconds(5.3), seconds(3725.4)
('12.3%', '0.006 s', '5.3 s', '1 h 2 min 5 s')
>>> when("2026-12-02 19:51:15.200320+00:00"), when("yesterday")
('2026-12-02 19:51:15 UTC', 'yesterday')
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["bars", "e", "num", "percent", "seconds", "table", "when"]


def e(value: Any) -> str:
    return html.escape(str(value))


def num(value: Any) -> str:
    """A count with thousands separators; a fraction to four significant digits at most."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if abs(value) >= 1000 or (value.is_integer() and value):
            return f"{value:,.0f}"
        if abs(value) >= 1:
            return f"{value:.2f}".rstrip("0").rstrip(".")
        return f"{value:.4g}"
    return str(value)


def percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def seconds(value: float | None) -> str:
    """Seconds: to the millisecond under one, to the tenth under a minute, then minutes."""
    if value is None:
        return "–"
    if abs(value) < 1:
        return f"{value:.3f} s"
    if abs(value) < 60:
        return f"{value:.1f} s"
    minutes, rest = divmod(round(value), 60)
    hours, minutes = divmod(minutes, 60)
    return (f"{hours} h " if hours else "") + f"{minutes} min {rest} s"


_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.\d+)?(\+00:00|Z)?$")


def when(value: Any) -> str:
    """A time stamp to the second (``UTC`` for a UTC offset); other text as it is."""
    found = _STAMP.match(str(value))
    if not found:
        return str(value)
    day, clock, utc = found.groups()
    return f"{day} {clock}" + (" UTC" if utc else "")


def bars(data: Mapping[str, float], *, as_percent: bool = False, color: str = "#2f5d50") -> str:
    """A horizontal bar chart as inline SVG, largest first (at most 30 bars)."""
    if not data:
        return "<p><em>none</em></p>"
    items = sorted(data.items(), key=lambda kv: (-kv[1], kv[0]))[:30]
    top = max((v for _, v in items), default=0) or 1
    scale = 1.0 if as_percent else top
    row, label_w, bar_w = 20, 280, 520
    parts = [f'<svg width="{label_w + bar_w + 90}" height="{row * len(items) + 6}" role="img">']
    for i, (label, value) in enumerate(items):
        y = i * row + 4
        width = max(1.0, bar_w * value / scale) if value else 0
        shown = percent(value) if as_percent else num(value)
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end">{e(label)[:44]}</text>'
            f'<rect x="{label_w}" y="{y}" width="{width:.1f}" height="{row - 6}" fill="{color}">'
            f"<title>{e(label)}: {shown}</title></rect>"
            f'<text x="{label_w + width + 6:.1f}" y="{y + 13}">{shown}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def table(rows: list[list[Any]], head: list[str]) -> str:
    """A table of already escaped cells; numbers are formatted with :func:`num`."""

    def cell(value: Any) -> str:
        return num(value) if isinstance(value, int | float) or value is None else str(value)

    body = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in r) + "</tr>" for r in rows)
    return "<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + f"</tr>{body}</table>"
