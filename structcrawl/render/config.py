"""Settings of the render handler (:mod:`structcrawl.render.handler`) and of the render-gain
pipeline: the ``STRUCTCRAWL_RENDER_*`` and ``STRUCTCRAWL_BROWSER_*`` settings, with their defaults
and documentation (gathered into :data:`structcrawl.crawl.config.DEFAULTS`), and the frozen
:class:`RenderConfig` that reads them once.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from structcrawl.core.setting import Setting, csv_setting, setting_value
from structcrawl.render.audit import AuditConfig

__all__ = ["SETTINGS", "RenderConfig"]

#: rendering (structcrawl.render: the download handler that escalates JS-only pages to a browser)
SETTINGS: dict[str, Setting] = {
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
    "STRUCTCRAWL_RENDER_AUDIT": Setting(
        True,
        "Render a bounded sample of the pages judged 'no browser needed' too, and learn the "
        "URL templates whose rendered pages gain typed records (docs/rendering.md).",
    ),
    "STRUCTCRAWL_RENDER_AUDIT_FIRST": Setting(3, "Audited pages per site first (judged pages)."),
    "STRUCTCRAWL_RENDER_AUDIT_RATE": Setting(
        0.05, "Share of a site's later judged pages audited (0 = only the first ones)."
    ),
    "STRUCTCRAWL_RENDER_AUDIT_GIVE_UP": Setting(
        5, "Audits of a site without any gain after which the site is no longer audited."
    ),
    "STRUCTCRAWL_RENDER_AUDIT_BUDGET": Setting(
        120.0, "Browser seconds all audits of a crawl may spend; then auditing stops."
    ),
    "STRUCTCRAWL_RENDER_AUDIT_REFETCH_MAX": Setting(
        1000,
        "Pages fetched without the browser kept so that those of a template learned later "
        "are fetched again in it (0 = none are).",
    ),
    "STRUCTCRAWL_RENDER_AUDIT_WAIT": Setting(
        3.0,
        "Bound on an audited page's wait for its data, seconds (most audited pages have "
        "nothing more to show: they must not each wait STRUCTCRAWL_RENDER_WAIT_TIMEOUT).",
    ),
    "STRUCTCRAWL_RENDER_AUDIT_AT_ONCE": Setting(
        1,
        "A site's rate samples are taken only while fewer of its audits than this are "
        "rendering and none has gained (a sample due meanwhile is skipped); each audit holds "
        "one of the crawl's download slots for the site while it renders (0 = no bound).",
    ),
    "STRUCTCRAWL_RENDER_AUDIT_SITE_SHARE": Setting(
        0.6,
        "A site whose audits gained STRUCTCRAWL_RENDER_LEARN_AFTER times, in this share of its "
        "audits or more, goes to the browser whole, whatever its URL templates (0 = templates "
        "only).",
    ),
    "STRUCTCRAWL_RENDER_CACHE": Setting(
        None,
        "SQLite file of rendered snapshots, reused by a recrawl when the server's page is "
        "unchanged (a 304, or the same SHA-256) instead of rendering it again; None = "
        "render-cache.sqlite beside STRUCTCRAWL_CHANGE_STORE when the crawl or project sets "
        "that to a file (structcrawl crawl -o DIR and make demo do: DIR/state/), else no "
        "cache; '' = no cache.",
    ),
    "STRUCTCRAWL_RENDER_CACHE_MAX_AGE": Setting(
        7 * 86400.0,
        "Seconds a rendered snapshot is reused at most (its key is the server's HTML, not the "
        "scripts and APIs the page loads); 0 = no limit.",
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
    "STRUCTCRAWL_RENDER_APP_STATE": Setting(
        "__INITIAL_STATE__,__PRELOADED_STATE__,__APOLLO_STATE__,__NUXT__,__NEXT_DATA__,"
        "__INITIAL_DATA__,__INITIAL_PROPS__,__APP_STATE__,__REDUX_STATE__,__SERVER_STATE__,"
        "__STATE__,__DATA__,__remixContext,__staticRouterHydrationData",
        "window globals read in the browser after load as application state (JSON.stringify "
        "there; data-block records, source_element window.NAME); empty = none.",
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
    "STRUCTCRAWL_BROWSER_ARGS": Setting("", "Extra Chromium command-line flags (comma-separated)."),
    "STRUCTCRAWL_BROWSER_PAGE_MEMORY": Setting(
        256 * 1024 * 1024,
        "Memory (PSS, bytes) the browser's renderer process of one page may hold; past it the "
        "renderer is stopped and the page ends as too-large (docs/security.md); 0 = no bound.",
    ),
    "STRUCTCRAWL_BROWSER_MEMORY": Setting(
        384 * 1024 * 1024,
        "Memory (PSS, bytes) all the browser's renderer processes may hold together; past it "
        "the largest is stopped if it holds more than half STRUCTCRAWL_BROWSER_PAGE_MEMORY, "
        "and its page ends as too-large; 0 = no bound.",
    ),
    "STRUCTCRAWL_RENDER_ALLOWED_HOSTS": Setting(
        "",
        "Hosts the browser may load from or navigate to besides the crawl's allowed "
        "domains (comma-separated; a domain includes its subdomains; '*' = any host).",
    ),
    "STRUCTCRAWL_ADDRESS_POLICY": Setting(
        True,
        "Refuse connections that page content chose (links, redirects, sitemaps of other "
        "hosts, everything a rendered page loads) to loopback, private, CGNAT, link-local, "
        "multicast and reserved addresses (docs/security.md). Off is dangerous: pages can "
        "then reach the crawler's own machine and networks.",
    ),
    "STRUCTCRAWL_ADDRESS_ALLOW": Setting(
        "",
        "Endpoints reachable whatever they resolve to, besides the ones the operator names "
        "(start URLs, sitemaps, proxies): host (ports 80 and 443), host:port, host:* (any "
        "port; a name includes its subdomains) or a network such as 10.1.0.0/16 "
        "(comma-separated).",
    ),
}


def _get(settings: Any, name: str) -> Any:
    return setting_value(settings, SETTINGS, name)


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
    audit: AuditConfig = AuditConfig(enabled=False)
    app_state: tuple[str, ...] = ()
    address_policy: bool = True
    address_allow: tuple[str, ...] = ()
    cache_path: str | None = None
    cache_max_age: float = 0.0
    page_memory: int = 0
    memory: int = 0

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
                csv_setting(_get(settings, "STRUCTCRAWL_RENDER_BLOCK_RESOURCES"))
            ),
            capture_json=bool(settings.getbool("STRUCTCRAWL_RENDER_CAPTURE_JSON", True)),
            capture_max_bytes=int(_get(settings, "STRUCTCRAWL_RENDER_CAPTURE_MAX_BYTES")),
            viewport=(int(viewport[0]), int(viewport[1])),
            locale=str(_get(settings, "STRUCTCRAWL_RENDER_LOCALE")),
            timezone=str(_get(settings, "STRUCTCRAWL_RENDER_TIMEZONE")),
            user_agent=str(user_agent) if user_agent else None,
            executable=str(executable) if executable else None,
            browser_args=csv_setting(_get(settings, "STRUCTCRAWL_BROWSER_ARGS")),
            rules_dir=str(rules_dir) if rules_dir else None,
            audit=_audit(settings),
            app_state=csv_setting(_get(settings, "STRUCTCRAWL_RENDER_APP_STATE")),
            allowed_hosts=tuple(
                h.lower().lstrip(".")
                for h in csv_setting(_get(settings, "STRUCTCRAWL_RENDER_ALLOWED_HOSTS"))
            ),
            address_policy=bool(settings.getbool("STRUCTCRAWL_ADDRESS_POLICY", True)),
            address_allow=csv_setting(_get(settings, "STRUCTCRAWL_ADDRESS_ALLOW")),
            cache_path=_cache_path(settings),
            cache_max_age=max(float(_get(settings, "STRUCTCRAWL_RENDER_CACHE_MAX_AGE")), 0.0),
            page_memory=max(int(_get(settings, "STRUCTCRAWL_BROWSER_PAGE_MEMORY") or 0), 0),
            memory=max(int(_get(settings, "STRUCTCRAWL_BROWSER_MEMORY") or 0), 0),
        )


def _cache_path(settings: Any) -> str | None:
    """Where rendered snapshots are kept (``STRUCTCRAWL_RENDER_CACHE``), None for nowhere.

    >>> _cache_path({"STRUCTCRAWL_CHANGE_STORE": "/out/state/changes.sqlite"})
    '/out/state/render-cache.sqlite'
    >>> _cache_path({}), _cache_path({"STRUCTCRAWL_CHANGE_STORE": "redis://r:6379/0"})
    (None, None)
    >>> _cache_path({"STRUCTCRAWL_RENDER_CACHE": "", "STRUCTCRAWL_CHANGE_STORE": "/s/c.sqlite"})
    """
    value = _get(settings, "STRUCTCRAWL_RENDER_CACHE")
    if value is not None:
        return str(value) or None
    store = settings.get("STRUCTCRAWL_CHANGE_STORE")
    priority = getattr(settings, "getpriority", None)
    if not store or (priority is not None and (priority("STRUCTCRAWL_CHANGE_STORE") or 0) <= 15):
        return None  # not set for this crawl (15: the add-on's defaults): no folder of its own
    store = str(store)
    if store.startswith("file://"):
        store = store[len("file://") :]
    elif "://" in store:
        return None
    return str(PurePath(store).parent / "render-cache.sqlite")


def _audit(settings: Any) -> AuditConfig:
    return AuditConfig(
        enabled=bool(settings.getbool("STRUCTCRAWL_RENDER_AUDIT", True)),
        first=max(int(_get(settings, "STRUCTCRAWL_RENDER_AUDIT_FIRST")), 0),
        rate=min(max(float(_get(settings, "STRUCTCRAWL_RENDER_AUDIT_RATE")), 0.0), 1.0),
        give_up=max(int(_get(settings, "STRUCTCRAWL_RENDER_AUDIT_GIVE_UP")), 1),
        budget=max(float(_get(settings, "STRUCTCRAWL_RENDER_AUDIT_BUDGET")), 0.0),
        refetch_max=max(int(_get(settings, "STRUCTCRAWL_RENDER_AUDIT_REFETCH_MAX")), 0),
        wait=max(float(_get(settings, "STRUCTCRAWL_RENDER_AUDIT_WAIT")), 0.1),
        site_share=min(max(float(_get(settings, "STRUCTCRAWL_RENDER_AUDIT_SITE_SHARE")), 0.0), 1.0),
        at_once=max(int(_get(settings, "STRUCTCRAWL_RENDER_AUDIT_AT_ONCE")), 0),
    )
