"""Every ``STRUCTCRAWL_*`` setting, its default and its documentation, in one place.

Components read their settings once, through the frozen config objects below, in
``from_crawler``. :class:`structcrawl.Addon` sets every default of :data:`DEFAULTS` at add-on
priority, and the manual's settings page (docs/settings.md) is generated from it
(``python -m structcrawl.dev.settingsdoc``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from structcrawl.entities.merge import DEFAULT_PRECEDENCE
from structcrawl.extract import parse_syntaxes

__all__ = [
    "DEFAULTS",
    "BodyStoreConfig",
    "ChangeConfig",
    "ExtractConfig",
    "NormalizeConfig",
    "RenderConfig",
    "RulesConfig",
    "Setting",
    "ValidateConfig",
]


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
        list(DEFAULT_PRECEDENCE),
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
DEFAULTS.update(
    {
        "STRUCTCRAWL_VALIDATE_ENABLED": Setting(
            True,
            "Validate entity records (per-type JSON Schemas, schema.org vocabulary) and check "
            "them against the visible page.",
        ),
        "STRUCTCRAWL_INVALID_FEED": Setting(
            None,
            "FEEDS URI that receives the records whose validation.valid is false (they stay "
            "in the records feed too); None = no separate feed.",
        ),
    }
)


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
        host = (host or "").lower().rstrip(".")
        for suffix, zone in self.site_timezones:
            if host == suffix or host.endswith("." + suffix):
                return zone
        return self.default_timezone if default else None


@dataclass(frozen=True, slots=True)
class ValidateConfig:
    """Settings of :class:`structcrawl.crawl.pipelines.validation.ValidationPipeline`."""

    enabled: bool
    invalid_feed: str | None

    @classmethod
    def from_settings(cls, settings: Any) -> ValidateConfig:
        feed = _get(settings, "STRUCTCRAWL_INVALID_FEED")
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_VALIDATE_ENABLED", True)),
            invalid_feed=str(feed) if feed else None,
        )


# rendering (structcrawl.render: the download handler that escalates JS-only pages to a browser)
DEFAULTS.update(
    {
        "STRUCTCRAWL_RENDER_ENABLED": Setting(
            True,
            "Route pages that need JavaScript to a headless browser (off: plain HTTP only).",
        ),
        "STRUCTCRAWL_RENDER_HANDLER": Setting(
            "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler",
            "The browser download handler the render handler wraps.",
        ),
        "STRUCTCRAWL_RENDER_HTTP_HANDLER": Setting(
            None, "The plain HTTP handler; None = Scrapy's own (DOWNLOAD_HANDLERS_BASE)."
        ),
        "STRUCTCRAWL_RENDER_DETECT": Setting(
            True, "Judge HTTP responses and re-fetch JS-only pages (app shells) in the browser."
        ),
        "STRUCTCRAWL_RENDER_LEARN_AFTER": Setting(
            2,
            "Escalations of a URL template (per site) after which its URLs go straight to the "
            "browser; 0 = never learn.",
        ),
        "STRUCTCRAWL_RENDER_MAX_PAGES": Setting(4, "Browser pages open at once (at most)."),
        "STRUCTCRAWL_RENDER_RESTART_AFTER": Setting(
            100, "Restart the browser after this many pages (0 = never); it restarts on a crash."
        ),
        "STRUCTCRAWL_RENDER_TIMEOUT": Setting(30.0, "Browser navigation timeout, seconds."),
        "STRUCTCRAWL_RENDER_WAIT_TIMEOUT": Setting(
            10.0, "Bound on page actions plus the wait for the page's data condition, seconds."
        ),
        "STRUCTCRAWL_RENDER_BLOCK_RESOURCES": Setting(
            "image,font,media", "Resource types the browser does not load (comma-separated)."
        ),
        "STRUCTCRAWL_RENDER_CAPTURE_JSON": Setting(
            True, "Capture XHR/fetch JSON responses of rendered pages as network-json records."
        ),
        "STRUCTCRAWL_RENDER_CAPTURE_MAX_BYTES": Setting(
            2_000_000, "Largest captured JSON response body, bytes (larger: a skip record)."
        ),
        "STRUCTCRAWL_RENDER_VIEWPORT": Setting("1280x800", "Browser viewport, WIDTHxHEIGHT."),
        "STRUCTCRAWL_RENDER_LOCALE": Setting("en-US", "Browser locale (navigator.language)."),
        "STRUCTCRAWL_RENDER_TIMEZONE": Setting("UTC", "Browser time zone (IANA name)."),
        "STRUCTCRAWL_RENDER_USER_AGENT": Setting(
            None, "Browser user agent; None = Scrapy's USER_AGENT."
        ),
        "STRUCTCRAWL_BROWSER_EXECUTABLE": Setting(
            None,
            "Chromium executable; None = $STRUCTCRAWL_CHROMIUM, then Playwright's browser, "
            "then /usr/bin/chromium.",
        ),
        "STRUCTCRAWL_BROWSER_ARGS": Setting(
            "", "Extra Chromium command-line flags (comma-separated)."
        ),
        "STRUCTCRAWL_RENDER_ALLOWED_HOSTS": Setting(
            "",
            "Hosts the browser may load from or navigate to besides the crawl's allowed "
            "domains (comma-separated; a domain includes its subdomains; '*' = any host).",
        ),
    }
)


def _csv_setting(value: Any) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else list(value or ())
    return tuple(str(v).strip() for v in items if str(v).strip())


@dataclass(frozen=True, slots=True)
class RenderConfig:
    """Settings of :class:`structcrawl.render.handler.RenderDownloadHandler` and
    :class:`structcrawl.crawl.pipelines.rendergain.RenderGainPipeline`."""

    enabled: bool
    handler: str
    http_handler: str | None
    detect: bool
    learn_after: int
    max_pages: int
    restart_after: int
    timeout: float
    wait_timeout: float
    block_resources: frozenset[str]
    capture_json: bool
    capture_max_bytes: int
    viewport: tuple[int, int]
    locale: str
    timezone: str
    user_agent: str | None
    executable: str | None
    browser_args: tuple[str, ...]
    rules_dir: str | None
    allowed_hosts: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Any) -> RenderConfig:
        viewport = str(_get(settings, "STRUCTCRAWL_RENDER_VIEWPORT")).lower().split("x")
        if len(viewport) != 2 or not all(v.strip().isdigit() for v in viewport):
            raise ValueError("STRUCTCRAWL_RENDER_VIEWPORT must look like 1280x800")
        user_agent = _get(settings, "STRUCTCRAWL_RENDER_USER_AGENT") or settings.get("USER_AGENT")
        executable = _get(settings, "STRUCTCRAWL_BROWSER_EXECUTABLE")
        rules_dir = settings.get("STRUCTCRAWL_RULES_DIR")
        return cls(
            enabled=bool(settings.getbool("STRUCTCRAWL_RENDER_ENABLED", True)),
            handler=str(_get(settings, "STRUCTCRAWL_RENDER_HANDLER")),
            http_handler=_get(settings, "STRUCTCRAWL_RENDER_HTTP_HANDLER") or None,
            detect=bool(settings.getbool("STRUCTCRAWL_RENDER_DETECT", True)),
            learn_after=max(int(_get(settings, "STRUCTCRAWL_RENDER_LEARN_AFTER")), 0),
            max_pages=max(int(_get(settings, "STRUCTCRAWL_RENDER_MAX_PAGES")), 1),
            restart_after=max(int(_get(settings, "STRUCTCRAWL_RENDER_RESTART_AFTER")), 0),
            timeout=float(_get(settings, "STRUCTCRAWL_RENDER_TIMEOUT")),
            wait_timeout=float(_get(settings, "STRUCTCRAWL_RENDER_WAIT_TIMEOUT")),
            block_resources=frozenset(
                _csv_setting(_get(settings, "STRUCTCRAWL_RENDER_BLOCK_RESOURCES"))
            ),
            capture_json=bool(settings.getbool("STRUCTCRAWL_RENDER_CAPTURE_JSON", True)),
            capture_max_bytes=int(_get(settings, "STRUCTCRAWL_RENDER_CAPTURE_MAX_BYTES")),
            viewport=(int(viewport[0]), int(viewport[1])),
            locale=str(_get(settings, "STRUCTCRAWL_RENDER_LOCALE")),
            timezone=str(_get(settings, "STRUCTCRAWL_RENDER_TIMEZONE")),
            user_agent=str(user_agent) if user_agent else None,
            executable=str(executable) if executable else None,
            browser_args=_csv_setting(_get(settings, "STRUCTCRAWL_BROWSER_ARGS")),
            rules_dir=str(rules_dir) if rules_dir else None,
            allowed_hosts=tuple(
                h.lower().lstrip(".")
                for h in _csv_setting(_get(settings, "STRUCTCRAWL_RENDER_ALLOWED_HOSTS"))
            ),
        )


# incremental crawls and change detection (structcrawl.changes)
DEFAULTS.update(
    {
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
)


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
            ignore_fields=_csv_setting(_get(settings, "STRUCTCRAWL_CHANGE_IGNORE_FIELDS")),
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


# reliability: retries with backoff (structcrawl.crawl.middlewares) and the page ledger
# (structcrawl.ledger.extension)
DEFAULTS.update(
    {
        "STRUCTCRAWL_RETRY_BACKOFF_BASE": Setting(
            1.0, "Seconds before the first retry of a transient failure, doubled per retry."
        ),
        "STRUCTCRAWL_RETRY_BACKOFF_MAX": Setting(30.0, "Longest backoff before a retry, seconds."),
        "STRUCTCRAWL_RETRY_AFTER_MAX": Setting(
            60.0,
            "Longest Retry-After (429, 503) honoured, seconds; a longer one is not retried.",
        ),
        "STRUCTCRAWL_LEDGER_ENABLED": Setting(
            True, "Account for every requested URL (the page ledger); a mismatch fails the crawl."
        ),
        "STRUCTCRAWL_LEDGER_FILE": Setting(
            None,
            "Where the ledger's JSON lines go (one per requested URL); None = "
            "<STRUCTCRAWL_REPORT_DIR>/ledger.jsonl.",
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
            "Seconds without a heartbeat after which a worker is presumed dead and the others "
            "stop waiting for it (at least 3 heartbeats).",
        ),
        "STRUCTCRAWL_REDIS_EXPIRE": Setting(
            7 * 86400,
            "Seconds a distributed crawl's Redis keys outlive its last activity (and its done "
            "marker its end).",
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
