"""What runs in the browser page (with a stand-in page), network-json records, and the
pipelines that turn a rendered page into records."""

from __future__ import annotations

import asyncio
import io
import json
import re
import time
from typing import Any

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from structcrawl.crawl.config import DEFAULTS, RenderConfig
from structcrawl.crawl.exporters import PagesJsonLinesExporter
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pipelines import ExtractionPipeline
from structcrawl.crawl.pipelines.rendergain import RenderGainPipeline
from structcrawl.render.capture import RenderSession, network_records
from structcrawl.render.routing import WaitPlan, wait_plan
from structcrawl.rules import Action, parse_site

PAGE = "http://shop.example/deals.html"


class FakeFrame:
    parent_frame = None


class FakeRequest:
    def __init__(self, kind: str, method: str = "GET"):
        self.resource_type = kind
        self.method = method
        self.frame = FakeFrame()


class FakeResponse:
    def __init__(self, url: str, kind: str, body: bytes, content_type: str, status: int = 200):
        self.url, self.status, self._body = url, status, body
        self.request = FakeRequest(kind)
        self.headers = {"content-type": content_type, "content-length": str(len(body))}

    async def header_value(self, name: str) -> str | None:
        return self.headers.get(name)

    async def body(self) -> bytes:
        return self._body


class FakeBrowser:
    version = "156.0.0.0"

    class browser_type:  # noqa: N801 - mirrors Playwright's attribute
        name = "chromium"


class FakeContext:
    browser = FakeBrowser()


class FakePage:
    """Selectors 'appear' after a delay (or never); clicks can fail."""

    def __init__(self, appear: dict[str, float] | None = None, clickable: bool = True):
        self.appear = appear or {}
        self.clickable = clickable
        self.clicked: list[str] = []
        self.context = FakeContext()
        self.viewport_size = {"width": 1280, "height": 800}

    async def wait_for_selector(self, selector: str, *, state: str, timeout: float) -> object:
        assert state == "attached"
        delay = self.appear.get(selector)
        if delay is None or delay * 1000 > timeout:
            await asyncio.sleep(timeout / 1000)
            raise TimeoutError(f"Timeout {timeout}ms exceeded waiting for {selector}")
        await asyncio.sleep(delay)
        return object()

    async def click(self, selector: str, *, timeout: float) -> None:
        if not self.clickable:
            raise TimeoutError(f"Timeout {timeout}ms exceeded.\nwaiting for {selector}")
        self.clicked.append(selector)

    async def evaluate(self, script: str) -> dict[str, str]:
        return {"user_agent": "UA", "locale": "en-US", "timezone": "UTC"}


def prepare(session: RenderSession, page: FakePage, responses: list[FakeResponse] = ()):
    async def go() -> float:
        for response in responses:
            session.on_response(response)
        started = time.monotonic()
        await session.prepare(page)
        return time.monotonic() - started

    return asyncio.run(go())


# -- the page method ---------------------------------------------------------------------


def test_the_default_wait_ends_when_a_data_layer_appears():
    plan = wait_plan(None)
    session = RenderSession(plan, wait_timeout=5)
    took = prepare(session, FakePage({plan.selector: 0.05}))
    assert session.wait["met"] and session.wait["by"] == ["selector"] and took < 2
    assert session.wait["condition"] == plan.label and session.wait["timeout_ms"] == 5000
    env = session.environment
    assert env["browser"] == {"name": "chromium", "version": "156.0.0.0"}
    assert env["viewport"] == {"width": 1280, "height": 800}
    assert (env["locale"], env["timezone"], env["user_agent"]) == ("en-US", "UTC", "UA")


