"""Host names: one normal form and one suffix match, for every place that asks "is this host
one of these domains?" (site rules, allowed domains, the browser's navigation guard, per-site
time zones).

A domain matches its own host and, when it is a name (not an IP address), every host below
it: ``shop.example`` matches ``shop.example`` and ``www.shop.example``, never
``myshop.example``; ``127.0.0.1`` matches only itself. Hosts and domains are compared in one
normal form: lower case, no trailing dot, no port, IPv6 without brackets, international names
as IDNA (``xn--``) labels.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["host_match_length", "host_matches", "is_local_host", "normal_host"]


@lru_cache(maxsize=4096)
def normal_host(host: str) -> str:
    """The comparable form of a host (or ``host:port``).

    >>> normal_host("WWW.Shop.Example."), normal_host("shop.example:8080")
    ('www.shop.example', 'shop.example')
    >>> normal_host("[::1]:8765"), normal_host("::1"), normal_host("bücher.example")
    ('::1', '::1', 'xn--bcher-kva.example')
    """
    host = host.strip()
    if host.startswith("["):  # [v6]:port
        host = host[1 : host.find("]")] if "]" in host else host[1:]
    elif host.count(":") == 1:  # name:port (a bare IPv6 address has several colons)
        host = host.partition(":")[0]
    host = host.rstrip(".").lower()
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            pass  # not a valid international name: compared as written
    return host


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def host_matches(host: str, domain: str) -> bool:
    """Whether ``host`` is ``domain`` or (for a name) a host below it.

    >>> host_matches("www.shop.example", "shop.example")
    True
    >>> host_matches("myshop.example", "shop.example")
    False
    >>> host_matches("Shop.Example.", "shop.example"), host_matches("10.0.0.1", "0.0.1")
    (True, False)
    """
    return host_match_length(host, (domain,)) >= 0


def host_match_length(host: str, domains: Iterable[str]) -> int:
    """The length of the longest of ``domains`` that ``host`` matches (the most specific
    domain wins), ``-1`` when none does. Empty domains never match.

    >>> host_match_length("a.b.example", ["example", "b.example", "other.example"])
    9
    >>> host_match_length("b.example", ["a.b.example"])
    -1
    """
    host = normal_host(host)
    if not host:
        return -1
    best = -1
    for raw in domains:
        domain = normal_host(raw).lstrip(".")
        if not domain or len(domain) <= best:
            continue
        if host == domain or (
            host.endswith("." + domain) and not _is_address(domain) and not _is_address(host)
        ):
            best = len(domain)
    return best


def is_local_host(host: str) -> bool:
    """Whether ``host`` names this machine (``localhost`` and names below it, loopback and
    unspecified addresses).

    >>> [is_local_host(h) for h in ("localhost", "api.localhost", "127.0.0.2", "[::1]", "a.b")]
    [True, True, True, True, False]
    """
    host = normal_host(host)
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified
