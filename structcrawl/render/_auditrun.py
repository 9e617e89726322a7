"""The render audit inside the download handler: renders the pages
:class:`~structcrawl.render.audit.RenderAudit` picks, measures their gain, and fetches again
in the browser the pages of a template learned from an audit.

Stats: ``structcrawl/render/audit/pages``, ``/sampled/<why>``, ``/gained``, ``/without_gain``,
``/learned_templates``, ``/learned_sites`` (sites whose every page goes to the browser),
``/rerendered`` (pages fetched without the browser before their
template was learned, fetched again in it), ``/sites_stopped``, ``/failed``,
``/skipped/budget``, ``/skipped/no_browser``, ``/skipped/no_scripts`` (a page without
JavaScript: no script could add anything, so it is not audited), ``/skipped/busy`` (a rate's
sample due while the site's audits were rendering: ``STRUCTCRAWL_RENDER_AUDIT_AT_ONCE``) and
``/browser_ms``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from scrapy import Request
from scrapy.http import Response

from structcrawl.core.document import PARSED_META
from structcrawl.extract import extract_payload
from structcrawl.render._body import decoded_body
from structcrawl.render._browserpool import BrowserLaunchFailed, RenderFailed
from structcrawl.render.audit import RenderAudit, typed_gain
from structcrawl.render.network import network_records
from structcrawl.render.routing import Route, ShellVerdict

__all__ = ["AuditRun", "refetch_request"]

logger = logging.getLogger("structcrawl.render")
_PREFIX = "structcrawl/render/audit/"
#: Reason of a page fetched again in the browser once its template was learned.
REFETCH_REASON = "learned"


def refetch_request(request: Request) -> Request:
    """``request`` once more, for the browser: the spider's callback and meta (depth, its own
    keys) kept, the fetch's own state (structcrawl's, playwright's, the downloader's) dropped.

    >>> r = Request("http://a.example/p/1.html", meta={"depth": 1, "structcrawl_parsed": 1,
    ...     "download_latency": 0.1, "playwright": False, "mine": 2})
    >>> again = refetch_request(r)
    >>> sorted(again.meta), again.dont_filter
    (['depth', 'mine', 'playwright', 'structcrawl_render_reason'], True)
    """
    dropped = ("structcrawl_", "playwright", "download_", "redirect_", "retry_", "_")
    meta = {k: v for k, v in request.meta.items() if not k.startswith(dropped)}
    meta.update({"playwright": True, "structcrawl_render_reason": REFETCH_REASON})
    return request.replace(meta=meta, dont_filter=True)


class AuditRun:
    """The audit of one crawl (shared by the handler instances of one crawler)."""

    def __init__(self, core: Any):  # the handler's shared state (handler._Core)
        self.core = core
        self.stats = core.stats
        self.audit: RenderAudit[Request] = RenderAudit(core.config.audit, core.learner)
        pool = core.pool
        self.browser_problem = pool.location.problem() if pool is not None else "off"

    def _count(self, name: str, value: int = 1) -> None:
        self.stats.inc_value(_PREFIX + name, value)

    async def after_http(
        self, request: Request, response: Response, route: Route, verdict: ShellVerdict
    ) -> Response:
        """What becomes of a 2xx HTML page the shell judgement passed: the HTTP response, or
        the page rendered (an audit, or a template learned while it was being fetched)."""
        core = self.core
        if request.method != "GET" or any(s.startswith("payload:") for s in verdict.signals):
            return response  # not an HTML page: nothing a browser would add
        if core.learner.learned(request.url):  # learned while this page was fetched
            self._count("rerendered")
            self.stats.inc_value("structcrawl/render/escalated/learned")
            request.meta.pop(PARSED_META, None)
            learned = Route("browser", "learned", route.rule, route.plan)
            return await core.render(request, learned, http_response=response, verdict=verdict)
        if not self.audit.config.enabled:
            return response
        if "no-scripts" in verdict.signals:  # no JavaScript to run: rendering adds nothing
            self._count("skipped/no_scripts")
            return response
        if self.browser_problem or (core.pool is not None and core.pool.launch_error):
            self._count("skipped/no_browser")
            return response
        before = dict(self.audit.skipped)
        why = self.audit.choose(request.url)
        for name in ("budget", "busy"):
            if self.audit.skipped[name] > before.get(name, 0):
                self._count(f"skipped/{name}")
        if why is None:
            self.audit.remember(request.url, request)
            return response
        try:
            return await self._audit(request, response, route, verdict, why)
        finally:
            self.audit.ended(request.url)

    async def _audit(
        self,
        request: Request,
        response: Response,
        route: Route,
        verdict: ShellVerdict,
        why: str,
    ) -> Response:
        self._count("pages")
        self._count(f"sampled/{why}")
        parsed = request.meta.pop(PARSED_META, None)
        audit_route = Route("browser", "audit", route.rule, route.plan)
        started = time.monotonic()
        try:
            rendered = await self.core.render(
                request, audit_route, http_response=response, verdict=verdict
            )
        except (BrowserLaunchFailed, RenderFailed) as exc:  # an audit never fails the page
            self._count("failed")
            spent = time.monotonic() - started  # a page that timed out spent browser time too
            self._count("browser_ms", round(spent * 1000))
            self.audit.failed(request.url, spent)
            for key in [k for k in request.meta if k.startswith(("playwright", "structcrawl_r"))]:
                del request.meta[key]
            if parsed is not None:
                request.meta[PARSED_META] = parsed
            logger.debug("render audit of %s failed: %s", request.url, exc)
            return response
        context = request.meta["structcrawl_render"]
        seconds = (context.get("render_ms") or 0) / 1000
        self._count("browser_ms", int(context.get("render_ms") or 0))
        gain = self._gain(request, response, rendered)
        context["audit"] = {"sampled": why, "gain": gain}
        logger.debug("render audit of %s (%s): gain %d", request.url, why, gain)
        stops, sites = self.audit.stops, len(self.audit.learned_sites)
        learned = self.audit.record(request.url, gain, seconds)
        self._count("gained" if gain > 0 else "without_gain")
        if self.audit.stops > stops:
            self._count("sites_stopped")
        if learned:
            if len(self.audit.learned_sites) > sites:
                self._count("learned_sites")
            else:
                self._count("learned_templates")
                self.stats.inc_value("structcrawl/render/learned_templates")
            self._refetch(request.url)
        return rendered

    def _gain(self, request: Request, http: Response, rendered: Response) -> int:
        """Typed records the rendered DOM and its JSON responses add to the HTTP version."""
        syntaxes = self.core.syntaxes
        try:
            body = decoded_body(http.body, http.headers.getlist(b"Content-Encoding")) or b""
            before = extract_payload(body, http.url, _type(http), syntaxes=syntaxes)
            after = extract_payload(rendered.body, rendered.url, _type(rendered), syntaxes=syntaxes)
            captured = request.meta.get("structcrawl_render_network") or []
            network = network_records(captured, page_url=rendered.url)
        except Exception:  # the measure is a statistic: never fail the page for it
            return 0
        return typed_gain(before.records, [*after.records, *network])

    def _refetch(self, url: str) -> None:
        engine: Any = getattr(self.core.crawler, "engine", None)
        for request in self.audit.take_refetch(url):
            if engine is None:
                break
            engine.crawl(refetch_request(request))
            self._count("rerendered")


def _type(response: Response) -> str | None:
    raw = response.headers.get(b"Content-Type")
    return raw.decode("latin-1") if raw else None