def test_a_json_response_ends_the_default_wait_then_the_app_settles():
    plan = wait_plan(None)
    session = RenderSession(plan, wait_timeout=5)
    api = FakeResponse(
        "http://shop.example/api/deals.json",
        "fetch",
        b'{"deals": []}',
        "application/json; charset=utf-8",
    )
    prepare(session, FakePage({plan.settle: 0.01}), [api])
    assert session.wait["met"] and session.wait["by"] == ["response"]
    assert session.wait["settled"] is True
    (captured,) = session.captured
    assert captured["url"].endswith("/api/deals.json") and captured["text"] == '{"deals": []}'
    assert (captured["status"], captured["method"], captured["resource_type"]) == (
        200,
        "GET",
        "fetch",
    )


def test_the_wait_is_bounded_and_says_it_was_not_met():
    session = RenderSession(wait_plan(None), wait_timeout=0.3)
    took = prepare(session, FakePage())
    assert session.wait["met"] is False and "by" not in session.wait
    assert 0.25 < took < 3 and 250 <= session.wait["waited_ms"] < 3000


def test_a_rule_runs_its_actions_then_waits_for_every_condition():
    plan = WaitPlan(
        selector="script#spec-data",
        response=re.compile(r"/api/specs/"),
        any_json=False,
        settle=None,
        actions=(Action("click", "button#show-specs"),),
    )
    session = RenderSession(plan, wait_timeout=5)
    page = FakePage({"script#spec-data": 0.05})
    api = FakeResponse("http://shop.example/api/specs/x.json", "xhr", b"{}", "application/json")
    prepare(session, page, [api])
    assert page.clicked == ["button#show-specs"]
    assert session.actions == [{"click": "button#show-specs", "ok": True}]
    assert session.wait["met"] and sorted(session.wait["by"]) == ["response", "selector"]


def test_a_failed_action_is_recorded_and_the_wait_still_bounded():
    plan = WaitPlan(
        selector="#never", any_json=False, settle=None, actions=(Action("click", "#gone"),)
    )
    session = RenderSession(plan, wait_timeout=0.3)
    prepare(session, FakePage(clickable=False))
    (action,) = session.actions
    assert action["ok"] is False and action["error"].startswith("TimeoutError: Timeout")
    assert session.wait["met"] is False


def test_only_json_xhr_and_fetch_responses_are_captured_and_the_document_is_kept():
    session = RenderSession(WaitPlan(), wait_timeout=0.2, max_bytes=50)
    responses = [
        FakeResponse(PAGE, "document", b"<html>served</html>", "text/html"),
        FakeResponse("http://shop.example/app.js", "script", b"x()", "application/javascript"),
        FakeResponse("http://shop.example/api/a.json", "xhr", b'{"a": 1}', "application/json"),
        FakeResponse("http://shop.example/api/b", "fetch", b"<p>html</p>", "text/html"),
        FakeResponse("http://shop.example/api/c.json", "fetch", b"{}", "application/json", 500),
        FakeResponse(
            "http://shop.example/api/big.json",
            "fetch",
            b"[" + b"1," * 60 + b"1]",
            "application/json",
        ),
    ]
    prepare(session, FakePage(), responses)
    assert session.document_body == b"<html>served</html>"
    assert session.document_type == "text/html"
    assert [c["url"].rsplit("/", 1)[1] for c in session.captured] == ["a.json", "big.json"]
    big = session.captured[1]
    assert big["text"] is None and big["note"].startswith("too-large")


def test_capture_can_be_switched_off():
    session = RenderSession(WaitPlan(), wait_timeout=0.2, capture_json=False)
    api = FakeResponse("http://shop.example/api/a.json", "xhr", b'{"a": 1}', "application/json")
    prepare(session, FakePage(), [api])
    assert session.captured == []


# -- network-json records -----------------------------------------------------------------

DEALS = {
    "title": "Deals",
    "offers": [
        {
            "@type": "Offer",
            "price": "229.00",
            "priceCurrency": "USD",
            "itemOffered": {"@type": "Product", "name": "Jacket", "url": "/products/jacket.html"},
        },
    ],
}
CAPTURED = {
    "url": "http://shop.example/api/deals.json",
    "status": 200,
    "method": "GET",
    "content_type": "application/json",
    "text": json.dumps(DEALS),
}


