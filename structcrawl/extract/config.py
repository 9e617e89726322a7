"""Settings of extraction: ``STRUCTCRAWL_EXTRACT_ENABLED``, ``STRUCTCRAWL_SYNTAXES``,
``STRUCTCRAWL_MICRODATA_MODE``, ``STRUCTCRAWL_JSONLD_REPAIRS`` and the per-page budget
(``STRUCTCRAWL_PAGE_MAX_*``, :class:`structcrawl.core.bounded.PageBudget`), with their defaults and
documentation (gathered into :data:`structcrawl.crawl.config.DEFAULTS`), and
the frozen :class:`ExtractConfig` that reads them once (the extraction pipeline, the render
handler's captured JSON).

Pure module: no Scrapy imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from structcrawl.core.bounded import PageBudget
from structcrawl.core.setting import Setting, setting_value
from structcrawl.extract import parse_syntaxes
from structcrawl.extract.options import DEFAULT_OPTIONS, ExtractOptions

__all__ = ["SETTINGS", "ExtractConfig"]

SETTINGS: dict[str, Setting] = {
    "STRUCTCRAWL_EXTRACT_ENABLED": Setting(True, "Run semantic extraction in the item pipeline."),
    "STRUCTCRAWL_SYNTAXES": Setting(
        "json-ld,microdata,rdfa,opengraph,dublincore,microformats,data-block",
        "Comma-separated layers to extract (opengraph includes Twitter cards).",
    ),
    # how layers read what publishers wrote (structcrawl.extract.options)
    "STRUCTCRAWL_MICRODATA_MODE": Setting(
        "practical",
        "Microdata reading: practical (content= on any itemprop element gives the value; "
        "an itemscope+itemprop inside no item is still an item) or strict (WHATWG text).",
    ),
    "STRUCTCRAWL_JSONLD_REPAIRS": Setting(
        "safe",
        "JSON-LD repairs: none, safe (only repairs that cannot change meaning: trailing "
        "commas, control characters, a BOM, comments) or all (also split concatenated "
        "values, unescape HTML entities).",
    ),
    # one page's share of the output (structcrawl.core.bounded): past it, a page-budget record
    "STRUCTCRAWL_PAGE_MAX_RECORDS": Setting(
        5_000, "Records one page may add (entities, errors, skips); the rest are cut."
    ),
    "STRUCTCRAWL_PAGE_MAX_PROPERTIES": Setting(
        1_000, "Properties one record may keep (a nested record counts its own)."
    ),
    "STRUCTCRAWL_PAGE_MAX_WARNINGS": Setting(200, "Warning records one page may add."),
}


@dataclass(frozen=True, slots=True)
class ExtractConfig:
    enabled: bool
    syntaxes: tuple[str, ...]
    options: ExtractOptions = DEFAULT_OPTIONS
    budget: PageBudget = PageBudget()

    @classmethod
    def from_settings(cls, settings: Any) -> ExtractConfig:
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_EXTRACT_ENABLED", True)),
            syntaxes=parse_syntaxes(setting_value(settings, SETTINGS, "STRUCTCRAWL_SYNTAXES")),
            options=ExtractOptions(
                microdata_mode=str(setting_value(settings, SETTINGS, "STRUCTCRAWL_MICRODATA_MODE")),
                jsonld_repairs=str(setting_value(settings, SETTINGS, "STRUCTCRAWL_JSONLD_REPAIRS")),
            ),
            budget=PageBudget(
                max_records=int(setting_value(settings, SETTINGS, "STRUCTCRAWL_PAGE_MAX_RECORDS")),
                max_properties=int(
                    setting_value(settings, SETTINGS, "STRUCTCRAWL_PAGE_MAX_PROPERTIES")
                ),
                max_warnings=int(
                    setting_value(settings, SETTINGS, "STRUCTCRAWL_PAGE_MAX_WARNINGS")
                ),
            ),
        )
