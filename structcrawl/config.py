"""Every ``STRUCTCRAWL_*`` setting, its default and its documentation, in one place.

Components read their settings once, through the frozen config objects below, in
``from_crawler``. ``structcrawl/settings.py`` (the Scrapy settings module) takes its defaults
from :data:`DEFAULTS`, and the README's settings table is checked against it by a test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from structcrawl.extract import parse_syntaxes

__all__ = ["DEFAULTS", "BodyStoreConfig", "ExtractConfig", "RulesConfig", "Setting"]


@dataclass(frozen=True, slots=True)
class Setting:
    default: Any
    doc: str


DEFAULTS: dict[str, Setting] = {
    "STRUCTCRAWL_EXTRACT_ENABLED": Setting(True, "Run semantic extraction in the item pipeline."),
    "STRUCTCRAWL_SYNTAXES": Setting(
        "json-ld,microdata,rdfa,opengraph,dublincore,microformats,data-block",
        "Comma-separated layers to extract (opengraph includes Twitter cards).",
    ),
    "STRUCTCRAWL_BODY_STORE_ENABLED": Setting(True, "Keep raw response bodies in the body store."),
    "STRUCTCRAWL_BODY_STORE": Setting(
        "output/bodies", "Where raw bodies go: a path or file:// URI (gzip files by SHA-256)."
    ),
    "STRUCTCRAWL_FOLLOW_DENY_EXTENSIONS": Setting(
        "png,jpg,jpeg,gif,webp,svg,ico,bmp,tif,tiff,mp3,mp4,m4a,ogg,wav,webm,avi,mov,mkv,"
        "zip,gz,tgz,bz2,xz,7z,rar,exe,dmg,iso,woff,woff2,ttf,otf,eot,css",
        "Link extensions the site spider does not follow (PDF, JSON and XML are followed so "
        "they are classified and accounted for).",
    ),
    "STRUCTCRAWL_RULES_ENABLED": Setting(
        True, "Apply site rules (selector fallback) and collect visible-page facts."
    ),
    "STRUCTCRAWL_RULES_DIR": Setting(
        None, "Directory of site rules files (*.toml); None = the packaged structcrawl/sites/."
    ),
    "STRUCTCRAWL_ENTITIES_ENABLED": Setting(
        True, "Merge entity sightings by key and emit one entity item per entity at the end."
    ),
    "STRUCTCRAWL_ENTITY_STORE": Setting(
        None,
        "SQLite file for entity merge state (default: <JOBDIR>/entities.sqlite, kept across a "
        "resumed job, else output/state/entities.sqlite, reset per crawl).",
    ),
    "STRUCTCRAWL_FORMAT_PRECEDENCE": Setting(
        [
            "json-ld",
            "microdata",
            "rdfa",
            "microformats",
            "opengraph",
            "network-json",
            "json",
            "data-block",
            "selector",
        ],
        "Layer precedence when sources disagree, highest first.",
    ),
    "STRUCTCRAWL_REPORT_ENABLED": Setting(True, "Write the quality report when the crawl ends."),
    "STRUCTCRAWL_REPORT_DIR": Setting(
        "output/report", "Where report.json and report.html are written."
    ),
    "STRUCTCRAWL_QUALITY_THRESHOLDS": Setting(
        {},
        "Quality thresholds, e.g. {'completeness:Product.name': 0.95, 'max_error_rate:Product':"
        " 0.1}; a missed one makes the crawl exit non-zero.",
    ),
}


def _get(settings: Any, name: str) -> Any:
    return settings.get(name, DEFAULTS[name].default)


@dataclass(frozen=True, slots=True)
class ExtractConfig:
    enabled: bool
    syntaxes: tuple[str, ...]

    @classmethod
    def from_settings(cls, settings: Any) -> ExtractConfig:
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_EXTRACT_ENABLED", True)),
            syntaxes=parse_syntaxes(_get(settings, "STRUCTCRAWL_SYNTAXES")),
        )


@dataclass(frozen=True, slots=True)
class BodyStoreConfig:
    enabled: bool
    uri: str

    @classmethod
    def from_settings(cls, settings: Any) -> BodyStoreConfig:
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_BODY_STORE_ENABLED", True)),
            uri=str(_get(settings, "STRUCTCRAWL_BODY_STORE")),
        )


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """Settings of :class:`structcrawl.pipelines.selectors.SelectorPipeline`."""

    enabled: bool
    rules_dir: str | None

    @classmethod
    def from_settings(cls, settings: Any) -> RulesConfig:
        rules_dir = _get(settings, "STRUCTCRAWL_RULES_DIR")
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_RULES_ENABLED", True)),
            rules_dir=str(rules_dir) if rules_dir else None,
        )