def test_network_records_carry_endpoint_status_and_json_path():
    document, offer = (r.to_dict() for r in network_records([CAPTURED], page_url=PAGE))
    assert document["format"] == offer["format"] == "network-json"
    assert document["source_url"] == PAGE and document["properties"]["title"] == "Deals"
    assert offer["type"] == ["Offer"] and offer["source_element"] == "$.offers[0]"
    assert offer["provenance"]["network"] == {
        "url": "http://shop.example/api/deals.json",
        "method": "GET",
        "status": 200,
        "content_type": "application/json",
    }
    assert offer["provenance"]["fields"]["price"][0]["path"] == "$.offers[0].price"
    product = offer["properties"]["itemOffered"]
    assert product["format"] == "network-json"
    assert product["properties"]["url"] == "http://shop.example/products/jacket.html"


def test_a_json_ld_response_and_broken_or_unread_bodies():
    ld = dict(CAPTURED, text='{"@context": "https://schema.org", "@type": "Product", "name": "X"}')
    (product,) = network_records([ld], page_url=PAGE)
    assert product.format == "network-json" and product.context == "https://schema.org"
    (broken,) = network_records([dict(CAPTURED, text='{"a": ')], page_url=PAGE)
    assert broken.kind == "error" and broken.error.code == "json-invalid"
    assert broken.format == "network-json" and broken.raw == '{"a": '
    (unread,) = network_records(
        [dict(CAPTURED, text=None, note="too-large: 9 bytes")], page_url=PAGE
    )
    assert unread.kind == "skip" and unread.error.code == "network-json-not-read"
    assert "too-large" in unread.error.message


# -- pipelines ------------------------------------------------------------------------------


def rendered_page(**kw: Any) -> PageItem:
    base = dict(
        url=PAGE,
        final_url=PAGE,
        status=200,
        content_type="text/html",
        body=b"<html><body><div id='app'><h1>Deals</h1></div></body></html>",
        retrieved_at="2026-01-01T00:00:00.000Z",
        fetched_with="browser",
        fetch_reason="empty-mount",
        render={"reason": "empty-mount", "records_http": 0},
        network=[CAPTURED],
    )
    base.update(kw)
    return PageItem(**base)


def test_extraction_adds_network_records_and_the_gain_is_judged():
    crawler = get_crawler(settings_dict={})
    item = ExtractionPipeline.from_crawler(crawler).process_item(rendered_page())
    item = RenderGainPipeline.from_crawler(crawler).process_item(item)
    formats = [(r["format"], r["kind"]) for r in item.records]
    assert formats == [("network-json", "entity"), ("network-json", "entity")]  # no "no-records"
    fetch = item.records[1]["provenance"]["fetch"]
    assert (fetch["fetched_with"], fetch["fetch_reason"]) == ("browser", "empty-mount")
    assert item.render["records_rendered"] == 2 and item.render["gain"] == 2
    assert item.network == []
    stats = crawler.stats.get_stats()
    assert stats["structcrawl/extract/entity/network-json"] == 2
    assert stats["structcrawl/render/gained"] == 1
    out = io.BytesIO()
    exporter = PagesJsonLinesExporter(out)
    exporter.export_item(item)
    row = json.loads(out.getvalue())
    assert "network" not in row and row["render"]["gain"] == 2


def test_a_render_that_added_nothing_is_a_misprediction():
    crawler = get_crawler(settings_dict={})
    item = rendered_page(network=[], render={"reason": "rule", "records_http": 3})
    item = RenderGainPipeline.from_crawler(crawler).process_item(item)
    assert item.render["gain"] == -3
    assert crawler.stats.get_value("structcrawl/render/mispredicted/rendered_without_gain") == 1


