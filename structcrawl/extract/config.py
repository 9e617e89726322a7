"""Settings of extraction: ``STRUCTCRAWL_EXTRACT_ENABLED`` and ``STRUCTCRAWL_SYNTAXES``, with
their defaults and documentation (gathered into :data:`structcrawl.crawl.config.DEFAULTS`), and
the frozen :class:`ExtractConfig` that reads them once (the extraction pipeline, the render
handler's captured JSON).

Pure module: no Scrapy imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from structcrawl.core.setting import Setting, setting_value
from structcrawl.extract import parse_syntaxes

__all__ = ["SETTINGS", "ExtractConfig"]

SETTINGS: dict[str, Setting] = {
    "STRUCTCRAWL_EXTRACT_ENABLED": Setting(True, "Run semantic extraction in the item pipeline."),
    "STRUCTCRAWL_SYNTAXES": Setting(
        "json-ld,microdata,rdfa,opengraph,dublincore,microformats,data-block",
        "Comma-separated layers to extract (opengraph includes Twitter cards).",
    ),
}


@dataclass(frozen=True, slots=True)
class ExtractConfig:
    enabled: bool
    syntaxes: tuple[str, ...]

    @classmethod
    def from_settings(cls, settings: Any) -> ExtractConfig:
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_EXTRACT_ENABLED", True)),
            syntaxes=parse_syntaxes(setting_value(settings, SETTINGS, "STRUCTCRAWL_SYNTAXES")),
        )
