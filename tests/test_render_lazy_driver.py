"""The Playwright driver starts with the first page that needs the browser, not at start-up."""

from __future__ import annotations

import asyncio
from typing import Any

from pydispatch import dispatcher
from scrapy import Request, signals
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from structcrawl.render._browserpool import BrowserPool
from structcrawl.render.config import RenderConfig


class LazyFake:
    """Stands in for scrapy-playwright's handler: starts its driver on engine_started."""

    def __init__(self, crawler: Any):
        self.abort_request = None
        self.launches = 0
        crawler.signals.connect(self._maybe_launch_in_thread, signal=signals.engine_started)

    @classmethod
    def from_crawler(cls, crawler: Any) -> LazyFake:
        return cls(crawler)

    async def _maybe_launch_in_thread(self) -> None:
        await self._launch()

    async def _launch(self) -> None:
        await asyncio.sleep(0)
        self.launches += 1

    async def download_request(self, request: Request) -> HtmlResponse:
        assert self.launches == 1, "the driver runs before the first page"
        self.browser = object()
        return HtmlResponse(request.url, body=b"<html></html>", request=request)


def _pool() -> tuple[Any, BrowserPool]:
    crawler = get_crawler(settings_dict={"STRUCTCRAWL_RENDER_HANDLER": f"{__name__}.LazyFake"})
    return crawler, BrowserPool(crawler, RenderConfig.from_settings(crawler.settings))


def test_the_driver_does_not_start_with_the_engine():
    crawler, pool = _pool()
    receivers = list(
        dispatcher.liveReceivers(
            dispatcher.getAllReceivers(sender=crawler.signals.sender, signal=signals.engine_started)
        )
    )
    assert receivers, "the crawler's own engine_started receivers are seen"
    assert pool.handler._maybe_launch_in_thread not in receivers
    assert pool.handler.launches == 0


def test_the_first_render_starts_it_once():
    _, pool = _pool()

    async def two_pages() -> None:
        await asyncio.gather(
            pool.fetch(Request("https://a.example/1", meta={"playwright": True})),
            pool.fetch(Request("https://a.example/2", meta={"playwright": True})),
        )

    asyncio.run(two_pages())
    assert pool.handler.launches == 1
