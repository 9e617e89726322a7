"""The render download handler's decisions, with stand-ins for Scrapy's HTTP handler and for
scrapy-playwright (both named in settings, as the real ones are). The real browser runs in
tests/test_render_crawl.py."""

from __future__ import annotations

import asyncio
import sys
from typing import Any, ClassVar

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler
from scrapy_playwright.page import PageMethod

from structcrawl.crawl.pipelines.normalization import NormalizationPipeline
from structcrawl.crawl.pipelines.selectors import SelectorPipeline
from structcrawl.render.browser import ResourceBlocker
from structcrawl.render.handler import (
    CONTEXT_NAME,
    BrowserLaunchFailed,
    RenderDownloadHandler,
    RenderFailed,
)
from structcrawl.rules import RulesError

BASE = "http://shop.example/"
SHELL = b'<html><body><div id="root"></div><script src="/app.js"></script></body></html>'
PLAIN = (
    b'<html><head><script type="application/ld+json">{"@type": "Product", "name": "A"}'
    b"</script></head><body><h1>A</h1><script>x()</script></body></html>"
)
RENDERED = (
    b'<html><head><script type="application/ld+json">{"@type": "Product", "name": "B"}'
    b'</script></head><body><div id="root"><h1>B</h1></div></body></html>'
)


class FakeHttp:
    """Stands in for Scrapy's HTTP/1.1 handler: canned responses by URL."""

    lazy = False
    pages: ClassVar[dict[str, Any]] = {}
    calls: ClassVar[list[str]] = []
    closed: ClassVar[int] = 0

    def __init__(self, crawler: Any):
        pass

    @classmethod
    def from_crawler(cls, crawler: Any) -> FakeHttp:
        return cls(crawler)

    async def download_request(self, request: Request) -> HtmlResponse:
        assert not request.meta.get("playwright")
        FakeHttp.calls.append(request.url)
        spec = self.pages[request.url]
        if isinstance(spec, Exception):
            raise spec
        status, body = spec
        return HtmlResponse(
            request.url,
            status=status,
            body=body,
            request=request,
            headers={"Content-Type": "text/html; charset=utf-8"},
        )

    async def close(self) -> None:
        FakeHttp.closed += 1


class FakeBrowser:
    """Stands in for scrapy-playwright's handler."""

    calls: ClassVar[list[Request]] = []
    fail_with: ClassVar[Exception | None] = None
    instances: ClassVar[list[FakeBrowser]] = []
    closed: ClassVar[int] = 0

    def __init__(self, crawler: Any):
        # as scrapy-playwright does: its settings, set by structcrawl.Addon
        self.abort_request = crawler.settings.get("PLAYWRIGHT_ABORT_REQUEST")
        self.launch_options = crawler.settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS")
        FakeBrowser.instances.append(self)

    @classmethod
    def from_crawler(cls, crawler: Any) -> FakeBrowser:
        return cls(crawler)

    async def download_request(self, request: Request) -> HtmlResponse:
        FakeBrowser.calls.append(request)
        if FakeBrowser.fail_with is not None:
            raise FakeBrowser.fail_with
        self.browser = object()  # launched
        return HtmlResponse(
            request.url,
            body=RENDERED,
            request=request,
            flags=["playwright"],
            headers={"Content-Type": "text/html; charset=utf-8"},
        )

    async def close(self) -> None:
        FakeBrowser.closed += 1


@pytest.fixture
def crawler(tmp_path):
    FakeHttp.pages = {}
    FakeHttp.calls = []
    FakeHttp.closed = 0
    FakeBrowser.calls = []
    FakeBrowser.fail_with = None
    FakeBrowser.instances = []
    FakeBrowser.closed = 0
    (tmp_path / "shop.toml").write_text(
        'name = "shop"\nhosts = ["shop.example"]\n'
        '[[render]]\nurl_pattern = "/app/"\nwait_for = "#root h1"\n'
        '[[render]]\nurl_pattern = "/never/"\nrender = false\n'
    )

    def make(**settings: Any):
        base = {
            "STRUCTCRAWL_RENDER_HTTP_HANDLER": f"{__name__}.FakeHttp",
            "STRUCTCRAWL_RENDER_HANDLER": f"{__name__}.FakeBrowser",
            "STRUCTCRAWL_BROWSER_EXECUTABLE": sys.executable,
            "STRUCTCRAWL_RULES_DIR": str(tmp_path),
            "STRUCTCRAWL_RENDER_LEARN_AFTER": 2,
            "STRUCTCRAWL_RENDER_AUDIT": False,  # the audit's own tests: test_render_audit*.py
            "ADDONS": {"structcrawl.Addon": 0},
            "USER_AGENT": "structcrawl-tests (+https://example.org/tests)",
        }
        base.update(settings)
        return get_crawler(settings_dict=base)

    return make


