"""The address policy (:mod:`structcrawl.core.addresses`) where Scrapy's HTTP handler connects.

Twisted's ``HostnameEndpoint`` (what Scrapy's HTTP/1.1 handler connects with) asks the
reactor's name resolver for every connection it makes, IP literals included, and connects
only to the addresses the resolver hands it. :class:`PolicyResolver` wraps the reactor's
resolver (Scrapy's caching one, or Twisted's): it holds back the addresses of each answer,
checks all of them against the policies of the running crawls, and hands over none when one
is refused, so no connection to a refused address is ever attempted, whatever the name
resolved to a moment before (DNS rebinding) and whichever address of a mixed answer the
endpoint would have tried first. The refusal is kept (by host and port, a bounded table) for
the download handler, which turns the failed connection into :class:`AddressRefused`
(``fetch_error_code`` ``address-refused``: the page's error record names the address and the
rule).

A request through a proxy connects to the proxy (named by the operator); the target is
resolved by the proxy, so :func:`check_proxied` resolves and checks it here before the
request is sent (the proxy's own egress rules are what holds at its connection time).
"""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict
from typing import Any

from scrapy.exceptions import IgnoreRequest

from structcrawl.core.addresses import AddressPolicy, Refusal, endpoint_of
from structcrawl.core.bounded import remember
from structcrawl.core.hosts import normal_host

__all__ = [
    "AddressGuard",
    "AddressRefused",
    "PolicyResolver",
    "check_proxied",
    "install_resolver",
]


class AddressRefused(IgnoreRequest):
    """A connection the address policy refused: the page ends with an ``address-refused``
    error record. An ``IgnoreRequest``: never retried, and a refused ``robots.txt`` is not a
    crawl error (the page it was fetched for is refused in turn)."""

    fetch_error_code = "address-refused"

    def __init__(self, refusal: Refusal):
        super().__init__(refusal.message)
        self.refusal = refusal


class _Held:
    """Receives one answer, checks it whole, then passes it on (or nothing): Twisted's
    ``IResolutionReceiver``, by duck typing."""

    def __init__(self, resolver: PolicyResolver, receiver: Any, host: str, port: int):
        self.resolver = resolver
        self.receiver = receiver
        self.host = host
        self.port = port
        self.addresses: list[Any] = []

    def resolutionBegan(self, resolution: Any) -> None:  # noqa: N802 (Twisted's interface)
        self.receiver.resolutionBegan(resolution)

    def addressResolved(self, address: Any) -> None:  # noqa: N802
        self.addresses.append(address)

    def resolutionComplete(self) -> None:  # noqa: N802
        texts = [str(getattr(a, "host", "")) for a in self.addresses]
        refusal = self.resolver.verdict(self.host, self.port, texts)
        if refusal is None:
            for address in self.addresses:
                self.receiver.addressResolved(address)
        self.receiver.resolutionComplete()


class PolicyResolver:
    """The reactor's name resolver under the policies of the running crawls (see the module
    docstring). An endpoint is let through when any crawl's policy exempts it (named by its
    operator, allowed, or the policy off); otherwise the first refusal wins."""

    def __init__(self, wrapped: Any):
        self.wrapped = wrapped
        self.policies: weakref.WeakSet[AddressPolicy] = weakref.WeakSet()
        self.refusals: OrderedDict[tuple[str, int], Refusal] = OrderedDict()

    def resolveHostName(  # noqa: N802 (Twisted's interface)
        self,
        resolutionReceiver: Any,  # noqa: N803
        hostName: str,  # noqa: N803
        portNumber: int = 0,  # noqa: N803
        addressTypes: Any = None,  # noqa: N803
        transportSemantics: str = "TCP",  # noqa: N803
    ) -> Any:
        policies = list(self.policies)
        if not policies or any(p.exempt(hostName, portNumber) for p in policies):
            return self.wrapped.resolveHostName(
                resolutionReceiver, hostName, portNumber, addressTypes, transportSemantics
            )
        held = _Held(self, resolutionReceiver, hostName, portNumber)
        self.wrapped.resolveHostName(held, hostName, portNumber, addressTypes, transportSemantics)
        return resolutionReceiver

    def verdict(self, host: str, port: int, addresses: list[str]) -> Refusal | None:
        refusal = None
        for policy in list(self.policies):
            refusal = policy.check(host, port, addresses)
            if refusal is not None:
                break
        remember(self.refusals, (normal_host(host), port), refusal)
        return refusal

    def refusal_for(self, url: str) -> Refusal | None:
        """The refusal that made a request to ``url`` fail, if the policy refused it."""
        endpoint = endpoint_of(url)
        return None if endpoint is None else self.refusals.get(endpoint)


def install_resolver(reactor: Any, policy: AddressPolicy) -> PolicyResolver:
    """Put ``policy`` under the reactor's :class:`PolicyResolver` (installed once, around
    whatever resolver the reactor has)."""
    resolver = reactor.nameResolver
    if not isinstance(resolver, PolicyResolver):
        resolver = PolicyResolver(resolver)
        reactor.installNameResolver(resolver)
    resolver.policies.add(policy)
    return resolver


async def check_proxied(policy: AddressPolicy, url: str) -> None:
    """Raise :class:`AddressRefused` when ``url`` (sent through a proxy) names or resolves to
    a refused address."""
    endpoint = endpoint_of(url)
    if endpoint is None or policy.exempt(*endpoint):
        return
    host, port = endpoint
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port)
    except OSError:
        return  # the proxy will say it cannot resolve it
    refusal = policy.check(host, port, [str(info[4][0]) for info in infos])
    if refusal is not None:
        raise AddressRefused(refusal)


class AddressGuard:
    """The render handler's side of the policy: which endpoints the operator named (the
    spider's ``start_urls`` and ``sitemap_urls``, start requests that were not redirected,
    the proxies requests go through), the check of proxied requests, and the failed fetch
    that the policy caused, told as :class:`AddressRefused`."""

    def __init__(self, policy: AddressPolicy, reactor: Any = None):
        self.policy = policy
        self.resolver: PolicyResolver | None = None
        if policy.enabled:
            if reactor is None:
                from twisted.internet import reactor
            self.resolver = install_resolver(reactor, policy)
        self._spider_seen: Any = None
        #: refusals made elsewhere (the browser's egress proxy): ``url -> Refusal | None``
        self.others: list[Any] = []

    def admit(self, spider: Any, request: Any) -> None:
        if spider is not None and spider is not self._spider_seen:
            self._spider_seen = spider
            for name in ("start_urls", "sitemap_urls"):
                for url in getattr(spider, name, None) or ():
                    if isinstance(url, str):
                        self.policy.name(url)
        meta = request.meta
        if meta.get("is_start_request") and not meta.get("redirect_urls"):
            self.policy.name(request.url)
        if meta.get("proxy"):
            self.policy.name(str(meta["proxy"]))

    def refusal_for(self, url: str) -> Refusal | None:
        if self.resolver is not None:
            found = self.resolver.refusal_for(url)
            if found is not None:
                return found
        for lookup in self.others:
            found = lookup(url)
            if found is not None:
                return found
        return None

    async def fetch(self, spider: Any, request: Any, download: Any) -> Any:
        """``await download(request)`` under the policy."""
        self.admit(spider, request)
        if not self.policy.enabled:
            return await download(request)
        proxied = bool(request.meta.get("proxy"))
        if proxied:
            await check_proxied(self.policy, request.url)
        try:
            return await download(request)
        except AddressRefused:
            raise
        except Exception as exc:
            refusal = self.refusal_for(request.url)
            if refusal is None:
                raise
            raise AddressRefused(refusal) from exc
