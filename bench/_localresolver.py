"""A resolver for benchmarks: names under ``.frontier.test`` (and ``localhost``) are 127.0.0.1,
every other name fails. Lets a crawl reach thousands of hosts by name on this machine and
nowhere else (``TWISTED_DNS_RESOLVER = "bench._localresolver.LocalResolver"``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from twisted.internet import defer
from twisted.internet.error import DNSLookupError
from twisted.internet.interfaces import IResolverSimple
from zope.interface import implementer

__all__ = ["DOMAIN", "LocalResolver"]

DOMAIN = ".frontier.test"


@implementer(IResolverSimple)
class LocalResolver:
    def __init__(self, reactor: Any):
        self.reactor = reactor

    @classmethod
    def from_crawler(cls, crawler: Any, reactor: Any) -> LocalResolver:
        return cls(reactor)

    def install_on_reactor(self) -> None:
        self.reactor.installResolver(self)

    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> defer.Deferred[str]:
        if name.endswith(DOMAIN) or name in ("localhost", "127.0.0.1"):
            return defer.succeed("127.0.0.1")
        return defer.fail(DNSLookupError(f"{name}: only *{DOMAIN} resolves in this benchmark"))
