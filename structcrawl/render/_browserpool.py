"""The browser side of the render handler: the wrapped scrapy-playwright handler, configured
for our Chromium, with a cap on open pages, restarts after N pages, and launch failures
remembered so later requests fail fast with the same clear message.

A browser that dies (killed, out of memory) is counted whenever it dies, between renders too
(its "disconnected" event); one that dies while pages are being rendered is noticed within
a fraction of a second; the wrapped handler relaunches it (``restart_disconnected_browser``)
and retries the pages that were open, and a page it has not finished :data:`CRASH_GRACE`
seconds later fails with :class:`BrowserCrashed`, which the render handler retries once in
the new browser. No page waits for the whole render bound because its browser died.

The wrapped handler is named by ``STRUCTCRAWL_RENDER_HANDLER`` and built as Scrapy builds any
handler, from its own ``PLAYWRIGHT_*`` settings: :class:`structcrawl.Addon` sets them at
add-on priority for our Chromium (launch options, navigation timeout, page cap, relaunch of a
dead browser, resource blocking; :func:`structcrawl.render.browser.playwright_settings`), so
the project's own ``PLAYWRIGHT_*`` settings win.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import build_from_crawler, load_object
from twisted.internet.defer import Deferred

from structcrawl.render.browser import (
    BrowserLocation,
    locate_chromium,
)
from structcrawl.render.config import RenderConfig
from structcrawl.render.listenerlog import install as install_listener_log
from structcrawl.render.memory import MemoryWatch, Overrun

__all__ = [
    "CRASH_GRACE",
    "BrowserCrashed",
    "BrowserLaunchFailed",
    "BrowserPool",
    "PageTooLarge",
    "RenderFailed",
    "close_handler",
]

logger = logging.getLogger("structcrawl.render")

#: the stat of a listener that ran into its closed page (structcrawl.render.listenerlog)
_CLOSED_LISTENER = "structcrawl/render/browser/closed_listener"
#: Seconds a page whose browser died may still take to finish (in the relaunched browser).
CRASH_GRACE = 5.0
#: How often a page being rendered checks that its browser is still there, seconds.
_CRASH_POLL = 0.25


class BrowserLaunchFailed(Exception):
    """The browser cannot start: the page ends with ``fetch_error.code`` below."""

    fetch_error_code = "browser-launch-failed"


class RenderFailed(Exception):
    """The browser started but this page could not be rendered (navigation error, crash)."""

    fetch_error_code = "browser-render-failed"


class PageTooLarge(RenderFailed):
    """A response of the page, or the rendered page itself, is over ``DOWNLOAD_MAXSIZE``."""

    fetch_error_code = "too-large"


class BrowserCrashed(RenderFailed):
    """The browser died while this page was being rendered (the render handler retries it)."""


def _connected(browser: Any) -> bool:
    try:
        return bool(browser.is_connected())
    except Exception:
        return False


def _consume(task: asyncio.Future[Any]) -> None:
    """Done callback of a cancelled download: retrieve its outcome so nothing is logged."""
    if not task.cancelled():
        task.exception()


async def close_handler(handler: Any) -> None:
    """Close a download handler whatever its style (coroutine, Deferred or nothing)."""
    close = getattr(handler, "close", None)
    if close is None:
        return
    result = close()
    if isinstance(result, Deferred):
        await maybe_deferred_to_future(result)
    elif inspect.isawaitable(result):
        await result


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


class BrowserPool:
    """One wrapped browser handler shared by the http and https handler instances."""

    def __init__(self, crawler: Crawler, config: RenderConfig):
        self.config = config
        self.stats = crawler.stats
        settings = crawler.settings
        launch = dict(settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS") or {})
        self.location = locate_chromium(config.executable)
        chosen = launch.get("executable_path")
        if chosen and str(chosen) != self.location.path:  # the project named another browser
            self.location = BrowserLocation(str(chosen), "PLAYWRIGHT_LAUNCH_OPTIONS")
        # scrapy-playwright reads its PLAYWRIGHT_* settings, which structcrawl.Addon sets for
        # our Chromium (structcrawl.render.browser.playwright_settings)
        self.handler: Any = build_from_crawler(load_object(config.handler), crawler)
        self._driver = asyncio.Lock()
        self._driver_started = not self._defer_driver(crawler)
        self.pages = asyncio.Semaphore(config.max_pages)
        self._idle = asyncio.Event()
        self._idle.set()
        self._restart_lock = asyncio.Lock()
        self._inflight = 0
        self._since_restart = 0
        self._launched = False
        self._browser_seen: Any = None  # the last browser a render saw alive
        self._watched: list[Any] = []  # browsers whose "disconnected" event is listened to
        self._closed: list[Any] = []  # browsers closed on purpose (restart, end of crawl)
        self._closing = False  # the crawl is ending: every browser is closed on purpose
        self._dead: list[Any] = []  # browsers seen dying (each counted once)
        self._deaths = 0  # how many browsers died so far
        self.launch_error: str | None = None
        #: the renderers' memory, sampled while pages are rendered (structcrawl.render.memory)
        self.memory = MemoryWatch(config.page_memory, config.memory, on_stop=self._stopped)
        # a response listener that ran into its closed page (a browser that died) is logged
        # at WARNING and counted, not as the crawl's error (structcrawl.render.listenerlog)
        install_listener_log(lambda: self.stats.inc_value(_CLOSED_LISTENER))

    def _stopped(self, overrun: Overrun) -> None:
        self.stats.inc_value(f"structcrawl/render/memory/stopped/{overrun.bound}")

    def _memory_stats(self) -> None:
        if self.memory.peak:
            prefix = "structcrawl/render/memory/"
            self.stats.max_value(prefix + "peak_mb", self.memory.peak >> 20)
            self.stats.max_value(prefix + "page_peak_mb", self.memory.page_peak >> 20)

    def _defer_driver(self, crawler: Crawler) -> bool:
        """scrapy-playwright starts the Playwright driver (a Node process, ~130 MB) when the
        engine starts; here it starts with the first page that needs the browser, so a crawl
        that renders nothing never pays for it. False when the wrapped handler is not one
        whose start can be deferred (it then starts as it would)."""
        launch = getattr(self.handler, "_launch", None)
        receivers = [
            getattr(self.handler, name, None)
            for name in ("_maybe_launch_in_thread", "_engine_started")
        ]
        if launch is None or not any(receivers):
            return False
        for receiver in receivers:
            if receiver is not None:
                crawler.signals.disconnect(receiver, signal=signals.engine_started)
        return True

    async def _start_driver(self) -> None:
        if self._driver_started:
            return
        async with self._driver:
            if not self._driver_started:
                await self.handler._launch()
                self._driver_started = True

    # -- fetching --------------------------------------------------------------------------

    def check(self) -> None:
        """Raise :class:`BrowserLaunchFailed` at once when the browser cannot start."""
        if self.launch_error is None:
            problem = self.location.problem()
            if problem is not None:
                self._launch_failed(problem)
        if self.launch_error is not None:
            self.stats.inc_value("structcrawl/failure/browser")
            raise BrowserLaunchFailed(self.launch_error)

    def _launch_failed(self, message: str) -> None:
        self.launch_error = f"the browser cannot start: {message}"
        logger.error(
            "%s; pages that need JavaScript end with fetch error browser-launch-failed "
            "(see docs/rendering.md)",
            self.launch_error,
        )

    async def fetch(
        self,
        request: Request,
        abandon: Callable[[], Awaitable[None]] | None = None,
        crashed: asyncio.Event | None = None,
    ) -> tuple[Response, float]:
        """Fetch ``request`` (its ``playwright_*`` meta set) in the browser, within the page
        cap, restarting the browser first when it is due. Returns the response and the
        seconds spent in the browser (waiting for a free page excluded).

        The whole render is bounded (twice the navigation timeout plus the wait bound): a page
        whose scripts never yield is abandoned, ``abandon`` closes it, and the request fails
        with :class:`RenderFailed`. A page whose renderer :attr:`memory` stopped (``crashed``
        set by the page's crash event, an overrun since the render started) fails at once
        with :class:`PageTooLarge`, not retried."""
        self.check()
        async with self.pages:
            await self._maybe_restart()
            self._inflight += 1
            self._idle.clear()
            started = self.memory.begin()
            bound = 2 * self.config.timeout + self.config.wait_timeout
            try:
                await self._start_driver()
                response: Response = await self._download(request, bound, started, crashed)
            except Exception as exc:
                if isinstance(exc, BrowserCrashed | PageTooLarge):
                    if abandon is not None:
                        await abandon()
                    raise
                if isinstance(exc, TimeoutError) and time.monotonic() - started >= bound:
                    if abandon is not None:
                        await abandon()
                    self.stats.inc_value("structcrawl/render/abandoned")
                    raise RenderFailed(f"render abandoned after {bound:.0f} s") from exc
                self._failed(exc)
                raise RenderFailed(_first_line(exc)) from exc
            finally:
                self.memory.end()
                self._memory_stats()
                self._inflight -= 1
                self._since_restart += 1
                if not self._inflight:
                    self._idle.set()
            self._launched = True
            self._see(getattr(self.handler, "browser", None))
            return response, time.monotonic() - started

    async def _download(
        self, request: Request, bound: float, started: float, crashed: asyncio.Event | None
    ) -> Response:
        """The wrapped handler's download within ``bound`` seconds (``TimeoutError`` after),
        cut short with :class:`BrowserCrashed` when the browser dies under it and the wrapped
        handler has not finished the page :data:`CRASH_GRACE` seconds later, or with
        :class:`PageTooLarge` when the page crashed of a renderer stopped for its memory."""
        browser, deaths = getattr(self.handler, "browser", None), self._deaths
        self._see(browser)
        download = asyncio.ensure_future(self.handler.download_request(request))
        watch = asyncio.ensure_future(self._browser_gone(browser, deaths))
        crash = asyncio.ensure_future(crashed.wait()) if crashed is not None else None
        waiting = {download, watch, *([crash] if crash is not None else [])}
        loop = asyncio.get_running_loop()
        deadline = loop.time() + bound
        try:
            while True:
                await asyncio.wait(
                    waiting, timeout=deadline - loop.time(), return_when=asyncio.FIRST_COMPLETED
                )
                if crash is None or not crash.done() or download.done():
                    break
                overrun = self.memory.overrun_since(started)
                if overrun is not None:
                    raise PageTooLarge(overrun.message())
                waiting.discard(crash)  # crashed on its own: the wrapped handler retries it
                crash = None
            if watch.done() and not download.done():
                await asyncio.wait({download}, timeout=CRASH_GRACE)
                if not download.done():
                    raise BrowserCrashed("the browser crashed while the page was rendered")
            if not download.done():
                raise TimeoutError(f"no response within {bound:.0f} s")
            response: Response = download.result()
            return response
        finally:
            watch.cancel()
            if crash is not None:
                crash.cancel()
            if not download.done():
                download.add_done_callback(_consume)
                download.cancel()

    async def _browser_gone(self, browser: Any, deaths: int) -> None:
        """Return when the browser that renders the page (the one there when the render
        started, else the first one launched) has disconnected, or any browser died since
        the render started (polled)."""
        while True:
            await asyncio.sleep(_CRASH_POLL)
            if self._deaths != deaths:
                return
            current = getattr(self.handler, "browser", None)
            if browser is None:
                browser = current
                self._see(current)
            elif current is not browser or not _connected(browser):
                self._crashed(browser)
                return

    def _see(self, browser: Any) -> None:
        """Remember ``browser`` as the one rendering pages and listen for its death: a
        browser that disconnects without being closed on purpose is counted as crashed
        whenever it dies, between renders as well as during one."""
        if browser is None:
            return
        self._browser_seen = browser
        if any(b is browser for b in self._watched):
            return
        self._watched = [*self._watched[-7:], browser]
        with contextlib.suppress(Exception):  # a stand-in browser without events
            browser.on("disconnected", lambda *_: self._disconnected(browser))

    def _disconnected(self, browser: Any) -> None:
        if self._closing or any(b is browser for b in self._closed):
            return
        self._crashed(browser)

    def _crashed(self, browser: Any) -> None:
        if browser is None or any(b is browser for b in self._dead):
            return
        self._dead = [*self._dead[-7:], browser]
        self._deaths += 1
        self.stats.inc_value("structcrawl/render/browser/crashed")
        logger.warning("the browser died; it is relaunched and the pages it had open retried")

    def _failed(self, exc: Exception) -> None:
        has_browser = hasattr(self.handler, "browser")
        text = str(exc)
        if "BrowserType.launch" in text or (not self._launched and not has_browser):
            if self.launch_error is None:
                where = f"{self.location.path} (found by {self.location.source})"
                self._launch_failed(f"{where}: {_first_line(exc)}")
            self.stats.inc_value("structcrawl/failure/browser")
            raise BrowserLaunchFailed(self.launch_error) from exc
        if self._launched and not has_browser:
            self._crashed(self._browser_seen)

    async def _maybe_restart(self) -> None:
        due = self.config.restart_after
        if not due or self._since_restart < due:
            return
        async with self._restart_lock:
            if self._since_restart < due:
                return
            await self._idle.wait()
            browser = getattr(self.handler, "browser", None)
            if browser is not None:
                self._closed = [*self._closed[-7:], browser]
                with contextlib.suppress(Exception):
                    await browser.close()
                # scrapy-playwright forgets the browser in its "disconnected" callback; the
                # next page then launches a new one.
                loop = asyncio.get_running_loop()
                deadline = loop.time() + 10
                while hasattr(self.handler, "browser") and loop.time() < deadline:
                    await asyncio.sleep(0.02)
                self.stats.inc_value("structcrawl/render/browser/restarts")
                logger.info("browser restarted after %d pages", self._since_restart)
            self._since_restart = 0

    async def close(self) -> None:
        self._closing = True
        self.memory.close()
        await close_handler(self.handler)
