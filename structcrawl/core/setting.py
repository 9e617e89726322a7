"""One ``STRUCTCRAWL_*`` setting: its default and its line of documentation.

Each package that reads settings keeps the table of its own (``SETTINGS``, e.g.
:data:`structcrawl.render.config.SETTINGS`) beside the frozen config class that reads them;
:data:`structcrawl.crawl.config.DEFAULTS` gathers every table into the one list of settings
(the Scrapy settings module's defaults and the manual's settings table).

Pure module: no Scrapy imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Setting", "csv_setting", "setting_value"]


@dataclass(frozen=True, slots=True)
class Setting:
    default: Any
    doc: str


def setting_value(settings: Any, table: Mapping[str, Setting], name: str) -> Any:
    """``settings[name]``, else the default in ``table`` (Scrapy ``Settings`` or a mapping).

    >>> setting_value({}, {"X": Setting(3, "x")}, "X"), setting_value({"X": 4}, {}, "X")
    (3, 4)
    """
    default = table[name].default if name in table else None
    return settings.get(name, default)


def csv_setting(value: Any) -> tuple[str, ...]:
    """A comma-separated string or a list, as a tuple of its non-empty stripped items.

    >>> csv_setting(" a, b,,c "), csv_setting(["x", " "])
    (('a', 'b', 'c'), ('x',))
    """
    items = value.split(",") if isinstance(value, str) else list(value or ())
    return tuple(str(v).strip() for v in items if str(v).strip())
