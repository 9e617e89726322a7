"""``structcrawl.Addon``: structcrawl in any Scrapy project with one line.

    # settings.py of any Scrapy project (after `pip install structcrawl`)
    ADDONS = {"structcrawl.Addon": 0}

and in a spider, hand each page to the pipelines with ``yield structcrawl.page_item(response)``
(or use the ``site`` spider). The add-on brings, without touching what the project already
sets (every value is set at Scrapy's ``"addon"`` priority, below the project's own settings and
the command line; component dictionaries only gain the entries they lack):

* the download handler for http/https (:mod:`structcrawl.render`: plain HTTP, or a headless
  browser for the pages that need JavaScript), with scrapy-playwright's ``PLAYWRIGHT_*``
  settings for our Chromium (:func:`structcrawl.render.browser.playwright_settings`: launch
  options, navigation timeout, page cap, relaunch, resource blocking);
* the item pipelines (:data:`ITEM_PIPELINES`), the page ledger and quality report extensions,
  the retry and redirect middlewares, and the feed formats (:data:`FEED_EXPORTERS`:
  ``records``, ``pages``, ``entities``, ... usable in ``FEEDS`` and ``-o FILE:FORMAT``);
* polite crawling defaults (:data:`POLITE`): AutoThrottle, robots.txt with its
  ``Crawl-delay``, an explicit download timeout; a warning when ``USER_AGENT`` is left at a
  default (:class:`structcrawl.crawl.polite.UserAgentCheck`);
* every ``STRUCTCRAWL_*`` default (:data:`structcrawl.crawl.config.DEFAULTS`);
* the optional add-ons, which do nothing until their setting is given:
  ``STRUCTCRAWL_INVALID_FEED`` (:class:`~structcrawl.crawl.feeds.InvalidFeedAddon`),
  ``STRUCTCRAWL_INCREMENTAL`` (:class:`~structcrawl.changes.httpcache.IncrementalAddon`),
  ``STRUCTCRAWL_REDIS_URL`` (:class:`~structcrawl.distributed.DistributedAddon`).

Scrapy commands cannot come from an add-on (they are loaded before any crawler exists): the
``structcrawl`` command line (``structcrawl crawl``, ``structcrawl check``) is the way to run
the bundled spider, and ``COMMANDS_MODULE = "structcrawl.commandline.scrapy_commands"`` gives a
project ``scrapy crawl`` that exits non-zero when the crawl failed.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings
from scrapy.utils.misc import load_object

from structcrawl import __version__
from structcrawl.core import logsafety
from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.feedformats import FEED_EXPORTERS

__all__ = [
    "DOWNLOADER_MIDDLEWARES",
    "DOWNLOAD_HANDLERS",
    "EXTENSIONS",
    "FEED_EXPORTERS",
    "FEED_STORAGES",
    "ITEM_PIPELINES",
    "POLITE",
    "SCRAPY_DEFAULTS",
    "Addon",
]

logger = logging.getLogger(__name__)

#: Plain HTTP, or a headless browser for pages that need JavaScript (structcrawl.render).
DOWNLOAD_HANDLERS = {
    "http": "structcrawl.render.handler.RenderDownloadHandler",
    "https": "structcrawl.render.handler.RenderDownloadHandler",
}
ITEM_PIPELINES = {
    "structcrawl.crawl.pipelines.BodyStorePipeline": 100,
    "structcrawl.crawl.pipelines.ExtractionPipeline": 200,
    "structcrawl.crawl.pipelines.rendergain.RenderGainPipeline": 250,
    "structcrawl.crawl.pipelines.selectors.SelectorPipeline": 300,
    "structcrawl.crawl.pipelines.normalization.NormalizationPipeline": 400,
    "structcrawl.crawl.pipelines.pagework.PageWorkPipeline": 450,
    "structcrawl.crawl.pipelines.validation.ValidationPipeline": 500,
    "structcrawl.crawl.pipelines.EntityPipeline": 600,
    "structcrawl.crawl.pipelines.typeditems.TypedItemsPipeline": 650,
}
EXTENSIONS = {
    # the page ledger closes before the report, which shows its figures
    "structcrawl.ledger.extension.PageLedger": 400,
    "structcrawl.report.extension.QualityReport": 500,
    "structcrawl.crawl.polite.UserAgentCheck": 0,
    "structcrawl.crawl.progress.Progress": 0,
    # one log line for the feeds instead of Scrapy's line per feed
    "structcrawl.crawl.feedlog.FeedLog": 0,
    # STRUCTCRAWL_GC_TUNING: the garbage collector out of the crawl's way (docs/speed.md)
    "structcrawl.crawl.gctune.GcTuning": 0,
    # STRUCTCRAWL_MMAP_THRESHOLD: large pages' blocks given back when freed (docs/speed.md)
    "structcrawl.crawl.malloctune.MallocTuning": 0,
}
# Reliability (docs/reliability.md): retries of transient failures only, with backoff and
# Retry-After (Scrapy's RetryMiddleware retries at once); redirect loops, over-long chains and
# off-site redirects end as error records instead of vanishing; robots.txt with Crawl-delay.
DOWNLOADER_MIDDLEWARES: dict[str, int | None] = {
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "structcrawl.crawl.middlewares.BackoffRetryMiddleware": 550,
    "structcrawl.crawl.middlewares.RedirectGuardMiddleware": 610,
    # a meta refresh ruled out from the page's head, not its whole text decoded (issue 24)
    "scrapy.downloadermiddlewares.redirect.MetaRefreshMiddleware": None,
    "structcrawl.crawl.middlewares.HeadMetaRefreshMiddleware": 580,
    "structcrawl.crawl.challenges.ChallengeMiddleware": 560,  # before retry: never retried
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "structcrawl.crawl.polite.CrawlDelayRobotsTxtMiddleware": 100,
    # credentials of the operator's URLs as basic auth to their endpoint (before robots.txt)
    "structcrawl.crawl.credentials.UrlCredentialsMiddleware": 90,
}
#: Feeds that lose nothing unseen: cut back to whole lines and rescued on a failed write, an
#: S3 feed's content kept in a named file when the upload fails (structcrawl.crawl.feedstorage,
#: structcrawl.crawl.s3feed).
FEED_STORAGES = {
    "": "structcrawl.crawl.feedstorage.GuardedFileFeedStorage",
    "file": "structcrawl.crawl.feedstorage.GuardedFileFeedStorage",
    "s3": "structcrawl.crawl.s3feed.GuardedS3FeedStorage",
}
#: Polite crawling (docs/politeness.md). Benchmarks turn it off on the command line:
#: ``-s AUTOTHROTTLE_ENABLED=False -s DOWNLOAD_DELAY=0 -s ROBOTSTXT_OBEY=False``.
POLITE: dict[str, Any] = {
    "ROBOTSTXT_OBEY": True,
    "AUTOTHROTTLE_ENABLED": True,
    # about two requests in flight per site on average; more only when it answers fast
    "AUTOTHROTTLE_TARGET_CONCURRENCY": 2.0,
    "AUTOTHROTTLE_START_DELAY": 0.5,
    "AUTOTHROTTLE_MAX_DELAY": 30.0,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 4,
    # Scrapy's 180 s is a long time to hold a slot for one page: 30 s, then a retry
    "DOWNLOAD_TIMEOUT": 30,
    # says what it is; UserAgentCheck asks the project to add who runs it and how to reach them
    "USER_AGENT": f"structcrawl/{__version__}",
}
#: Other Scrapy settings structcrawl relies on.
SCRAPY_DEFAULTS: dict[str, Any] = {
    # Non-2xx responses reach the spider so that every URL ends as a record (an error record).
    "HTTPERROR_ALLOW_ALL": True,
    "COOKIES_DEBUG": False,  # would log Cookie headers
    "TELNETCONSOLE_ENABLED": False,
    # Scrapy's remote control (2.19+) runs the Python code an HTTP request on localhost sends
    # it (with a token it writes to the user's profile), in every crawl: off, like the telnet
    # console, and its module (aiohttp's web server, ~20 MB of the crawl) not even imported;
    # REMOTE_CONTROL_ENABLED = True in a project or on the command line turns it back on
    "REMOTE_CONTROL_ENABLED": False,
    "FEED_EXPORT_ENCODING": "utf-8",
    "RETRY_TIMES": 3,  # 4 attempts: waits of 1, 2, 4 s (STRUCTCRAWL_RETRY_BACKOFF_*)
    # a page given up on ends as an error record (accounted): not a crawl error
    "RETRY_GIVE_UP_LOG_LEVEL": "WARNING",
    "DOWNLOAD_MAXSIZE": 32 * 1024 * 1024,  # larger responses end as too-large error records
    "DOWNLOAD_WARNSIZE": 8 * 1024 * 1024,
    "REDIRECT_MAX_TIMES": 10,
    # Scrapy (2.13+) starts CONCURRENT_ITEMS asyncio tasks for the output of every response:
    # its 100 cost more than the pipelines' work for a spider that yields a page item and a
    # few requests per page (654 real pages: 62 -> 83 pages/s, docs/speed.md)
    "CONCURRENT_ITEMS": 4,
    # items as one short line each, at any level (Scrapy's dumps each page item whole at DEBUG)
    "LOG_FORMATTER": "structcrawl.crawl.logformat.ShortItemLogFormatter",
}
_SUB_ADDONS = (
    "structcrawl.crawl.feeds.InvalidFeedAddon",
    "structcrawl.changes.httpcache.IncrementalAddon",
    "structcrawl.distributed.DistributedAddon",
)
_ADDON = SETTINGS_PRIORITIES["addon"]
#: Scrapy's remote-control extension, left out of EXTENSIONS while REMOTE_CONTROL_ENABLED is off
_REMOTE_CONTROL = "scrapy.extensions.remote_control.RemoteControl"


def feeds_folder(feeds: dict[Any, Any]) -> str | None:
    """The folder of the project's local feed files when they are all in one, else ``None``
    (no local feed file, or several folders).

    >>> feeds_folder({"/data/a/pages.jsonl": {}, "file:///data/b/entities.jsonl": {}})
    >>> feeds_folder({"/data/run/pages.jsonl": {}, "/data/run/e.jsonl": {}, "s3://b/k": {}})
    '/data/run'
    """
    folders = []
    for uri in map(str, feeds):
        if "%(" in uri:
            continue
        if uri.startswith("file://"):
            uri = uri[len("file://") :]
        elif "://" in uri:
            continue
        folders.append(os.path.dirname(os.path.abspath(uri)))
    return folders[0] if folders and len(set(folders)) == 1 else None


def _beside(folder: str, jobdir: bool) -> dict[str, str]:
    # the change state stays where it was (output/state/changes.sqlite unless set): it is
    # kept for the next run, whose feeds may go to another folder
    paths = {
        "STRUCTCRAWL_REPORT_DIR": os.path.join(folder, "report"),
        "STRUCTCRAWL_BODY_STORE": os.path.join(folder, "bodies"),
    }
    if not jobdir:  # with JOBDIR the entity state is kept with the job
        paths["STRUCTCRAWL_ENTITY_STORE"] = os.path.join(folder, "state", "entities.sqlite")
    return paths


def _set_default(settings: BaseSettings, name: str, value: Any) -> None:
    """``name = value`` unless something above Scrapy's defaults set it already."""
    if (settings.getpriority(name) or 0) <= _ADDON:
        settings.set(name, value, priority="addon")


