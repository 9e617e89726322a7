"""What every feed exporter shares: which items a feed is about, line flushing, the
fast JSON-lines writer."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import orjson
from itemadapter import ItemAdapter
from scrapy.exporters import JsonLinesItemExporter

logger = logging.getLogger(__name__)


def _is_page(item: Any) -> bool:
    return "records" in ItemAdapter(item).field_names()


def _is_entity(item: Any) -> bool:
    return "conflicts" in ItemAdapter(item).field_names()


#: Change statuses the ``entities-delta`` feed writes.
DELTA_STATUSES = frozenset({"new", "changed", "gone"})


def _change_status(item: Any) -> str | None:
    change = ItemAdapter(item).get("change")
    return change.get("status") if isinstance(change, dict) else None


def _is_current_entity(item: Any) -> bool:
    """An entity this run saw (not one reported ``gone``)."""
    return _is_entity(item) and _change_status(item) != "gone"


def _flush(stream: Any) -> None:
    """Hand the lines written so far to the operating system (a killed process keeps them)."""
    flush = getattr(stream, "flush", None)
    if flush is not None:
        flush()


# Fast JSON lines (orjson), the same documents as the standard library's encoder writes with
# FEED_EXPORT_ENCODING=utf-8 (no ASCII escaping), in compact form. Types orjson does not know
# (and datetimes, dataclasses) go through Scrapy's encoder's ``default``; a value orjson refuses
# (an integer beyond 64 bits, a lone surrogate) falls back to the standard library's encoder
# for that line, so nothing that was written before is lost.
_ORJSON_OPTIONS = (
    orjson.OPT_APPEND_NEWLINE
    | orjson.OPT_NON_STR_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)


class FastJsonLinesExporter(JsonLinesItemExporter):
    """JSON lines written with orjson (``_line(obj)``: one encoded line, newline included).
    ``lines``: how many lines it wrote (the feed's one log line says it, crawl/feedlog.py)."""

    lines: int = 0

    def __init__(self, file: Any, **kwargs: Any):
        super().__init__(file, **kwargs)
        encoding = (self.encoding or "").lower().replace("_", "-")
        self._fast = (
            encoding in ("utf-8", "utf8")
            and not self.encoder.ensure_ascii
            and self.encoder.indent is None
            and not self.encoder.sort_keys
        )

    def _default(self, value: Any) -> Any:
        if isinstance(value, Mapping):  # e.g. lazily computed visible facts
            return dict(value)
        return self.encoder.default(value)

    def _line(self, obj: Any) -> bytes:
        if self._fast:
            try:
                return orjson.dumps(obj, default=self._default, option=_ORJSON_OPTIONS)
            except (orjson.JSONEncodeError, TypeError):
                pass
        return self.encoder.encode(obj).encode("utf-8") + b"\n"

    def export_item(self, item: Any) -> None:
        self.file.write(self._line(dict(self.get_serialized_fields(item))))
        self.lines += 1
