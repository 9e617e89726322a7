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
XHR/fetch responses with a JSON content type; :func:`network_records` turns those into
``network-json`` records with the endpoint, status and JSON path in their provenance.

No Scrapy imports; Playwright objects are used through their public async API only.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from structcrawl.core.hosts import host_match_length
from structcrawl.core.payload import split_content_type
from structcrawl.core.records import Provenance, Record, error_record
from structcrawl.extract.jsondata import extract_json_text
from structcrawl.render.routing import WaitPlan

__all__ = [
    "NavigationGuard",
    "NetworkProvenance",
    "RenderSession",
    "is_json_type",
    "network_records",
]

_PARSER = "structcrawl.render.capture"

_CAPTURED_TYPES = frozenset({"xhr", "fetch"})
_ENV_SCRIPT = """() => ({
  user_agent: navigator.userAgent,
  locale: navigator.language,
  timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
})"""


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
    captured: list[dict[str, Any]] = field(default_factory=list)
    document_body: bytes | None = None
    document_type: str | None = None
    wait: dict[str, Any] = field(default_factory=dict)
    actions: list[dict[str, Any]] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)
    page: Any = None
    _tasks: set[asyncio.Future[Any]] = field(default_factory=set)
    _matched: asyncio.Event | None = None

    # -- network -------------------------------------------------------------------------

    def _event(self) -> asyncio.Event:
        if self._matched is None:
            self._matched = asyncio.Event()
        return self._matched

    def on_response(self, response: Any) -> None:
        """The page's ``response`` handler: schedules the capture (never raises)."""
        try:
            task = asyncio.ensure_future(self._capture(response))
        except Exception:  # no running loop: nothing to capture with
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _capture(self, response: Any) -> None:
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
                    self.document_body = await response.body()
                return
            if kind not in _CAPTURED_TYPES:
                return
            content_type = await response.header_value("content-type")
            pattern = self.plan.response
            matches = pattern is not None and pattern.search(response.url) is not None
            if self.capture_json and is_json_type(content_type) and 200 <= status < 300:
                entry: dict[str, Any] = {
                    "url": response.url,
                    "status": status,
                    "method": request.method,
                    "content_type": content_type,
                    "resource_type": kind,
                    "text": None,
                    "note": None,
                }
                length = await response.header_value("content-length")
                if length and length.isdigit() and int(length) > self.max_bytes:
                    entry["note"] = f"too-large: {length} bytes"
                else:
                    body = await response.body()
                    if len(body) > self.max_bytes:
                        entry["note"] = f"too-large: {len(body)} bytes"
                    else:
                        entry["text"] = body.decode("utf-8", "replace")
                self.captured.append(entry)
                if pattern is None and self.plan.any_json:
                    matches = True
            if matches:
                self._event().set()
        except Exception:  # the page closed under us, a body we cannot read: not captured
            return

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
        with contextlib.suppress(Exception):
            self.environment = await asyncio.wait_for(_page_environment(page), timeout=5)

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


def _relabel(record: Record) -> None:
    """A JSON-LD document fetched by the page is still a network record: the layer is where
    the data was found (its ``@context`` stays in ``context``)."""
    record.format = "network-json"
    for value in record.properties.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Record):
                _relabel(item)


@dataclass(slots=True)
class NetworkProvenance(Provenance):
    """Provenance of a ``network-json`` record: also the response it came from."""

    network: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = Provenance.to_dict(self)
        out["network"] = dict(self.network)
        return out


def network_records(captured: Sequence[Mapping[str, Any]], *, page_url: str) -> list[Record]:
    """``network-json`` records for the JSON responses captured on one page.

    Each record's ``source_url`` is the page, its JSON paths are in ``source_element`` and
    ``provenance.fields``, and ``provenance.network`` names the endpoint, method, status and
    content type. URL values in the JSON resolve against the endpoint. A JSON-LD response
    (``@context``) is read as JSON-LD, and its records are labelled ``network-json`` too.

    >>> recs = network_records([{"url": "http://a.example/api/x.json", "status": 200,
    ...     "method": "GET", "content_type": "application/json",
    ...     "text": '{"items": [{"@type": "Offer", "price": "9.00"}]}'}],
    ...     page_url="http://a.example/deals.html")
    >>> [(r.format, r.type, r.source_element) for r in recs]
    [('network-json', [], '$'), ('network-json', ['Offer'], '$.items[0]')]
    >>> recs[1].to_dict()["provenance"]["network"]["url"]
    'http://a.example/api/x.json'
    """
    out: list[Record] = []
    for entry in captured:
        endpoint = str(entry.get("url") or "")
        network = {
            "url": endpoint,
            "method": entry.get("method"),
            "status": entry.get("status"),
            "content_type": entry.get("content_type"),
        }
        text = entry.get("text")
        if text is None:
            records = [
                error_record(
                    source_url=page_url,
                    format="network-json",
                    kind="skip",
                    code="network-json-not-read",
                    message=f"{endpoint}: {entry.get('note') or 'body not captured'}",
                    source_element="$",
                    parser=_PARSER,
                )
            ]
        else:
            records = extract_json_text(
                str(text), source_url=page_url, base_url=endpoint or page_url, fmt="network-json"
            )
        for record in records:
            _relabel(record)
            old = record.provenance
            record.provenance = NetworkProvenance(
                parser=old.parser,
                parser_version=old.parser_version,
                fields=old.fields,
                network=dict(network),
            )
            out.append(record)
    return out


