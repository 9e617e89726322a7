"""``RenderDownloadHandler``: plain HTTP, or the browser, decided per request.

Size: the render audit and the egress watch of the address policy were wired in at once;
the browser session's wiring (app state, refused requests, audit wait) is the part to move
out next.

Registered for ``http`` and ``https`` in ``DOWNLOAD_HANDLERS``. For each request it asks
:func:`structcrawl.render.routing.decide` first (a site rule, the request's own wish, or a
URL template learned on this site send it straight to the browser); otherwise it fetches with
Scrapy's own HTTP handler and, when the 2xx HTML response looks JS-only
(:func:`~structcrawl.render.routing.judge_response`), fetches the page again in the browser.
Exceptions and 4xx/5xx from the HTTP fetch are returned as they are: a failed fetch is a
failure, not a sign that JavaScript is needed.

Browser fetches go through the wrapped handler named by ``STRUCTCRAWL_RENDER_HANDLER``
(scrapy-playwright's), with a :class:`~structcrawl.render.capture.RenderSession` as its page
method and response handler. What happened is left in ``request.meta`` for the spider:
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
``structcrawl/render/browser/restarts`` and ``/crashed``, ``structcrawl/failure/browser``.

Rendering cannot be switched off by raising ``NotConfigured`` (Scrapy would then have no
handler for http at all): with ``STRUCTCRAWL_RENDER_ENABLED`` off every request goes to the
plain HTTP handler and no browser handler is built.
"""

from __future__ import annotations

import time
import weakref
from typing import Any, ClassVar

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy_playwright.page import PageMethod

from structcrawl.core.addresses import AddressPolicy
from structcrawl.core.challenge import CHALLENGE_CHECKED_META, CHALLENGE_META, detect_challenge
from structcrawl.core.document import PARSED_META
from structcrawl.extract.config import ExtractConfig
from structcrawl.render._auditrun import AuditRun
from structcrawl.render._body import decoded_body
from structcrawl.render._browserpool import (
    BrowserCrashed,
    BrowserLaunchFailed,
    BrowserPool,
    PageTooLarge,
    RenderFailed,
    close_handler,
)
from structcrawl.render._headers import fetch_credentialed
from structcrawl.render._pagewatch import PageWatch
from structcrawl.render.addresses import AddressGuard, AddressRefused
from structcrawl.render.capture import RenderSession
from structcrawl.render.config import RenderConfig
from structcrawl.render.egress import EgressProxy
from structcrawl.render.evidence import (
    SERVER_BODY_META,
    consent_facts,
    entity_count,
    server_html,
)
from structcrawl.render.guard import WATCH_META, NavigationGuard
from structcrawl.render.network import app_state
from structcrawl.render.routing import (
    Route,
    ShellVerdict,
    TemplateLearner,
    decide,
    judge_and_parse,
)
from structcrawl.render.rules import RenderRules, load_render_rules

__all__ = ["CONTEXT_NAME", "BrowserLaunchFailed", "RenderDownloadHandler", "RenderFailed"]