def run(handler: RenderDownloadHandler, *urls: str, meta: dict | None = None) -> list[Any]:
    async def go() -> list[Any]:
        out: list[Any] = []
        for url in urls:
            request = Request(url, meta=dict(meta or {}))
            try:
                out.append(await handler.download_request(request))
            except Exception as exc:  # kept for the assertions
                out.append(exc)
        return out

    return asyncio.run(go())


def stats(crawler) -> dict[str, Any]:
    return {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("structcrawl/")}


def test_a_plain_page_stays_http(crawler):
    c = crawler()
    FakeHttp.pages = {BASE + "p/a-1.html": (200, PLAIN)}
    (response,) = run(RenderDownloadHandler.from_crawler(c), BASE + "p/a-1.html")
    assert response.body == PLAIN and not response.meta.get("playwright")
    assert FakeHttp.calls == [BASE + "p/a-1.html"] and not FakeBrowser.calls
    assert stats(c) == {"structcrawl/render/judged": 1}


def test_a_shell_is_fetched_again_in_the_browser(crawler):
    c = crawler()
    FakeHttp.pages = {BASE + "p/a-1.html": (200, SHELL)}
    (response,) = run(RenderDownloadHandler.from_crawler(c), BASE + "p/a-1.html")
    assert response.body == RENDERED and "playwright" in response.flags
    meta = response.meta
    assert meta["playwright"] is True and meta["structcrawl_render_reason"] == "empty-mount"
    assert meta["playwright_context"] == CONTEXT_NAME
    kwargs = meta["playwright_context_kwargs"]
    assert kwargs["viewport"] == {"width": 1280, "height": 800}
    assert (kwargs["locale"], kwargs["timezone_id"], kwargs["service_workers"]) == (
        "en-US",
        "UTC",
        "block",
    )
    assert meta["playwright_page_goto_kwargs"]["wait_until"] == "load"
    assert "playwright_page_methods" not in meta  # released with the page
    render = meta["structcrawl_render"]
    assert render["reason"] == "empty-mount" and render["records_http"] == 0
    assert "empty-mount:#root" in render["signals"] and render["render_ms"] >= 0
    assert render["browser"]["executable"] == sys.executable
    assert render["browser"]["found_by"] == "setting"
    s = stats(c)
    assert s["structcrawl/render/escalated/empty-mount"] == 1
    assert s["structcrawl/render/mispredicted/http_needed_render"] == 1
    assert s["structcrawl/render/pages"] == 1


def test_the_browser_request_carries_a_page_method_and_a_response_handler(crawler):
    c = crawler()
    seen: dict[str, Any] = {}

    async def spy(request: Request) -> HtmlResponse:
        seen.update(request.meta)
        return HtmlResponse(request.url, body=RENDERED, request=request)

    handler = RenderDownloadHandler.from_crawler(c)
    handler.core.pool.handler.download_request = spy  # type: ignore[union-attr]
    run(handler, BASE + "app/x")
    (method,) = seen["playwright_page_methods"]
    assert isinstance(method, PageMethod) and callable(method.method)
    assert callable(seen["playwright_page_event_handlers"]["response"])
    assert seen["playwright_include_page"] is False


def test_after_n_escalations_a_template_goes_straight_to_the_browser(crawler):
    c = crawler()
    urls = [BASE + f"p/item-{i}.html" for i in range(1, 5)]
    FakeHttp.pages = {u: (200, SHELL) for u in urls}
    responses = run(RenderDownloadHandler.from_crawler(c), *urls)
    assert [r.meta["structcrawl_render_reason"] for r in responses] == [
        "empty-mount",
        "empty-mount",
        "learned",
        "learned",
    ]
    assert FakeHttp.calls == urls[:2]  # HTTP-first paid twice (the threshold), not per page
    s = stats(c)
    assert s["structcrawl/render/escalated/learned"] == 2
    assert s["structcrawl/render/learned_templates"] == 1
    assert s["structcrawl/render/mispredicted/http_needed_render"] == 2


