"""``RenderDownloadHandler``: plain HTTP, or the browser, decided per request.

Registered for ``http`` and ``https`` in ``DOWNLOAD_HANDLERS``. For each request it asks
:func:`structcrawl.render.routing.decide` first (a site rule, the request's own wish, or a
URL template learned on this site send it straight to the browser); otherwise it fetches with
Scrapy's own HTTP handler and, when the 2xx HTML response looks JS-only
(:func:`~structcrawl.render.routing.judge_response`), fetches the page again in the browser.
The judgement is the page reader's where the crawl registered one
(:mod:`structcrawl.render.pagereads`: a page worker reading the page whole, on its own parse,
before the crawl parses it); else the handler parses the page to judge it and leaves the tree
on the request for the spider. Exceptions and 4xx/5xx from the HTTP fetch are returned as
they are: a failed fetch is a failure, not a sign that JavaScript is needed.

Browser fetches go through the wrapped handler named by ``STRUCTCRAWL_RENDER_HANDLER``
(scrapy-playwright's), with a :class:`~structcrawl.render.capture.RenderSession` as its page
method and response handler (wired in :mod:`structcrawl.render._session`), after the
rendered-snapshot cache (:mod:`structcrawl.render._snapshotrun`): a page whose server HTML is
unchanged since an earlier crawl rendered it gets that render back, not a browser. What
happened is left in ``request.meta`` for the spider:
``playwright`` (fetched with the browser), ``structcrawl_render_reason``,
``structcrawl_render`` (the rendering context, with the browser context's cookies, values
redacted, and the consent dialog), ``structcrawl_render_network`` (captured JSON responses)
and ``structcrawl_render_server_body`` (the server's own HTML, kept as evidence beside the
rendered DOM: :mod:`structcrawl.render.evidence`). A browser that cannot start fails the
request with :class:`~structcrawl.render._browserpool.BrowserLaunchFailed` (``fetch_error_code``
``browser-launch-failed``) and counts ``structcrawl/failure/browser``, so the crawl exits
non-zero; requests that never needed the browser are unaffected.

Stats: ``structcrawl/render/escalated/<reason>``, ``structcrawl/render/pages``,
``structcrawl/render/judged``, ``structcrawl/render/learned_templates``,
``structcrawl/render/challenge_not_rendered`` (a 2xx bot challenge, left to the spider),
``structcrawl/render/mispredicted/http_needed_render``, ``structcrawl/render/wait/met`` and
``/not_met``, ``structcrawl/render/network_json/responses``,
``structcrawl/render/capture/dropped/<reason>`` (JSON responses not kept: ``status``,
``too-large``, ``unreadable``, ``late``),
``structcrawl/render/error/<code>``, ``structcrawl/render/abandoned``,
``structcrawl/render/browser/restarts`` and ``/crashed``, ``structcrawl/failure/browser``,
``structcrawl/render/memory/stopped/<bound>`` (a renderer stopped for its memory: ``page``,
``all``; :mod:`structcrawl.render.memory`), ``/peak_mb`` and ``/page_peak_mb``.
The render audit counts ``structcrawl/render/audit/*`` (:mod:`structcrawl.render._auditrun`),
the snapshot cache ``structcrawl/render/cache/*`` (:mod:`structcrawl.render._snapshotrun`).

Rendering cannot be switched off by raising ``NotConfigured`` (Scrapy would then have no
handler for http at all): with ``STRUCTCRAWL_RENDER_ENABLED`` off every request goes to the
plain HTTP handler and no browser handler is built.
"""

from __future__ import annotations

import weakref
from typing import Any, ClassVar

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.utils.misc import build_from_crawler, load_object

from structcrawl.core.addresses import AddressPolicy
from structcrawl.core.challenge import CHALLENGE_CHECKED_META, CHALLENGE_META, detect_challenge
from structcrawl.core.document import PARSED_META, Document
from structcrawl.extract.config import ExtractConfig
from structcrawl.render._auditrun import AuditRun
from structcrawl.render._body import decoded_body
from structcrawl.render._browserpool import (
    BrowserLaunchFailed,
    BrowserPool,
    RenderFailed,
    close_handler,
)
from structcrawl.render._headers import fetch_credentialed
from structcrawl.render._session import CONTEXT_NAME
from structcrawl.render._snapshotrun import SnapshotRun
from structcrawl.render.addresses import AddressGuard, AddressRefused
from structcrawl.render.config import RenderConfig
from structcrawl.render.egress import EgressProxy
from structcrawl.render.guard import NavigationGuard
from structcrawl.render.pagereads import reader_of
from structcrawl.render.routing import (
    Route,
    ShellVerdict,
    TemplateLearner,
    decide,
    judge_and_parse,
)
from structcrawl.render.rules import RenderRules, load_render_rules