def _same_object(a: Any, b: Any) -> bool:
    try:
        return bool(load_object(a) is load_object(b))
    except (ImportError, NameError, ValueError, AttributeError):
        return bool(a == b)


def _add_components(settings: BaseSettings, name: str, components: dict[str, Any]) -> None:
    """Add each component (an import path) the ``name`` dictionary lacks; a component the
    project names already, by path or by class, keeps the project's value (``None`` too)."""
    current = settings[name]
    present = list(current) if isinstance(current, BaseSettings) else list(settings.getdict(name))
    for path, order in components.items():
        if any(_same_object(path, key) for key in present):
            continue
        if isinstance(current, BaseSettings):
            current.set(path, order, priority="addon")
        else:  # a plain dict given by the project
            merged = dict(settings.getdict(name))
            merged[path] = order
            settings.set(name, merged, priority=settings.getpriority(name) or "addon")
            current = settings[name]


def _leave_out(settings: BaseSettings, name: str, path: str) -> None:
    """Scrapy's component ``path`` taken out of ``<name>_BASE`` (so Scrapy does not import
    it: a component set to ``None`` in ``name`` is still imported, to compare paths), unless
    the project names it in ``name``."""
    if path in settings.getdict(name):
        return
    base = settings[f"{name}_BASE"]
    if isinstance(base, BaseSettings) and path in base:
        base.delete(path, priority="addon")


