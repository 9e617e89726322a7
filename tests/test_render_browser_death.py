"""A browser that dies is counted as crashed whenever it dies, between renders as well as
during one; a browser closed on purpose (the restart after N pages, the end of the crawl) is
not. The wrapped handler is a stand-in that behaves as scrapy-playwright does: it launches a
browser when a page needs one, listens for its "disconnected" event and forgets it then."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from structcrawl.render._browserpool import BrowserPool
from structcrawl.render.config import RenderConfig


class FakeBrowser:
    def __init__(self) -> None:
        self.connected = True
        self.listeners: list[Callable[..., Any]] = []

    def on(self, event: str, callback: Callable[..., Any]) -> None:
        assert event == "disconnected"
        self.listeners.append(callback)

    def is_connected(self) -> bool:
        return self.connected

    def die(self) -> None:
        self.connected = False
        for callback in list(self.listeners):
            result = callback(self)
            if asyncio.iscoroutine(result):
                asyncio.get_running_loop().create_task(result)

    async def close(self) -> None:
        self.die()


class Handler:
    """scrapy-playwright's behaviour around its browser, without a browser."""

    def __init__(self, crawler: Any):
        self.stats = crawler.stats
        self.launched: list[FakeBrowser] = []

    @classmethod
    def from_crawler(cls, crawler: Any) -> Handler:
        return cls(crawler)

    async def _forget(self) -> None:
        del self.browser

    async def download_request(self, request: Request) -> HtmlResponse:
        if not hasattr(self, "browser"):
            self.browser = FakeBrowser()
            self.launched.append(self.browser)
            self.browser.on("disconnected", lambda *_: self._forget())
        await asyncio.sleep(0)
        return HtmlResponse(request.url, body=b"<html></html>", request=request)

    async def close(self) -> None:
        if hasattr(self, "browser"):
            await self.browser.close()


def _pool(**settings: Any) -> tuple[Any, BrowserPool]:
    crawler = get_crawler(
        settings_dict={"STRUCTCRAWL_RENDER_HANDLER": f"{__name__}.Handler", **settings}
    )
    return crawler, BrowserPool(crawler, RenderConfig.from_settings(crawler.settings))


def _page(pool: BrowserPool, n: int) -> Any:
    return pool.fetch(Request(f"https://a.example/{n}", meta={"playwright": True}))


def test_a_browser_killed_between_renders_is_counted_once():
    crawler, pool = _pool()

    async def crawl() -> None:
        await _page(pool, 1)
        pool.handler.browser.die()  # killed while no page is being rendered
        await asyncio.sleep(0.01)
        assert not hasattr(pool.handler, "browser")  # forgotten, as scrapy-playwright does
        await _page(pool, 2)
        await _page(pool, 3)
        await pool.close()

    asyncio.run(crawl())
    assert len(pool.handler.launched) == 2  # relaunched
    assert crawler.stats.get_value("structcrawl/render/browser/crashed") == 1


def test_browsers_closed_on_purpose_are_not_crashes():
    crawler, pool = _pool(STRUCTCRAWL_RENDER_RESTART_AFTER=2)

    async def crawl() -> None:
        for n in range(5):
            await _page(pool, n)
        await pool.close()

    asyncio.run(crawl())
    assert len(pool.handler.launched) == 3
    assert all(not b.connected for b in pool.handler.launched)  # every one closed
    assert crawler.stats.get_value("structcrawl/render/browser/restarts") == 2
    assert crawler.stats.get_value("structcrawl/render/browser/crashed") is None