@pytest.mark.parametrize("status", [500, 503, 404])
def test_a_failed_http_fetch_is_not_escalated(crawler, status):
    c = crawler()
    FakeHttp.pages = {BASE + "x": (status, SHELL)}
    (response,) = run(RenderDownloadHandler.from_crawler(c), BASE + "x")
    assert response.status == status and not FakeBrowser.calls
    assert "structcrawl/render/escalated/empty-mount" not in stats(c)


def test_an_http_exception_is_not_escalated(crawler):
    c = crawler()
    FakeHttp.pages = {BASE + "x": TimeoutError("took too long")}
    (error,) = run(RenderDownloadHandler.from_crawler(c), BASE + "x")
    assert isinstance(error, TimeoutError) and not FakeBrowser.calls


def test_rules_and_requests_route_without_http(crawler):
    c = crawler()
    FakeHttp.pages = {BASE + "never/x": (200, SHELL), BASE + "p/q-1.html": (200, SHELL)}
    handler = RenderDownloadHandler.from_crawler(c)
    (ruled,) = run(handler, BASE + "app/x")
    assert ruled.meta["structcrawl_render_reason"] == "rule" and not FakeHttp.calls
    assert ruled.meta["structcrawl_render"]["rule"] == {"site": "shop", "url_pattern": "/app/"}
    assert ruled.meta["structcrawl_render"]["records_http"] is None  # no navigation body seen
    (never,) = run(handler, BASE + "never/x")
    assert not never.meta.get("playwright")  # render = false: not even judged
    (forbidden,) = run(handler, BASE + "p/q-1.html", meta={"playwright": False})
    assert not forbidden.meta.get("playwright")
    (asked,) = run(handler, BASE + "anything", meta={"playwright": True})
    assert asked.meta["structcrawl_render_reason"] == "requested"
    assert len(FakeBrowser.calls) == 2


def test_detection_can_be_switched_off(crawler):
    c = crawler(STRUCTCRAWL_RENDER_DETECT=False)
    FakeHttp.pages = {BASE + "p/a-1.html": (200, SHELL)}
    (response,) = run(RenderDownloadHandler.from_crawler(c), BASE + "p/a-1.html")
    assert not response.meta.get("playwright") and not FakeBrowser.calls


def test_rendering_off_means_plain_http_and_no_browser_handler(crawler):
    c = crawler(STRUCTCRAWL_RENDER_ENABLED=False)
    FakeHttp.pages = {BASE + "app/x": (200, SHELL)}
    handler = RenderDownloadHandler.from_crawler(c)
    (response,) = run(handler, BASE + "app/x")
    assert response.body == SHELL and not FakeBrowser.instances


def test_a_browser_that_cannot_launch_fails_fast_and_counts_a_failure(crawler):
    c = crawler()
    FakeBrowser.fail_with = RuntimeError(
        "BrowserType.launch: Failed to launch chromium because executable doesn't exist"
    )
    FakeHttp.pages = {BASE + "plain": (200, PLAIN)}
    handler = RenderDownloadHandler.from_crawler(c)
    first, second, plain = run(handler, BASE + "app/a", BASE + "app/b", BASE + "plain")
    for error in (first, second):
        assert isinstance(error, BrowserLaunchFailed)
        assert error.fetch_error_code == "browser-launch-failed"
        assert "executable doesn't exist" in str(error) and sys.executable in str(error)
    assert len(FakeBrowser.calls) == 1  # the second request did not try again
    assert plain.status == 200 and plain.body == PLAIN  # pages without the browser complete
    s = stats(c)
    assert s["structcrawl/failure/browser"] == 2
    assert s["structcrawl/render/error/browser-launch-failed"] == 2


def test_a_missing_executable_fails_without_trying(crawler):
    c = crawler(STRUCTCRAWL_BROWSER_EXECUTABLE="/nonexistent/chromium")
    (error,) = run(RenderDownloadHandler.from_crawler(c), BASE + "app/a")
    assert isinstance(error, BrowserLaunchFailed) and not FakeBrowser.calls
    assert "no executable Chromium at /nonexistent/chromium (from setting)" in str(error)
    assert stats(c)["structcrawl/failure/browser"] == 1