def _add_mapping(settings: BaseSettings, name: str, entries: dict[str, str]) -> None:
    """Add the keys (URL schemes, feed format names) the ``name`` dictionary lacks."""
    merged = dict(settings.getdict(name))
    missing = {key: value for key, value in entries.items() if key not in merged}
    if missing:
        merged.update(missing)
        settings.set(name, merged, priority=max(settings.getpriority(name) or 0, _ADDON))


class Addon:
    """See the module documentation."""

    def update_settings(self, settings: BaseSettings) -> None:
        logsafety.install()  # Scrapy logs overridden settings verbatim: keep secrets out
        for name, setting in DEFAULTS.items():
            _set_default(settings, name, setting.default)
        for name, value in {**POLITE, **SCRAPY_DEFAULTS}.items():
            _set_default(settings, name, value)
        folder = feeds_folder(settings.getdict("FEEDS"))
        if folder is not None:  # the report, bodies and state beside the feeds
            for name, value in _beside(folder, bool(settings.get("JOBDIR"))).items():
                _set_default(settings, name, value)
        _add_mapping(settings, "DOWNLOAD_HANDLERS", DOWNLOAD_HANDLERS)
        _add_mapping(settings, "FEED_EXPORTERS", FEED_EXPORTERS)
        _add_mapping(settings, "FEED_STORAGES", FEED_STORAGES)
        _add_components(settings, "ITEM_PIPELINES", ITEM_PIPELINES)
        _add_components(settings, "EXTENSIONS", EXTENSIONS)
        if not settings.getbool("REMOTE_CONTROL_ENABLED"):
            _leave_out(settings, "EXTENSIONS", _REMOTE_CONTROL)
        _add_components(settings, "DOWNLOADER_MIDDLEWARES", DOWNLOADER_MIDDLEWARES)
        _configure_playwright(settings)
        for path in _SUB_ADDONS:
            load_object(path)().update_settings(settings)