#: The browser context every rendered page opens in.
CONTEXT_NAME = "structcrawl"


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
        verdict = self._judge(request, response, route)
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

    def _judge(self, request: Request, response: Response, route: Route) -> ShellVerdict | None:
        if not 200 <= response.status < 300:
            return None
        body = decoded_body(response.body, response.headers.getlist(b"Content-Encoding"))
        if body is None:
            return None
        raw_type = response.headers.get(b"Content-Type")
        content_type = raw_type.decode("latin-1") if raw_type else None
        if self.challenges and self._challenged(request, response, body):
            return None  # never rendered, never learned as a JavaScript-only template
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

    # -- the browser -----------------------------------------------------------------------

    async def render(
        self,
        request: Request,
        route: Route,
        *,
        http_response: Response | None = None,
        verdict: ShellVerdict | None = None,
    ) -> Response:
        started = time.monotonic()
        try:
            try:
                session, response, seconds = await self._render_once(request, route)
            except BrowserCrashed:  # the browser died under the page: once more, in a new one
                self.stats.inc_value("structcrawl/render/browser/crash_retries")
                session, response, seconds = await self._render_once(request, route)
        except (BrowserLaunchFailed, RenderFailed) as exc:
            self.stats.inc_value(f"structcrawl/render/error/{exc.fetch_error_code}")
            raise
        render_ms = round(seconds * 1000)
        queued_ms = max(round((time.monotonic() - started) * 1000) - render_ms, 0)
        self.stats.inc_value("structcrawl/render/pages")
        met = "met" if session.wait.get("met") else "not_met"
        self.stats.inc_value(f"structcrawl/render/wait/{met}")
        self.stats.inc_value("structcrawl/render/network_json/responses", len(session.captured))
        for reason, count in sorted(session.dropped.items()):
            self.stats.inc_value(f"structcrawl/render/capture/dropped/{reason}", count)
        if http_response is None:  # the browser's own navigation response (no second fetch)
            server_body, server_type = session.document_body, session.document_type
        else:
            server_body, server_type = server_html(http_response)
        if server_body is not None:
            if len(server_body) <= self.maxsize:
                request.meta[SERVER_BODY_META] = server_body
            else:  # over DOWNLOAD_MAXSIZE, as an HTTP body would be: not kept
                self.stats.inc_value("structcrawl/render/server_body/too_large")
        context = self._context(session, route, (render_ms, queued_ms), verdict, response)
        context["records_http"] = entity_count(server_body, server_type, request.url, self.syntaxes)
        request.meta["structcrawl_render"] = context
        request.meta["structcrawl_render_network"] = [
            *session.captured, *app_state(session.state), *session.watch.refused,
        ]  # fmt: skip
        if session.state:
            context["app_state"] = [
                {"global": s["global"], "read": s.get("text") is not None} for s in session.state
            ]
            self.stats.inc_value("structcrawl/render/app_state/globals", len(session.state))
        if session.watch.refused_count:
            self.stats.inc_value("structcrawl/address/refused/browser", session.watch.refused_count)
        return response

    async def _render_once(
        self, request: Request, route: Route
    ) -> tuple[RenderSession, Response, float]:
        assert self.pool is not None
        config = self.config
        session = RenderSession(
            route.plan,
            wait_timeout=config.audit.wait if route.reason == "audit" else config.wait_timeout,
            capture_json=config.capture_json,
            max_bytes=config.capture_max_bytes,
            state_globals=config.app_state,
        )
        session.watch = watch = PageWatch(self.egress)
        if "proxy" not in self.context_kwargs:  # every request of every page goes through it
            self.context_kwargs["proxy"] = {"server": await self.egress.start()}
        meta = request.meta
        meta.update(
            {
                "playwright": True,
                "playwright_context": CONTEXT_NAME,
                "playwright_context_kwargs": self.context_kwargs,
                "playwright_include_page": False,
                "playwright_page_methods": [PageMethod(session.prepare)],
                "playwright_page_init_callback": self.guard.install,
                "playwright_page_event_handlers": {
                    "response": session.on_response,
                    "requestfailed": session.on_request_failed,
                },
                "playwright_page_goto_kwargs": {
                    "wait_until": "load",
                    "timeout": config.timeout * 1000,
                },
                "structcrawl_render_reason": route.reason,
                WATCH_META: watch,
            }
        )
        try:
            response, seconds = await self.pool.fetch(request, abandon=session.close_page)
        except RenderFailed as exc:
            if watch.navigation is not None:  # the page, or a redirect of it, was refused
                raise AddressRefused(watch.navigation) from exc
            raise
        finally:
            session.page = None  # the wrapped handler closed it (or abandon did)
            for key in ("playwright_page_methods", "playwright_page_event_handlers"):
                meta.pop(key, None)  # they hold the session: let it go with the page
            meta.pop("playwright_page_init_callback", None)
            meta.pop(WATCH_META, None)
        if watch.navigation is not None:
            raise AddressRefused(watch.navigation)
        if watch.cut or len(response.body) > self.maxsize:
            what = f"a response ({watch.cut[0]})" if watch.cut else "the rendered page"
            raise PageTooLarge(f"{what} is over DOWNLOAD_MAXSIZE ({self.maxsize} bytes)")
        return session, response, seconds

    def _context(
        self,
        session: RenderSession,
        route: Route,
        timing: tuple[int, int],
        verdict: ShellVerdict | None,
        response: Response,
    ) -> dict[str, Any]:
        env = session.environment
        assert self.pool is not None
        location = self.pool.location
        context: dict[str, Any] = {
            "reason": route.reason,
            "browser": {
                **(env.get("browser") or {}),
                "executable": location.path,
                "found_by": location.source,
            },
            "viewport": env.get("viewport"),
            "locale": env.get("locale"),
            "timezone": env.get("timezone"),
            "user_agent": env.get("user_agent"),
            "wait": session.wait,
            "actions": session.actions,
            "render_ms": timing[0],
            "queued_ms": timing[1],
            "network_json": len(session.captured),
            "cookies": session.cookies,
            "consent": consent_facts(response.body, session.consent),
        }
        if route.rule is not None:
            rule = route.rule
            context["rule"] = {"site": rule.site, "url_pattern": rule.url_pattern.pattern}
        if verdict is not None:
            context["signals"] = list(verdict.signals)
        return context


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
