"""What happens inside the browser for one page, and the records it adds.

A :class:`RenderSession` belongs to one rendered page. The download handler gives the wrapped
scrapy-playwright handler two of its methods: :meth:`RenderSession.on_response` as the page's
``response`` event handler (``playwright_page_event_handlers``) and
:meth:`RenderSession.prepare` as the one page method (``playwright_page_methods``), which
runs after navigation and before the rendered DOM is read. ``prepare`` runs the rule's page
actions, then waits for a meaningful condition (a selector attached, or a JSON response),
bounded by a timeout and never by a fixed sleep, and records whether it was met; then it
reads the rendering context (browser, viewport, locale, timezone, user agent) from the page.

``on_response`` keeps the navigation response's own body (the HTML as the server sent it,
so a rendered page can be compared with its HTTP version without a second fetch) and the
XHR/fetch responses with a JSON content type; :func:`~structcrawl.render.network.network_records`
turns those into ``network-json`` records with the endpoint, status and JSON path in their
provenance. The browser's request filter is :mod:`structcrawl.render.guard` (both names are
re-exported here).

No Scrapy imports; Playwright objects are used through their public async API only.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from structcrawl.core.payload import split_content_type
from structcrawl.render.evidence import cookie_facts
from structcrawl.render.guard import NavigationGuard
from structcrawl.render.network import NetworkProvenance, network_records
from structcrawl.render.routing import WaitPlan

__all__ = [
    "NavigationGuard",
    "NetworkProvenance",
    "RenderSession",
    "is_json_type",
    "network_records",
]

_CAPTURED_TYPES = frozenset({"xhr", "fetch"})
_CONSENT_WAIT = 3.0  # seconds a consent dialog is given to appear
_ENV_SCRIPT = """() => ({
  user_agent: navigator.userAgent,
  locale: navigator.language,
  timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
})"""


#: Reads the page's own application state after load, inside the browser: each named global
#: of ``window`` that holds an object, serialized there with ``JSON.stringify`` (never by
#: evaluating or pattern-matching script text outside the browser).
_STATE_SCRIPT = """([names, maxChars]) => {
  const out = [];
  for (const name of names) {
    let value;
    try { value = window[name]; } catch (e) { continue; }
    if (value === undefined || value === null || typeof value !== 'object') continue;
    let text;
    try { text = JSON.stringify(value); } catch (e) {
      out.push({global: name, text: null, note: 'not serializable: ' + String(e).slice(0, 200)});
      continue;
    }
    if (typeof text !== 'string') continue;
    if (text.length > maxChars) {
      out.push({global: name, text: null, note: 'too-large: ' + text.length + ' characters'});
      continue;
    }
    out.push({global: name, text: text});
  }
  return out;
}"""


def is_json_type(content_type: str | None) -> bool:
    """Whether a Content-Type names JSON (``application/json``, ``text/json``, ``*+json``).

    >>> is_json_type("application/json; charset=utf-8"), is_json_type("application/ld+json")
    (True, True)
    >>> is_json_type("text/html"), is_json_type(None)
    (False, False)
    """
    mime, _ = split_content_type(content_type)
    return mime in ("application/json", "text/json") or mime.endswith("+json")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


@dataclass
class RenderSession:
    """Per-page state of one render: captures, the wait's outcome, the page's context.

    Not a slots class: Playwright keeps its wrapper of a bound event handler on the instance."""

    plan: WaitPlan
    wait_timeout: float = 10.0
    capture_json: bool = True
    max_bytes: int = 2_000_000
    #: ``window`` globals read as application state after the wait
    #: (``STRUCTCRAWL_RENDER_APP_STATE``).
    state_globals: tuple[str, ...] = ()
    #: What they held: ``{"global", "text"[, "note"]}`` (``text`` None when not read).
    state: list[dict[str, Any]] = field(default_factory=list)
    captured: list[dict[str, Any]] = field(default_factory=list)
    #: JSON responses not kept, by reason: ``status`` (not 2xx), ``too-large`` (body over
    #: ``max_bytes``: a skip record says so), ``unreadable`` (the body could not be read: the
    #: page closed, a network error), ``late`` (still being read when the render ended).
    dropped: Counter[str] = field(default_factory=Counter)
    document_body: bytes | None = None
    document_type: str | None = None
    #: the navigation response's ``etag`` and ``last-modified`` (the render cache's validators)
    document_validators: dict[str, str] = field(default_factory=dict)
    wait: dict[str, Any] = field(default_factory=dict)
    actions: list[dict[str, Any]] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)
    #: The browser context's cookies after the render (values redacted: ``cookie_facts``).
    cookies: list[dict[str, Any]] = field(default_factory=list)
    #: The rule's consent dismissal: ``{"selector", "dismissed"[, "error"]}``; None without one.
    consent: dict[str, Any] | None = None
    page: Any = None
    #: what the egress proxy did to its requests (``structcrawl.render._pagewatch.PageWatch``)
    watch: Any = None
    #: the page's renderer died (killed for its memory: ``structcrawl.render.memory``)
    crashed: bool = False
    _tasks: set[asyncio.Future[Any]] = field(default_factory=set)
    _matched: asyncio.Event | None = None
    _crash: asyncio.Event | None = None

    # -- network -------------------------------------------------------------------------

    def _event(self) -> asyncio.Event:
        if self._matched is None:
            self._matched = asyncio.Event()
        return self._matched

    def on_response(self, response: Any) -> None:
        """The page's ``response`` handler: schedules the capture (never raises)."""
        if self.watch is not None:
            self.watch.on_response(response)
        try:
            task = asyncio.ensure_future(self._capture(response))
        except Exception:  # no running loop: nothing to capture with
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def on_crash(self, page: Any) -> None:
        """The page's ``crash`` handler: its renderer process died (the page is closed by
        :meth:`close_page` when the render ends of it)."""
        self.crashed = True
        self.page = self.page or page
        self.crash_event().set()

    def crash_event(self) -> asyncio.Event:
        if self._crash is None:
            self._crash = asyncio.Event()
        return self._crash

    def on_request_failed(self, request: Any) -> None:
        """The page's ``requestfailed`` handler (a refused or cut request, told to ``watch``)."""
        if self.watch is not None:
            self.watch.on_request_failed(request)

    async def _capture(self, response: Any) -> None:
        json_response = False
        try:
            request = response.request
            kind = request.resource_type
            status = response.status
            if kind == "document":
                if (
                    self.document_body is None
                    and request.frame.parent_frame is None
                    and not 300 <= status < 400
                ):
                    self.document_type = await response.header_value("content-type")
                    for name in ("etag", "last-modified"):
                        value = await response.header_value(name)
                        if value:
                            self.document_validators[name] = value
                    self.document_body = await response.body()
                return
            if kind not in _CAPTURED_TYPES:
                return
            content_type = await response.header_value("content-type")
            pattern = self.plan.response
            matches = pattern is not None and pattern.search(response.url) is not None
            json_response = self.capture_json and is_json_type(content_type)
            if json_response and not 200 <= status < 300:
                self.dropped["status"] += 1
            elif json_response:
                self.captured.append(await self._read_json(response, content_type))
                if pattern is None and self.plan.any_json:
                    matches = True
            if matches:
                self._event().set()
        except asyncio.CancelledError:  # still reading when the render ended
            if json_response:
                self.dropped["late"] += 1
            raise
        except Exception:  # the page closed under us, a body we cannot read: not captured
            if json_response:
                self.dropped["unreadable"] += 1

    async def _read_json(self, response: Any, content_type: str | None) -> dict[str, Any]:
        """The captured entry of a 2xx JSON response: its text, or a note when over the cap."""
        request = response.request
        entry: dict[str, Any] = {
            "url": response.url,
            "status": response.status,
            "method": request.method,
            "content_type": content_type,
            "resource_type": request.resource_type,
            "text": None,
            "note": None,
        }
        length = await response.header_value("content-length")
        if length and length.isdigit() and int(length) > self.max_bytes:
            entry["note"] = f"too-large: {length} bytes"
            self.dropped["too-large"] += 1
            return entry
        body = await response.body()
        if len(body) > self.max_bytes:
            entry["note"] = f"too-large: {len(body)} bytes"
            self.dropped["too-large"] += 1
        else:
            entry["text"] = body.decode("utf-8", "replace")
        return entry

    async def _drain(self, timeout: float) -> None:
        pending = set(self._tasks)
        if not pending:
            return
        _, late = await asyncio.wait(pending, timeout=max(timeout, 0.05))
        for task in late:
            task.cancel()

    # -- the page method -----------------------------------------------------------------

    async def prepare(self, page: Any) -> None:
        """Page actions, the bounded wait, the rendering context. Never raises: what went
        wrong is recorded in ``actions`` / ``wait``."""
        self.page = page
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait_timeout
        if self.plan.consent:
            self.consent = await self._dismiss(page, self.plan.consent, deadline - loop.time())
        for action in self.plan.actions:
            self.actions.append(await self._act(page, action, deadline - loop.time()))
        started = time.monotonic()
        try:
            self.wait = await self._wait(page, deadline)
        except Exception as exc:  # a closed page or a bad selector: not met, say why
            self.wait = {"condition": self.plan.label, "met": False, "error": _first_line(exc)}
        self.wait["waited_ms"] = round((time.monotonic() - started) * 1000)
        self.wait["timeout_ms"] = round(self.wait_timeout * 1000)
        await self._drain(min(2.0, max(deadline - loop.time(), 0.5)))
        if self.state_globals:
            with contextlib.suppress(Exception):  # a closed page: no state to read
                found = await asyncio.wait_for(
                    page.evaluate(_STATE_SCRIPT, [list(self.state_globals), self.max_bytes]),
                    timeout=5,
                )
                self.state = [dict(x) for x in found if isinstance(x, dict)]
        with contextlib.suppress(Exception):
            self.environment = await asyncio.wait_for(_page_environment(page), timeout=5)
        with contextlib.suppress(Exception):
            self.cookies = cookie_facts(await asyncio.wait_for(page.context.cookies(), timeout=5))

    async def _dismiss(self, page: Any, selector: str, left: float) -> dict[str, Any]:
        """Click the site rule's consent button if the dialog shows up within a few seconds
        (a page without the dialog is not an error: ``dismissed`` False, no ``error``)."""
        result: dict[str, Any] = {"selector": selector, "dismissed": False}
        timeout = max(min(left, _CONSENT_WAIT), 0.1) * 1000
        try:
            await page.click(selector, timeout=timeout)
            result["dismissed"] = True
        except Exception as exc:
            if "Timeout" not in type(exc).__name__ and "Timeout" not in str(exc):
                result["error"] = _first_line(exc)
        return result

    async def close_page(self) -> None:
        """Close the page after the render was abandoned (a page whose scripts never yield)."""
        page, self.page = self.page, None
        if page is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(page.close(), timeout=5)

    async def _act(self, page: Any, action: Any, left: float) -> dict[str, Any]:
        timeout = max(left, 0.1) * 1000
        result = action.to_dict()
        try:
            if action.kind == "click":
                await page.click(action.selector, timeout=timeout)
            elif action.kind == "fill":
                await page.fill(action.selector, action.value or "", timeout=timeout)
            elif action.kind == "press":
                await page.press(action.selector, action.value or "", timeout=timeout)
            elif action.kind == "wait_for":
                await page.wait_for_selector(action.selector, state="attached", timeout=timeout)
            elif action.kind == "scroll":
                await page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
            result["ok"] = True
        except Exception as exc:
            result["ok"] = False
            result["error"] = _first_line(exc)
        return result

    async def _wait(self, page: Any, deadline: float) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        plan = self.plan
        race = plan.any_json and plan.response is None  # default plan: the first one wins
        waiters: dict[asyncio.Future[Any], str] = {}
        if plan.selector:
            left = max(deadline - loop.time(), 0.001)
            selector_wait = page.wait_for_selector(
                plan.selector, state="attached", timeout=left * 1000
            )
            waiters[asyncio.ensure_future(selector_wait)] = "selector"
        if plan.response is not None or plan.any_json:
            waiters[asyncio.ensure_future(self._event().wait())] = "response"
        results: dict[str, bool] = {}
        pending = set(waiters)
        while pending and loop.time() < deadline:
            done, pending = await asyncio.wait(
                pending, timeout=deadline - loop.time(), return_when=asyncio.FIRST_COMPLETED
            )
            for task in done:
                results[waiters[task]] = not task.cancelled() and task.exception() is None
            if race and any(results.values()):
                break
            if _closed(page):  # the page (or the whole browser) went away: nothing to wait for
                break
            if not race and not all(results.values()):
                break
        for task in pending:
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*pending, return_exceptions=True)
        names = list(waiters.values())
        met = any(results.values()) if race else bool(names) and all(results.get(n) for n in names)
        outcome: dict[str, Any] = {"condition": plan.label, "met": met}
        if met:
            outcome["by"] = [n for n in names if results.get(n)]
        if race and results.get("response") and not results.get("selector") and plan.settle:
            left = max(deadline - loop.time(), 0.001)
            try:
                await page.wait_for_selector(plan.settle, state="attached", timeout=left * 1000)
                outcome["settled"] = True
            except Exception:
                outcome["settled"] = False
        return outcome


def _closed(page: Any) -> bool:
    try:
        return bool(page.is_closed())
    except Exception:
        return False


async def _page_environment(page: Any) -> dict[str, Any]:
    info = await page.evaluate(_ENV_SCRIPT)
    browser = page.context.browser
    env: dict[str, Any] = {
        "browser": {
            "name": browser.browser_type.name if browser is not None else None,
            "version": browser.version if browser is not None else None,
        },
        "viewport": page.viewport_size,
    }
    env.update(info)
    return env