def _configure_playwright(settings: BaseSettings) -> None:
    """scrapy-playwright's ``PLAYWRIGHT_*`` settings for the browser structcrawl renders with,
    at add-on priority. Launch options the project gives are merged over ours (its keys win;
    its ``args`` are added to ours), so ``PLAYWRIGHT_LAUNCH_OPTIONS = {"headless": False}``
    still finds our Chromium."""
    from structcrawl.crawl.config import RenderConfig
    from structcrawl.render.browser import BrowserLocation, locate_chromium, playwright_settings

    config = RenderConfig.from_settings(settings)
    if not config.enabled:
        return
    user = dict(settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS") or {})
    if user.get("executable_path"):
        location = BrowserLocation(str(user["executable_path"]), "PLAYWRIGHT_LAUNCH_OPTIONS")
    else:
        location = locate_chromium(config.executable)
    ours = playwright_settings(
        location,
        timeout=config.timeout,
        max_pages=config.max_pages,
        browser_args=config.browser_args,
        block_resources=config.block_resources,
    )
    launch = ours.pop("PLAYWRIGHT_LAUNCH_OPTIONS")
    if user:
        extra = [a for a in user.pop("args", []) or [] if a not in launch["args"]]
        launch = {**launch, **user, "args": launch["args"] + extra}
    priority = max(settings.getpriority("PLAYWRIGHT_LAUNCH_OPTIONS") or 0, _ADDON)
    settings.set("PLAYWRIGHT_LAUNCH_OPTIONS", launch, priority=priority)
    for name, value in ours.items():
        if value is not None:
            _set_default(settings, name, value)