def test_a_page_that_fails_in_a_running_browser_is_a_render_error(crawler):
    c = crawler()
    handler = RenderDownloadHandler.from_crawler(c)
    (ok,) = run(handler, BASE + "app/a")
    FakeBrowser.fail_with = RuntimeError("Page.goto: net::ERR_CONNECTION_RESET")
    (error,) = run(handler, BASE + "app/b")
    assert isinstance(error, RenderFailed) and error.fetch_error_code == "browser-render-failed"
    s = stats(c)
    assert s["structcrawl/render/error/browser-render-failed"] == 1
    assert "structcrawl/failure/browser" not in s


def test_http_and_https_share_one_browser_and_close_it_once(crawler):
    c = crawler()
    first = RenderDownloadHandler.from_crawler(c)
    second = RenderDownloadHandler.from_crawler(c)
    assert first.core is second.core and len(FakeBrowser.instances) == 1
    assert isinstance(FakeBrowser.instances[0].abort_request, ResourceBlocker)
    assert FakeBrowser.instances[0].abort_request.types == frozenset({"image", "font", "media"})
    assert FakeBrowser.instances[0].launch_options["executable_path"] == sys.executable

    async def close_both() -> None:
        await first.close()
        assert FakeBrowser.closed == 0
        await second.close()

    asyncio.run(close_both())
    assert FakeBrowser.closed == 1 and FakeHttp.closed == 1


def test_a_bot_challenge_is_neither_rendered_nor_learned(crawler):
    """A 2xx challenge (no content, a challenge script, an empty mount) looks JS-only; it is
    left to the spider as a challenge instead (issue 15)."""
    c = crawler()
    challenge = (
        b'<html><head><script src="/149e/ips.js"></script></head><body><noscript>Please enable '
        b'JavaScript and cookies to continue</noscript><div id="root"></div></body></html>'
    )
    urls = [BASE + f"p/guarded-{i}.html" for i in range(1, 4)]
    FakeHttp.pages = {url: (200, challenge) for url in urls}
    responses = run(RenderDownloadHandler.from_crawler(c), *urls)
    assert FakeBrowser.calls == [] and FakeHttp.calls == urls  # each over HTTP, never rendered
    for response in responses:
        assert response.meta["structcrawl_challenge"]["vendor"] == "generic"
    s = stats(c)
    assert s["structcrawl/render/challenge_not_rendered"] == 3
    assert "structcrawl/render/learned_templates" not in s  # LEARN_AFTER=2: never learned


def test_with_challenges_off_the_same_page_is_rendered(crawler):
    c = crawler(STRUCTCRAWL_CHALLENGE_ENABLED=False)
    challenge = (
        b"<html><body><noscript>Please enable JavaScript and cookies to continue</noscript>"
        b'<div id="root"></div><script src="/ips.js"></script></body></html>'
    )
    FakeHttp.pages = {BASE + "p/guarded.html": (200, challenge)}
    run(RenderDownloadHandler.from_crawler(c), BASE + "p/guarded.html")
    assert len(FakeBrowser.calls) == 1


def test_a_missing_rules_directory_stops_every_rules_reader_alike(crawler, tmp_path):
    """The render handler, the selector pipeline and the normalization pipeline read the rules
    through one loader: a configured rules path that is not there is one configuration error
    for all of them (the render handler used to carry on with no rules)."""
    missing = tmp_path / "no-such-rules"
    c = crawler(STRUCTCRAWL_RULES_DIR=str(missing))
    readers = (
        RenderDownloadHandler.from_crawler,
        SelectorPipeline.from_crawler,
        NormalizationPipeline.from_crawler,
    )
    for build in readers:
        with pytest.raises(RulesError, match=f"{missing}: no such rules file or directory"):
            build(c)


# -- the rendered-snapshot cache (structcrawl.render._snapshotrun) ---------------------------


class _Document:
    """The browser's navigation response, as the page's ``response`` event hands it over."""

    def __init__(self, url: str, body: bytes, etag: str):
        self.url, self.status, self._body, self._etag = url, 200, body, etag
        frame = type("Frame", (), {"parent_frame": None})()
        self.request = type("Req", (), {"resource_type": "document", "frame": frame})()

    async def header_value(self, name: str) -> str | None:
        return {"content-type": "text/html", "etag": self._etag}.get(name)

    async def body(self) -> bytes:
        return self._body


