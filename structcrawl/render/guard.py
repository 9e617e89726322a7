"""The browser's request filter for rendered pages (:class:`NavigationGuard`): only http(s)
navigations, only the crawl's allowed hosts. No Scrapy imports."""

from __future__ import annotations

import functools
import weakref
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from structcrawl.core.hosts import host_match_length

__all__ = ["WATCH_META", "NavigationGuard"]

#: Request meta key: the page's watch (:class:`structcrawl.render._pagewatch.PageWatch`), which
#: the guard tells of the requests the address policy refused.
WATCH_META = "structcrawl_render_watch"

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
    abort (``scheme``, ``offsite``, or ``address``: refused by ``precheck``, the address policy).

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
    #: the address policy's verdict on a URL (``EgressProxy.precheck``): a refusal, or None
    precheck: Callable[[str], Awaitable[Any]] | None = None
    #: fetches a navigation with the crawl's credentials itself, so that a redirect of it
    #: does not carry them on (``structcrawl.render._headers.fetch_credentialed``); True
    #: when it did
    credentialed: Callable[[Any, Any, Any], Awaitable[bool]] | None = None
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
        watch = getattr(request, "meta", {}).get(WATCH_META) if request is not None else None
        await page.route("**", functools.partial(self._route, watch=watch, origin=request))
        context = page.context
        if context not in self._contexts:
            self._contexts.add(context)
            await context.route("**", self._route)

    async def _route(self, route: Any, request: Any, watch: Any = None, origin: Any = None) -> None:
        """Blocked navigations are aborted as ``aborted`` (Chromium then keeps the current
        document instead of showing an error page); other blocked requests as blocked by the
        client. A navigation carrying the crawl's credentials (``origin``, the Scrapy request,
        has them) goes to ``credentialed``; other allowed requests fall back to
        scrapy-playwright's handler."""
        try:
            navigation = bool(request.is_navigation_request())
        except Exception:  # a request without a frame (a service worker's): not a navigation
            navigation = False
        url = str(request.url)
        reason = self.verdict(url, navigation)
        if reason is None and self.precheck is not None:
            refusal = await self.precheck(url)
            if refusal is not None:
                reason = "address"
                if watch is not None:
                    watch.note(url, refusal)
        if reason is None:
            if navigation and self.credentialed is not None and origin is not None:
                if await self.credentialed(route, request, origin):
                    return
            await route.fallback()
            return
        if self.on_block is not None:
            self.on_block(reason, str(request.url))
        await route.abort("aborted" if navigation else "blockedbyclient")