__all__ = ["CONTEXT_NAME", "BrowserLaunchFailed", "RenderDownloadHandler", "RenderFailed"]


class _Core:
    """State shared by the handler instances of one crawler (one per URL scheme): one HTTP
    handler, one browser pool, one learner."""

    def __init__(self, crawler: Crawler, config: RenderConfig):
        self.crawler = crawler
        self.config = config
        self.stats = crawler.stats
        self.refs = 0
        http = config.http_handler or crawler.settings.getdict("DOWNLOAD_HANDLERS_BASE")["https"]
        self.http: Any = build_from_crawler(load_object(http), crawler)
        self.pool: BrowserPool | None = None
        self.rules = RenderRules()
        self.learner = TemplateLearner(config.learn_after)
        self.syntaxes = ExtractConfig.from_settings(crawler.settings).syntaxes
        self.challenges = crawler.settings.getbool("STRUCTCRAWL_CHALLENGE_ENABLED", True)
        self.maxsize = crawler.settings.getint("DOWNLOAD_MAXSIZE")
        self.addresses = AddressGuard(
            AddressPolicy(enabled=config.address_policy, allow=config.address_allow)
        )
        if config.enabled:
            self.rules = load_render_rules(config.rules_dir)
            self.pool = BrowserPool(crawler, config)
            self.egress = EgressProxy.for_crawl(
                self.addresses.policy,
                proxies=crawler.settings.getbool("HTTPPROXY_ENABLED", True),
                max_bytes=self.maxsize,
                timeout=config.timeout,
            )
            self.addresses.others.append(self.egress.refusal_for)
            self._guard_browser(crawler)
            self.guard.precheck = self.egress.precheck if config.address_policy else None
            self.guard.credentialed = fetch_credentialed
            width, height = config.viewport
            self.context_kwargs: dict[str, Any] = {
                "viewport": {"width": width, "height": height},
                "locale": config.locale,
                "timezone_id": config.timezone,
                "service_workers": "block",
            }
            if config.user_agent:
                self.context_kwargs["user_agent"] = config.user_agent
        self.audit = AuditRun(self)
        self.snapshots = SnapshotRun(self)

    def _guard_browser(self, crawler: Crawler) -> None:
        """Pages the browser renders stay on the crawl's hosts and on http(s): every request a
        page makes goes through a :class:`NavigationGuard` (a route the page init callback
        installs before navigation, ahead of the wrapped handler's own)."""

        def blocked(reason: str, url: str) -> None:
            self.stats.inc_value(f"structcrawl/render/blocked/{reason}")

        self.guard = NavigationGuard(
            allowed_domains=lambda: getattr(crawler.spider, "allowed_domains", None) or (),
            extra_hosts=self.config.allowed_hosts,
            on_block=blocked,
        )

    async def close(self) -> None:
        await close_handler(self.http)
        self.snapshots.close()
        if self.pool is not None:
            await self.pool.close()
            await self.egress.close()

    # -- routing ---------------------------------------------------------------------------

    async def download(self, request: Request) -> Response:
        try:
            return await self.addresses.fetch(self.crawler.spider, request, self._download)
        except AddressRefused as exc:
            self.stats.inc_value(f"structcrawl/address/refused/{exc.refusal.rule}")
            raise

    async def _download(self, request: Request) -> Response:
        meta = request.meta
        if self.pool is None:
            return await self.http.download_request(request)
        if meta.get("playwright") and meta.get("structcrawl_render_reason"):
            # a retried or re-scheduled request that was rendered before: keep its reason
            route = decide(request.url, self.rules, self.learner, requested=True)
            route = Route("browser", meta["structcrawl_render_reason"], route.rule, route.plan)
        else:
            wish = meta.get("playwright")
            requested = True if wish is True else (False if wish is False else None)
            route = decide(
                request.url,
                self.rules,
                self.learner,
                requested=requested,
                detect=self.config.detect,
            )
        if route.mode == "browser" and request.method == "GET":
            self.stats.inc_value(f"structcrawl/render/escalated/{route.reason}")
            return await self.render(request, route)
        meta.pop("playwright", None)
        response: Response = await self.http.download_request(request)
        if not route.detect or request.method != "GET":
            return response
        verdict = await self._judge(request, response, route)
        if verdict is None:
            return response
        if not verdict.js_only:  # the audit may render it anyway (structcrawl.render.audit)
            return await self.audit.after_http(request, response, route, verdict)
        if self.learner.record(request.url) == self.config.learn_after:
            self.stats.inc_value("structcrawl/render/learned_templates")
        self.stats.inc_value(f"structcrawl/render/escalated/{verdict.reason}")
        self.stats.inc_value("structcrawl/render/mispredicted/http_needed_render")
        escalated = Route("browser", verdict.reason, route.rule, route.plan)
        return await self.render(request, escalated, http_response=response, verdict=verdict)

    async def _judge(
        self, request: Request, response: Response, route: Route
    ) -> ShellVerdict | None:
        if not 200 <= response.status < 300:
            return None
        body = decoded_body(response.body, response.headers.getlist(b"Content-Encoding"))
        if body is None:
            return None
        raw_type = response.headers.get(b"Content-Type")
        content_type = raw_type.decode("latin-1") if raw_type else None
        if self.challenges and self._challenged(request, response, body):
            return None  # never rendered, never learned as a JavaScript-only template
        reader = reader_of(self.crawler)  # a page worker (structcrawl.crawl.pageworkers)
        read = None
        if reader is not None:
            read = await reader.read(body, response.url, content_type, route.expect)
        doc: Document | None
        if read is not None:
            verdict, doc = read
        else:
            verdict, doc = judge_and_parse(
                body, response.url, content_type, response.status, route.expect
            )
        if doc is not None and not verdict.js_only:
            # the spider reuses this tree instead of parsing the page a second time
            request.meta[PARSED_META] = (len(body), doc)
        if not any(s.startswith("payload:") for s in verdict.signals):
            self.stats.inc_value("structcrawl/render/judged")  # a 2xx HTML page
        if verdict.js_only:
            self.stats.inc_value("structcrawl/render/judged/js_only")
        return verdict

    def _challenged(self, request: Request, response: Response, body: bytes) -> bool:
        """A 2xx bot challenge (a content-less page with a vendor's challenge script) looks
        JS-only, but rendering it would only run the challenge: note it for the challenge
        middleware and the spider instead."""
        headers = {
            k.decode("latin-1"): [v.decode("latin-1") for v in values]
            for k, values in response.headers.items()
        }
        challenge = detect_challenge(response.status, headers, body)
        if challenge is None:
            request.meta[CHALLENGE_CHECKED_META] = (response.status, len(body))
            return False
        request.meta[CHALLENGE_META] = challenge.to_dict()
        self.stats.inc_value("structcrawl/render/challenge_not_rendered")
        return True

    async def render(
        self,
        request: Request,
        route: Route,
        *,
        http_response: Response | None = None,
        verdict: ShellVerdict | None = None,
    ) -> Response:
        """``request`` rendered in the browser (:mod:`structcrawl.render._session`), or its
        rendered snapshot when the server's page has not changed since it was rendered
        (:mod:`structcrawl.render._snapshotrun`)."""
        return await self.snapshots.render(request, route, http_response, verdict)


class RenderDownloadHandler:
    """The ``http``/``https`` download handler (see the module docstring)."""

    lazy = False  # built before the engine starts, so the browser handler sees engine_started
    _cores: ClassVar[weakref.WeakKeyDictionary[Crawler, _Core]] = weakref.WeakKeyDictionary()

    def __init__(self, crawler: Crawler, core: _Core):
        self.crawler = crawler
        self.core = core
        core.refs += 1

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RenderDownloadHandler:
        core = cls._cores.get(crawler)
        if core is None:
            config = RenderConfig.from_settings(crawler.settings)
            core = cls._cores[crawler] = _Core(crawler, config)
        return cls(crawler, core)

    async def download_request(self, request: Request) -> Response:
        return await self.core.download(request)

    async def close(self) -> None:
        self.core.refs -= 1
        if self.core.refs <= 0:
            await self.core.close()
            self._cores.pop(self.crawler, None)
