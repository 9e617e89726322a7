"""The browser session of one rendered page: the page method and event handlers
(:class:`~structcrawl.render.capture.RenderSession`), the egress watch, the wrapped handler's
``playwright_*`` meta, the retry after a browser crash, and what the render leaves in
``request.meta`` for the spider (the rendering context, the captured JSON responses and app
state, the server's own HTML).

Called by the download handler (:mod:`structcrawl.render.handler`) with its shared state
(``handler._Core``: config, stats, the browser pool, the egress proxy, the guard); the
rendered-snapshot cache (:mod:`structcrawl.render._snapshotrun`) calls it on a miss.
"""

from __future__ import annotations

import time
from typing import Any

from scrapy import Request
from scrapy.http import Response
from scrapy_playwright.page import PageMethod

from structcrawl.render._browserpool import (
    BrowserCrashed,
    BrowserLaunchFailed,
    PageTooLarge,
    RenderFailed,
)
from structcrawl.render._pagewatch import PageWatch
from structcrawl.render.addresses import AddressRefused
from structcrawl.render.capture import RenderSession
from structcrawl.render.evidence import (
    SERVER_BODY_META,
    consent_facts,
    entity_count,
    server_html,
)
from structcrawl.render.guard import WATCH_META
from structcrawl.render.network import app_state
from structcrawl.render.routing import Route, ShellVerdict

__all__ = ["CONTEXT_NAME", "SERVER_FACTS_META", "render_page"]

#: The browser context every rendered page opens in.
CONTEXT_NAME = "structcrawl"
#: The server page's Content-Type and validators (``type``, ``etag``, ``last-modified``),
#: for the render cache (:mod:`structcrawl.render._snapshotrun`), which takes them out.
SERVER_FACTS_META = "_structcrawl_render_server"


async def render_page(
    core: Any,
    request: Request,
    route: Route,
    *,
    http_response: Response | None = None,
    verdict: ShellVerdict | None = None,
) -> Response:
    started = time.monotonic()
    try:
        try:
            session, response, seconds = await _render_once(core, request, route)
        except BrowserCrashed:  # the browser died under the page: once more, in a new one
            core.stats.inc_value("structcrawl/render/browser/crash_retries")
            session, response, seconds = await _render_once(core, request, route)
    except (BrowserLaunchFailed, RenderFailed) as exc:
        core.stats.inc_value(f"structcrawl/render/error/{exc.fetch_error_code}")
        raise
    render_ms = round(seconds * 1000)
    queued_ms = max(round((time.monotonic() - started) * 1000) - render_ms, 0)
    core.stats.inc_value("structcrawl/render/pages")
    met = "met" if session.wait.get("met") else "not_met"
    core.stats.inc_value(f"structcrawl/render/wait/{met}")
    core.stats.inc_value("structcrawl/render/network_json/responses", len(session.captured))
    for reason, count in sorted(session.dropped.items()):
        core.stats.inc_value(f"structcrawl/render/capture/dropped/{reason}", count)
    if http_response is None:  # the browser's own navigation response (no second fetch)
        server_body, server_type = session.document_body, session.document_type
        validators = dict(session.document_validators)
    else:
        server_body, server_type = server_html(http_response)
        validators = {
            name: value.decode("latin-1")
            for name in ("etag", "last-modified")
            if (value := http_response.headers.get(name))
        }
    request.meta[SERVER_FACTS_META] = {"type": server_type, **validators}
    if server_body is not None:
        if len(server_body) <= core.maxsize:
            request.meta[SERVER_BODY_META] = server_body
        else:  # over DOWNLOAD_MAXSIZE, as an HTTP body would be: not kept
            core.stats.inc_value("structcrawl/render/server_body/too_large")
    context = _context(core, session, route, (render_ms, queued_ms), verdict, response)
    context["records_http"] = entity_count(server_body, server_type, request.url, core.syntaxes)
    request.meta["structcrawl_render"] = context
    request.meta["structcrawl_render_network"] = [
        *session.captured, *app_state(session.state), *session.watch.refused,
    ]  # fmt: skip
    if session.state:
        context["app_state"] = [
            {"global": s["global"], "read": s.get("text") is not None} for s in session.state
        ]
        core.stats.inc_value("structcrawl/render/app_state/globals", len(session.state))
    if session.watch.refused_count:
        core.stats.inc_value("structcrawl/address/refused/browser", session.watch.refused_count)
    return response


async def _render_once(
    core: Any, request: Request, route: Route
) -> tuple[RenderSession, Response, float]:
    assert core.pool is not None
    config = core.config
    session = RenderSession(
        route.plan,
        wait_timeout=config.audit.wait if route.reason == "audit" else config.wait_timeout,
        capture_json=config.capture_json,
        max_bytes=config.capture_max_bytes,
        state_globals=config.app_state,
    )
    session.watch = watch = PageWatch(core.egress)
    if "proxy" not in core.context_kwargs:  # every request of every page goes through it
        core.context_kwargs["proxy"] = {"server": await core.egress.start()}
    meta = request.meta
    meta.update(
        {
            "playwright": True,
            "playwright_context": CONTEXT_NAME,
            "playwright_context_kwargs": core.context_kwargs,
            "playwright_include_page": False,
            "playwright_page_methods": [PageMethod(session.prepare)],
            "playwright_page_init_callback": core.guard.install,
            "playwright_page_event_handlers": {
                "response": session.on_response,
                "requestfailed": session.on_request_failed,
                "crash": session.on_crash,
            },
            "playwright_page_goto_kwargs": {
                "wait_until": "load",
                "timeout": config.timeout * 1000,
            },
            "structcrawl_render_reason": route.reason,
            WATCH_META: watch,
        }
    )
    started = time.monotonic()
    try:
        response, seconds = await core.pool.fetch(
            request, abandon=session.close_page, crashed=session.crash_event()
        )
    except RenderFailed as exc:
        overrun = core.pool.memory.overrun_since(started) if session.crashed else None
        if overrun is not None:  # its renderer was stopped for its memory
            raise PageTooLarge(overrun.message()) from exc
        if watch.navigation is not None:  # the page, or a redirect of it, was refused
            raise AddressRefused(watch.navigation) from exc
        if watch.cut and not isinstance(exc, PageTooLarge):  # what it failed on was cut
            raise PageTooLarge(
                f"a response ({watch.cut[0]}) is over DOWNLOAD_MAXSIZE ({core.maxsize} bytes)"
            ) from exc
        raise
    finally:
        session.page = None  # the wrapped handler closed it (or abandon did)
        for key in ("playwright_page_methods", "playwright_page_event_handlers"):
            meta.pop(key, None)  # they hold the session: let it go with the page
        meta.pop("playwright_page_init_callback", None)
        meta.pop(WATCH_META, None)
    if watch.navigation is not None:
        raise AddressRefused(watch.navigation)
    if watch.cut or len(response.body) > core.maxsize:
        what = f"a response ({watch.cut[0]})" if watch.cut else "the rendered page"
        raise PageTooLarge(f"{what} is over DOWNLOAD_MAXSIZE ({core.maxsize} bytes)")
    return session, response, seconds


def _context(
    core: Any,
    session: RenderSession,
    route: Route,
    timing: tuple[int, int],
    verdict: ShellVerdict | None,
    response: Response,
) -> dict[str, Any]:
    env = session.environment
    assert core.pool is not None
    location = core.pool.location
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