class NavigatingBrowser(FakeBrowser):
    """A browser whose page tells its navigation response (body and ETag) to the session."""

    async def download_request(self, request: Request) -> HtmlResponse:
        handler = request.meta["playwright_page_event_handlers"]["response"]
        handler(_Document(request.url, SHELL, '"v1"'))
        await asyncio.sleep(0.01)  # the capture task reads it
        return await super().download_request(request)


class ConditionalHttp(FakeHttp):
    """Answers a conditional request whose ETag matches with a 304."""

    async def download_request(self, request: Request) -> HtmlResponse:
        if request.headers.get("If-None-Match") == b'"v1"':
            FakeHttp.calls.append(f"304 {request.url}")
            return HtmlResponse(request.url, status=304, body=b"", request=request)
        return await super().download_request(request)


def test_an_unchanged_page_gets_its_render_back_in_the_next_crawl(crawler, tmp_path):
    cache = {"STRUCTCRAWL_RENDER_CACHE": str(tmp_path / "render-cache.sqlite")}
    url = BASE + "p/a-1.html"
    FakeHttp.pages = {url: (200, SHELL)}
    first = crawler(**cache)
    (response,) = run(RenderDownloadHandler.from_crawler(first), url)
    assert response.body == RENDERED and len(FakeBrowser.calls) == 1
    assert stats(first)["structcrawl/render/cache/stored"] == 1
    assert stats(first)["structcrawl/render/cache/miss"] == 1

    second = crawler(**cache)
    (again,) = run(RenderDownloadHandler.from_crawler(second), url)
    assert len(FakeBrowser.calls) == 1  # not rendered again
    assert again.body == RENDERED and "render-cache" in again.flags
    assert again.meta["playwright"] is True
    render = again.meta["structcrawl_render"]
    assert render["reason"] == "empty-mount" and render["render_ms"] == 0
    assert render["cache"]["hit"] is True and render["cache"]["validated_by"] == "same-body"
    assert again.meta["structcrawl_render_server_body"] == SHELL
    s = stats(second)
    assert s["structcrawl/render/cache/hit"] == 1 and "structcrawl/render/pages" not in s

    FakeHttp.pages = {url: (200, SHELL + b"<!-- changed -->")}
    third = crawler(**cache)
    (changed,) = run(RenderDownloadHandler.from_crawler(third), url)
    assert len(FakeBrowser.calls) == 2 and "render-cache" not in changed.flags
    assert stats(third)["structcrawl/render/cache/changed"] == 1


def test_a_page_routed_to_the_browser_is_asked_with_its_validators(crawler, tmp_path):
    settings = {
        "STRUCTCRAWL_RENDER_CACHE": str(tmp_path / "render-cache.sqlite"),
        "STRUCTCRAWL_RENDER_HANDLER": f"{__name__}.NavigatingBrowser",
        "STRUCTCRAWL_RENDER_HTTP_HANDLER": f"{__name__}.ConditionalHttp",
    }
    url = BASE + "app/1"  # the site rule sends it straight to the browser
    FakeHttp.pages = {url: (200, SHELL)}
    (first,) = run(RenderDownloadHandler.from_crawler(crawler(**settings)), url)
    assert FakeHttp.calls == [] and len(FakeBrowser.calls) == 1  # no HTTP fetch the first time
    second = crawler(**settings)
    (again,) = run(RenderDownloadHandler.from_crawler(second), url)
    assert FakeHttp.calls == [f"304 {url}"] and len(FakeBrowser.calls) == 1
    assert again.meta["structcrawl_render"]["cache"]["validated_by"] == "not-modified"
    assert again.meta["structcrawl_render_reason"] == "rule"
    assert again.meta["structcrawl_render_server_body"] == SHELL  # kept with the snapshot
    assert stats(second)["structcrawl/render/cache/hit/not-modified"] == 1


def test_without_a_state_folder_there_is_no_cache(crawler):
    c = crawler()  # no STRUCTCRAWL_CHANGE_STORE, no STRUCTCRAWL_RENDER_CACHE
    FakeHttp.pages = {BASE + "p/a-1.html": (200, SHELL)}
    run(RenderDownloadHandler.from_crawler(c), BASE + "p/a-1.html")
    assert not any(k.startswith("structcrawl/render/cache/") for k in stats(c))
