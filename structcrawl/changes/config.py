"""Settings of change detection and incremental crawls (:mod:`structcrawl.changes`): the
``STRUCTCRAWL_CHANGE*`` and ``STRUCTCRAWL_INCREMENTAL*`` settings, with their defaults and
documentation (gathered into :data:`structcrawl.crawl.config.DEFAULTS`), and the frozen
:class:`ChangeConfig` that reads them once.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from structcrawl.core.setting import Setting, csv_setting, setting_value

__all__ = ["SETTINGS", "ChangeConfig"]

#: incremental crawls and change detection (structcrawl.changes)
SETTINGS: dict[str, Setting] = {
    "STRUCTCRAWL_INCREMENTAL": Setting(
        False,
        "Re-crawl with HTTP validators: turns on Scrapy's HTTP cache (RFC 2616 policy, "
        "HTTPCACHE_DIR beside the change store) so pages are re-fetched conditionally and "
        "a 304 reuses the cached body.",
    ),
    "STRUCTCRAWL_INCREMENTAL_ALWAYS_REVALIDATE": Setting(
        True,
        "Ask the server about every cached page each run (a conditional request); off = "
        "pages the cache deems fresh (max-age, Expires, heuristics) are not requested.",
    ),
    "STRUCTCRAWL_CHANGES_ENABLED": Setting(
        True,
        "Compare every entity with the previous finished run (change: new, changed, "
        "unchanged, gone).",
    ),
    "STRUCTCRAWL_CHANGE_STORE": Setting(
        "output/state/changes.sqlite",
        "SQLite file (a path or file:// URI) keeping entity fingerprints between runs "
        "(never reset).",
    ),
    "STRUCTCRAWL_CHANGE_SCOPE": Setting(
        None,
        "Which runs compare with each other; None = the spider's name and allowed domains.",
    ),
    "STRUCTCRAWL_CHANGE_IGNORE_FIELDS": Setting(
        [],
        "Dotted entity fields (fnmatch patterns, e.g. '*.dateModified') that never count "
        "as a change.",
    ),
}


def _get(settings: Any, name: str) -> Any:
    return setting_value(settings, SETTINGS, name)


@dataclass(frozen=True, slots=True)
class ChangeConfig:
    """Settings of :mod:`structcrawl.changes` (change detection and incremental crawls)."""

    enabled: bool
    store_path: str
    scope: str | None
    ignore_fields: tuple[str, ...]
    incremental: bool
    always_revalidate: bool

    @classmethod
    def from_settings(cls, settings: Any) -> ChangeConfig:
        scope = _get(settings, "STRUCTCRAWL_CHANGE_SCOPE")
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_CHANGES_ENABLED", True)),
            store_path=str(_get(settings, "STRUCTCRAWL_CHANGE_STORE")),
            scope=str(scope) if scope else None,
            ignore_fields=csv_setting(_get(settings, "STRUCTCRAWL_CHANGE_IGNORE_FIELDS")),
            incremental=bool(settings.getbool("STRUCTCRAWL_INCREMENTAL", False)),
            always_revalidate=bool(
                settings.getbool("STRUCTCRAWL_INCREMENTAL_ALWAYS_REVALIDATE", True)
            ),
        )

    @property
    def httpcache_dir(self) -> str:
        """Where the HTTP cache goes unless ``HTTPCACHE_DIR`` is set: beside the change store.

        >>> ChangeConfig(True, "/s/changes.sqlite", None, (), True, True).httpcache_dir
        '/s/httpcache'
        """
        return str(Path(self.store_path).absolute().parent / "httpcache")