_NAVIGABLE = frozenset({"http", "https"})
_INERT = frozenset({"data", "blob", "about"})  # subresources that reach no network or file


def _host_allowed(host: str, domains: Iterable[str]) -> bool:
    domains = tuple(domains)
    return "*" in domains or host_match_length(host, domains) >= 0


@dataclass
class NavigationGuard:
    """The browser's request filter: aborts navigations to anything but http(s) (``file:``,
    ``ftp:``, ``chrome:``...), subresources other than http(s) or ``data:``/``blob:``/``about:``,
    and requests to hosts outside the crawl's allowed domains (``allowed_domains()``, the
    spider's; none = any host) and ``extra_hosts`` (``STRUCTCRAWL_RENDER_ALLOWED_HOSTS``; a
    domain includes its subdomains, ``*`` any host). ``on_block(reason, url)`` is told of each
    abort (``scheme`` or ``offsite``).

    :meth:`install` is the page init callback that routes every request of a page through the
    guard before scrapy-playwright's own route (header overrides, resource blocking).

    >>> guard = NavigationGuard(lambda: ["shop.example"], ("cdn.example",))
    >>> guard.verdict("file:///etc/passwd", True), guard.verdict("https://evil.example/x", False)
    ('scheme', 'offsite')
    >>> guard.verdict("https://www.shop.example/", True), guard.verdict("http://cdn.example/", 0)
    (None, None)
    >>> guard.verdict("data:image/png;base64,AA", False), guard.verdict("data:text/html,x", True)
    (None, 'scheme')
    """

    allowed_domains: Callable[[], Iterable[str]]
    extra_hosts: tuple[str, ...] = ()
    on_block: Callable[[str, str], None] | None = None
    _contexts: weakref.WeakSet[Any] = field(default_factory=weakref.WeakSet, repr=False)

    def verdict(self, url: str, navigation: bool) -> str | None:
        """``scheme``, ``offsite`` or None (allowed)."""
        try:
            parts = urlsplit(url)
            host = (parts.hostname or "").lower()
        except ValueError:
            return "scheme"
        scheme = parts.scheme.lower()
        if scheme not in _NAVIGABLE:
            return None if scheme in _INERT and not navigation else "scheme"
        domains = [str(d).lower().lstrip(".") for d in self.allowed_domains() or ()]
        if not domains or _host_allowed(host, domains) or _host_allowed(host, self.extra_hosts):
            return None
        return "offsite"

    async def install(self, page: Any, request: Any = None) -> None:
        """scrapy-playwright's page init callback (``playwright_page_init_callback``): runs
        after its own route is set and before navigation; the route added here runs first.
        The page's browser context gets the guard too (once), for the pages a script opens
        (``window.open``), which have no route of their own."""
        await page.route("**", self._route)
        context = page.context
        if context not in self._contexts:
            self._contexts.add(context)
            await context.route("**", self._route)

    async def _route(self, route: Any, request: Any) -> None:
        """Blocked navigations are aborted as ``aborted`` (Chromium then keeps the current
        document instead of showing an error page); other blocked requests as blocked by the
        client. Allowed ones fall back to scrapy-playwright's handler."""
        try:
            navigation = bool(request.is_navigation_request())
        except Exception:  # a request without a frame (a service worker's): not a navigation
            navigation = False
        reason = self.verdict(str(request.url), navigation)
        if reason is None:
            await route.fallback()
            return
        if self.on_block is not None:
            self.on_block(reason, str(request.url))
        await route.abort("aborted" if navigation else "blockedbyclient")