def test_http_pages_are_left_alone():
    crawler = get_crawler(settings_dict={})
    item = rendered_page(fetched_with="http", render=None, network=[])
    assert RenderGainPipeline.from_crawler(crawler).process_item(item).render is None
    assert not [k for k in crawler.stats.get_stats() if k.startswith("structcrawl/render")]


def test_rendering_off_disables_the_gain_pipeline():
    with pytest.raises(NotConfigured):
        RenderGainPipeline.from_crawler(
            get_crawler(settings_dict={"STRUCTCRAWL_RENDER_ENABLED": False})
        )


def test_render_config_defaults_and_a_bad_viewport():
    from scrapy.settings import Settings

    config = RenderConfig.from_settings(Settings({"USER_AGENT": "ua/1"}))
    assert config.viewport == (1280, 800) and config.user_agent == "ua/1"
    assert config.block_resources == frozenset({"image", "font", "media"})
    assert config.max_pages == DEFAULTS["STRUCTCRAWL_RENDER_MAX_PAGES"].default
    assert config.handler == "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"
    with pytest.raises(ValueError, match="1280x800"):
        RenderConfig.from_settings(Settings({"STRUCTCRAWL_RENDER_VIEWPORT": "wide"}))


def test_rule_tables_turn_into_wait_plans_with_actions():
    site = parse_site(
        {
            "name": "s",
            "hosts": ["s.example"],
            "render": [{"url_pattern": "/x", "actions": [{"click": "#a"}]}],
        }
    )
    plan = wait_plan(site.render[0])
    assert plan.any_json and plan.actions == (Action("click", "#a"),)  # default wait, with actions


class BrokenResponse(FakeResponse):
    async def body(self) -> bytes:
        raise RuntimeError("Target page, context or browser has been closed")


class SlowResponse(FakeResponse):
    async def body(self) -> bytes:
        await asyncio.sleep(30)
        return self._body


def test_json_responses_not_kept_are_counted_by_reason():
    api = "http://shop.example/api/"
    plan = WaitPlan(selector=None, any_json=False, settle=None)  # nothing to wait for
    session = RenderSession(plan, wait_timeout=0.2, max_bytes=10)
    responses = [
        FakeResponse(api + "ok.json", "fetch", b'{"a": 1}', "application/json"),
        FakeResponse(api + "gone.json", "fetch", b'{"e": 1}', "application/json", status=404),
        FakeResponse(api + "big.json", "xhr", b'{"a": "' + b"x" * 20 + b'"}', "application/json"),
        BrokenResponse(api + "closed.json", "fetch", b"{}", "application/json"),
        SlowResponse(api + "slow.json", "fetch", b"{}", "application/json"),
        FakeResponse(api + "style.css", "fetch", b"body{}", "text/css"),  # not JSON: not counted
    ]

    async def go() -> None:
        for response in responses:
            session.on_response(response)
        await session.prepare(FakePage())
        await asyncio.sleep(0)  # the cancelled capture runs its clean-up

    asyncio.run(go())
    assert [e["url"] for e in session.captured] == [api + "ok.json", api + "big.json"]
    assert session.dropped == {"status": 1, "too-large": 1, "unreadable": 1, "late": 1}


def test_a_consent_button_absent_from_the_page_is_not_an_error():
    plan = WaitPlan(selector=None, any_json=False, settle=None, consent="#accept")
    present, absent = RenderSession(plan, wait_timeout=1), RenderSession(plan, wait_timeout=1)
    page = FakePage()
    prepare(present, page)
    assert present.consent == {"selector": "#accept", "dismissed": True} and page.clicked == [
        "#accept"
    ]
    prepare(absent, FakePage(clickable=False))  # the click times out: no dialog showed up
    assert absent.consent == {"selector": "#accept", "dismissed": False}
    assert RenderSession(WaitPlan()).consent is None  # no rule, nothing recorded
