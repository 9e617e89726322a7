"""Where the render audit runs: not on a page without JavaScript (nothing could add data to
it), and a site stops being audited once, however many of its audits were in flight."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from structcrawl.render._auditrun import AuditRun
from structcrawl.render.audit import AuditConfig, RenderAudit
from structcrawl.render.routing import Route, judge_response
from structcrawl.render.templates import TemplateLearner


class _Core:
    """The handler's shared state, as far as the audit reads it; records what it renders."""

    def __init__(self) -> None:
        self.stats = MemoryStatsCollector(get_crawler())
        self.config = SimpleNamespace(audit=AuditConfig(first=3))
        self.learner = TemplateLearner(2)
        self.pool = SimpleNamespace(
            location=SimpleNamespace(problem=lambda: None), launch_error=None
        )
        self.rendered: list[str] = []

    async def render(self, request, route, http_response=None, verdict=None):
        self.rendered.append(request.url)
        raise AssertionError("not rendered in this test")


def _after_http(core: _Core, body: bytes, url: str) -> str:
    response = HtmlResponse(url, body=body, headers={"Content-Type": "text/html"})
    verdict = judge_response(body, url, "text/html", 200)
    route = Route("http", None, None, None)
    result = asyncio.run(AuditRun(core).after_http(Request(url), response, route, verdict))
    assert result is response
    return verdict.signals


def test_a_page_without_javascript_is_not_audited():
    core = _Core()
    signals = _after_http(core, b"<html><body><h1>Tent</h1><p>49 EUR</p></body></html>",
                          "http://shop.example/p/1.html")  # fmt: skip
    assert "no-scripts" in signals
    assert core.rendered == []
    assert core.stats.get_value("structcrawl/render/audit/skipped/no_scripts") == 1
    assert core.stats.get_value("structcrawl/render/audit/pages") is None


def test_a_site_is_stopped_once_when_audits_in_flight_end_after_the_stop():
    audit = RenderAudit(AuditConfig(first=8, give_up=2), TemplateLearner(2))
    urls = [f"http://a.example/p/{n}.html" for n in range(4)]
    assert all(audit.choose(url) == "first" for url in urls)  # four in flight at once
    for url in urls:
        audit.record(url, gain=0, seconds=1.0)
    assert audit.stops == 1 and audit.stopped_sites() == ["a.example"]
