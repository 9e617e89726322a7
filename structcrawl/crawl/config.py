"""Every ``STRUCTCRAWL_*`` setting, its default and its documentation, in one place.

Components read their settings once, through frozen config objects, in ``from_crawler``: the
crawl shell's are below; a package below the shell keeps its own table and config beside its
code (:mod:`structcrawl.extract.config`, :mod:`structcrawl.render.config`,
:mod:`structcrawl.changes.config`, :mod:`structcrawl.validate.config`), as do the feed storages
(:mod:`structcrawl.crawl.feedconfig`), gathered here, so ``from structcrawl.crawl.config import
X`` finds every one. :class:`structcrawl.Addon` sets every default of :data:`DEFAULTS` at add-on
priority, and the manual's settings page (docs/settings.md) is generated from it
(``python -m structcrawl.dev.settingsdoc``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from structcrawl.changes.config import SETTINGS as CHANGE_SETTINGS
from structcrawl.changes.config import ChangeConfig
from structcrawl.core.hosts import host_matches
from structcrawl.core.setting import Setting
from structcrawl.crawl.feedconfig import SETTINGS as FEED_STORAGE_SETTINGS
from structcrawl.crawl.feedconfig import FeedConfig
from structcrawl.crawl.feedformats import SETTINGS as FEED_SETTINGS
from structcrawl.entities.merge import DEFAULT_PRECEDENCE
from structcrawl.extract.config import SETTINGS as EXTRACT_SETTINGS
from structcrawl.extract.config import ExtractConfig
from structcrawl.render.config import SETTINGS as RENDER_SETTINGS
from structcrawl.render.config import RenderConfig
from structcrawl.validate.config import SETTINGS as VALIDATE_SETTINGS
from structcrawl.validate.config import ValidateConfig

__all__ = [
    "DEFAULTS",
    "BodyStoreConfig",
    "ChangeConfig",
    "ExtractConfig",
    "FeedConfig",
    "NormalizeConfig",
    "RenderConfig",
    "RulesConfig",
    "Setting",
    "ValidateConfig",
]


DEFAULTS: dict[str, Setting] = {
    **EXTRACT_SETTINGS,  # STRUCTCRAWL_EXTRACT_ENABLED, STRUCTCRAWL_SYNTAXES
    **FEED_SETTINGS,  # STRUCTCRAWL_PAGES_VISIBLE_FACTS
    "STRUCTCRAWL_BODY_STORE_ENABLED": Setting(True, "Keep raw response bodies in the body store."),
    "STRUCTCRAWL_BODY_STORE": Setting(
        "output/bodies", "Where raw bodies go: a path or file:// URI (compressed files by SHA-256)."
    ),
    "STRUCTCRAWL_BODY_STORE_COMPRESSION": Setting(
        "zstd",
        "How stored bodies are compressed: zstd (<sha256>.zst, ~3x faster than gzip, a sixth "
        "smaller) or gzip (<sha256>.gz); a store holding either is read.",
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
        None,
        "Directory (or file) of site rules (*.toml: extraction and render rules); None = no "
        "site rules (none ship). A missing or unreadable path stops the crawl.",
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
        list(DEFAULT_PRECEDENCE),
        "Layer precedence when sources disagree, highest first.",
    ),
    **FEED_STORAGE_SETTINGS,  # STRUCTCRAWL_FEED_RESCUE_DIR, STRUCTCRAWL_FEED_UPLOAD_TIMEOUT
    "STRUCTCRAWL_URL_CREDENTIALS": Setting(
        True,
        "Send the credentials of start URLs and sitemaps given as https://user:password@host/ "
        "as HTTP basic authentication to that host and port only; the URLs are stored and "
        "logged without them.",
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


# normalization (structcrawl.crawl.pipelines.normalization)
DEFAULTS.update(
    {
        "STRUCTCRAWL_NORMALIZE_ENABLED": Setting(
            True, "Normalize record values (dates, prices, URLs, enums, ids) and key entities."
        ),
        "STRUCTCRAWL_SITE_TIMEZONES": Setting(
            {},
            "IANA time zone per site for dates written without an offset, e.g. "
            "{'northwind.example': 'Europe/Berlin'}; a host matches exactly or as a suffix.",
        ),
        "STRUCTCRAWL_DEFAULT_TIMEZONE": Setting(
            None,
            "IANA time zone for sites not in STRUCTCRAWL_SITE_TIMEZONES; None = keep such "
            "dates local and flag them (never assume UTC).",
        ),
    }
)


# validation (structcrawl.crawl.pipelines.validation)
DEFAULTS.update(VALIDATE_SETTINGS)


def _get(settings: Any, name: str) -> Any:
    return settings.get(name, DEFAULTS[name].default)


@dataclass(frozen=True, slots=True)
class BodyStoreConfig:
    enabled: bool
    uri: str
    compression: str

    @classmethod
    def from_settings(cls, settings: Any) -> BodyStoreConfig:
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_BODY_STORE_ENABLED", True)),
            uri=str(_get(settings, "STRUCTCRAWL_BODY_STORE")),
            compression=str(_get(settings, "STRUCTCRAWL_BODY_STORE_COMPRESSION")).lower(),
        )


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """Settings of :class:`structcrawl.crawl.pipelines.selectors.SelectorPipeline`."""

    enabled: bool
    rules_dir: str | None

    @classmethod
    def from_settings(cls, settings: Any) -> RulesConfig:
        rules_dir = _get(settings, "STRUCTCRAWL_RULES_DIR")
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_RULES_ENABLED", True)),
            rules_dir=str(rules_dir) if rules_dir else None,
        )


def _zone_name(setting: str, value: Any) -> str:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    name = str(value).strip()
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"{setting}: {name!r} is not an IANA time zone") from exc
    return name


@dataclass(frozen=True, slots=True)
class NormalizeConfig:
    """Settings of :class:`structcrawl.crawl.pipelines.normalization.NormalizationPipeline`.

    ``site_timezones`` holds ``(host, zone)`` pairs, longest host first, so the most specific
    suffix wins. Unknown zone names are configuration mistakes: ``ValueError`` at start-up.
    """

    enabled: bool
    site_timezones: tuple[tuple[str, str], ...]
    default_timezone: str | None

    @classmethod
    def from_settings(cls, settings: Any) -> NormalizeConfig:
        raw = settings.getdict("STRUCTCRAWL_SITE_TIMEZONES") or {}
        pairs = {
            str(host).strip().lower().lstrip("."): _zone_name("STRUCTCRAWL_SITE_TIMEZONES", zone)
            for host, zone in raw.items()
        }
        default = _get(settings, "STRUCTCRAWL_DEFAULT_TIMEZONE")
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_NORMALIZE_ENABLED", True)),
            site_timezones=tuple(sorted(pairs.items(), key=lambda p: (-len(p[0]), p[0]))),
            default_timezone=(
                _zone_name("STRUCTCRAWL_DEFAULT_TIMEZONE", default) if default else None
            ),
        )

    def timezone_for(self, host: str | None, *, default: bool = True) -> str | None:
        """The zone of the longest configured host that ``host`` equals or ends with, else
        the default zone (or None with ``default=False``).

        >>> c = NormalizeConfig(True, (("shop.example", "Europe/Berlin"),), "UTC")
        >>> c.timezone_for("www.shop.example"), c.timezone_for("shop.example.org")
        ('Europe/Berlin', 'UTC')
        >>> c.timezone_for("shop.example.org", default=False) is None
        True
        """
        for suffix, zone in self.site_timezones:  # longest first
            if host and host_matches(host, suffix):
                return zone
        return self.default_timezone if default else None


# rendering (structcrawl.render: the download handler that escalates JS-only pages to a browser)
DEFAULTS.update(RENDER_SETTINGS)


# incremental crawls and change detection (structcrawl.changes)
DEFAULTS.update(CHANGE_SETTINGS)


# reliability: retries with backoff (structcrawl.crawl.middlewares) and the page ledger
# (structcrawl.ledger.extension)
DEFAULTS.update(
    {
        "STRUCTCRAWL_RETRY_BACKOFF_BASE": Setting(
            1.0, "Seconds before the first retry of a transient failure, doubled per retry."
        ),
        "STRUCTCRAWL_RETRY_BACKOFF_MAX": Setting(30.0, "Longest backoff before a retry, seconds."),
        "STRUCTCRAWL_RETRY_AFTER_MAX": Setting(
            60.0, "Longest Retry-After (429, 503) honoured, seconds; a longer one is not retried."
        ),
        "STRUCTCRAWL_LEDGER_ENABLED": Setting(
            True, "Account for every requested URL (the page ledger); a mismatch fails the crawl."
        ),
        "STRUCTCRAWL_LEDGER_FILE": Setting(
            None, "The ledger's JSON lines (one per URL); None = <REPORT_DIR>/ledger.jsonl."
        ),
        "STRUCTCRAWL_LEDGER_MAX_HTTP_ERRORS": Setting(
            0.5, "Share of fetched pages ending in HTTP 4xx/5xx past which the crawl fails."
        ),
    }
)


# distributed crawls: one crawl across several workers through Redis (structcrawl.distributed)
DEFAULTS.update(
    {
        "STRUCTCRAWL_REDIS_URL": Setting(
            None,
            "Redis server of a distributed crawl (redis://host:port/db); set, the workers share "
            "the request queue, duplicate filter, entity merge state and change state there.",
        ),
        "STRUCTCRAWL_CRAWL_ID": Setting(
            None,
            "Name of one distributed crawl, the same on every worker and new for each run "
            "(A-Za-z0-9._-); None = scrapyd's job id.",
        ),
        "STRUCTCRAWL_REDIS_HEARTBEAT": Setting(
            1.0, "Seconds between a worker's heartbeats (and its polls of the queue when idle)."
        ),
        "STRUCTCRAWL_REDIS_WORKER_TIMEOUT": Setting(
            60.0,
            "Seconds without a heartbeat after which a worker is presumed dead: the others stop "
            "waiting for it and requeue the requests it had claimed (at least 3 heartbeats).",
        ),
        "STRUCTCRAWL_REDIS_EXPIRE": Setting(
            7 * 86400,
            "Seconds a distributed crawl's Redis keys outlive its last activity (and its done "
            "marker its end).",
        ),
    }
)

# (structcrawl.crawl.challenges)
DEFAULTS.update(
    {
        "STRUCTCRAWL_CHALLENGE_ENABLED": Setting(
            True,
            "Recognise bot challenges (403/429/503 or content-less pages with a vendor's "
            "challenge markers): such a page is not retried, not rendered, and ends as a "
            "`challenge` error record.",
        ),
    }
)

# polite crawling (structcrawl.crawl.polite) and progress (structcrawl.crawl.progress)
DEFAULTS.update(
    {
        "STRUCTCRAWL_CRAWL_DELAY_MAX": Setting(
            30.0,
            "Longest robots.txt Crawl-delay honoured, seconds (a longer one is capped here).",
        ),
        "STRUCTCRAWL_PROGRESS_INTERVAL": Setting(
            30.0,
            "Seconds between progress lines in the log (pages done and queued, pages/s, "
            "records, errors, browser pages, ETA when a sitemap gave the total); 0 = off.",
        ),
        "STRUCTCRAWL_REPORT_SNAPSHOT_INTERVAL": Setting(
            300.0,
            "Seconds between report.json snapshots while the crawl runs (finish_reason null "
            "until the end); 0 = only the final report.",
        ),
    }
)


# speed (docs/speed.md)
DEFAULTS.update(
    {
        "STRUCTCRAWL_MMAP_THRESHOLD": Setting(
            131072,
            "Bytes from which the C allocator (glibc) serves a block from a mapping of its own, "
            "given back when freed, in the crawl and its worker processes: a crawl of large "
            "pages holds ~40 MB less (docs/speed.md); 0 = glibc's own policy.",
        ),
        "STRUCTCRAWL_GC_TUNING": Setting(
            True,
            "When the spider opens, freeze the start-up objects out of the garbage collector's "
            "way and collect the young generation every 50,000 allocations (not 700); the page "
            "workers do the same from their start, freezing again after importing a reader.",
        ),
    }
)

# typed items in the crawl (structcrawl.crawl.pipelines.typeditems)
DEFAULTS.update(
    {
        "STRUCTCRAWL_TYPED_ITEMS": Setting(
            None,
            "Build each page's typed items in the pipeline, while its parsed page is there "
            "(fallbacks checked against the visible page; item changes tracked when change "
            "detection is on); None = only when a feed of format items or items-csv is set.",
        ),
        "STRUCTCRAWL_ITEM_HISTORY_LIMIT": Setting(
            10,
            "Price and availability observations each line of the items feed carries as "
            "`history` (the latest; the change store keeps up to 100 per item); 0 = none.",
        ),
        "STRUCTCRAWL_ARTICLE_BODY": Setting(
            True,
            "Read the primary article's body from the page's main text (trafilatura) when its "
            "markup has no whole articleBody: about 15 ms per page, only where typed items are "
            "built (docs/speed.md); False = the markup's articleBody only (docs/items.md).",
        ),
        "STRUCTCRAWL_PAGE_WORKERS": Setting(
            1,
            "Worker processes beside the crawl's event loop, on another core, started with the "
            "first page: each HTML page is read whole there (parsed once, judged, its records "
            "extracted, its visible page and an article's main text read) before the crawl "
            "parses it, which it then does only for a reader the worker did not answer; a page "
            "that comes while they are busy is parsed in the crawl (50-75 MB each at its peak "
            "on large pages; docs/speed.md); 0 = every page read in the crawl's process.",
        ),
        "STRUCTCRAWL_ARTICLE_BODY_WORKERS": Setting(
            None,
            "Former name of STRUCTCRAWL_PAGE_WORKERS, still read: when set, its value is used.",
        ),
    }
)


# the frontier of a distributed crawl (structcrawl.distributed.frontier, .bloom; docs/scale.md)
DEFAULTS.update(
    {
        "STRUCTCRAWL_REDIS_QUEUE": Setting(
            "hosts",
            "Shared queue of a distributed crawl: `hosts` (a compact queue per host, the next "
            "host chosen by when it may be fetched; DOWNLOAD_DELAY, Crawl-delay, Retry-After and "
            "CONCURRENT_REQUESTS_PER_DOMAIN hold for all workers together, each live worker "
            "holding at most its share of a host's slots; measured by make bench-frontier) or "
            "`priority` (one sorted set by priority, politeness per worker).",
        ),
        "STRUCTCRAWL_REDIS_DUPEFILTER": Setting(
            "bloom",
            "Shared duplicate filter: `bloom` (a Bloom filter in Redis bitmaps, about 1.8 bytes "
            "per URL at 0.1%) or `set` (scrapy-redis's exact set of fingerprints, about 100).",
        ),
        "STRUCTCRAWL_REDIS_EXPECTED_URLS": Setting(
            10_000_000,
            "URLs the Bloom filter is sized for (its false-positive rate rises past them); the "
            "first worker's size is kept for the whole crawl.",
        ),
        "STRUCTCRAWL_REDIS_BLOOM_ERROR_RATE": Setting(
            0.001,
            "False-positive rate of the Bloom filter at STRUCTCRAWL_REDIS_EXPECTED_URLS (a new "
            "URL refused as seen).",
        ),
        "STRUCTCRAWL_REDIS_BLOOM_SAMPLE": Setting(
            1024,
            "One new URL in this many is also kept exactly, so false positives are counted "
            "(structcrawl/distributed/bloom/false_positives of /bloom/sampled); 0 = none.",
        ),
    }
)
