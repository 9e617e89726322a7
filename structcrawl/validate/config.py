"""Settings of validation: ``STRUCTCRAWL_VALIDATE_ENABLED``, ``STRUCTCRAWL_VISIBLE_PAGE`` and
``STRUCTCRAWL_INVALID_FEED``, with their defaults and documentation (gathered into
:data:`structcrawl.crawl.config.DEFAULTS`), and the frozen :class:`ValidateConfig` that reads
them once (:class:`structcrawl.crawl.pipelines.validation.ValidationPipeline`).

Pure module: no Scrapy imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from structcrawl.core.setting import Setting, setting_value

__all__ = ["SETTINGS", "ValidateConfig"]

SETTINGS: dict[str, Setting] = {
    "STRUCTCRAWL_VALIDATE_ENABLED": Setting(
        True,
        "Validate entity records (per-type JSON Schemas, schema.org vocabulary) and check "
        "them against the visible page.",
    ),
    "STRUCTCRAWL_VISIBLE_PAGE": Setting(
        True,
        "Read what the page shows a reader: the records are checked against it "
        "(price-vs-visible, availability, old prices, bylines) and the typed items and "
        "entities take its fallbacks and overrules (a product without markup, a shown "
        "price or 'Sold out'); about two thirds of a large product page's work "
        "(docs/speed.md). False = schemas and vocabulary only, values from the markup "
        "alone (the main heading is still read to tell the page's own product).",
    ),
    "STRUCTCRAWL_INVALID_FEED": Setting(
        None,
        "FEEDS URI that receives the records whose validation.valid is false (they stay "
        "in the records feed too); None = no separate feed.",
    ),
}


@dataclass(frozen=True, slots=True)
class ValidateConfig:
    """Settings of :class:`structcrawl.crawl.pipelines.validation.ValidationPipeline`."""

    enabled: bool
    invalid_feed: str | None
    visible: bool = True  # STRUCTCRAWL_VISIBLE_PAGE: records checked against the visible page

    @classmethod
    def from_settings(cls, settings: Any) -> ValidateConfig:
        feed = setting_value(settings, SETTINGS, "STRUCTCRAWL_INVALID_FEED")
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_VALIDATE_ENABLED", True)),
            invalid_feed=str(feed) if feed else None,
            visible=bool(settings.getbool("STRUCTCRAWL_VISIBLE_PAGE", True)),
        )
