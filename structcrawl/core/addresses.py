"""The address policy: which network addresses a crawl may connect to for requests that page
content chose (links, redirects, meta refresh, other hosts' sitemaps, everything a rendered
page loads).

A crawl run on behalf of others must not be steered by the pages it reads into the networks
around it (the cloud metadata endpoint, an admin port on localhost, a service on the private
network). :func:`address_rule` names why an address is refused (``loopback``, ``private``,
``cgnat``, ``link-local``, ``multicast``, ``unspecified``, ``reserved``; IPv4, IPv6 and IPv4
addresses carried in IPv6: mapped ``::ffff:a.b.c.d``, NAT64 ``64:ff9b::/96``, 6to4
``2002::/16``); :class:`AddressPolicy` decides for one connection, from the host and port
asked for and every address the name resolved to: the endpoints the operator named (start
URLs, sitemaps given on the command line, proxies) and the allow-list
(``STRUCTCRAWL_ADDRESS_ALLOW``) are reachable whatever their address; anything else is refused
when any one of its addresses is refused (so a name answering a public and a private address
cannot pass either).

The check belongs where the connection is made, on the addresses actually connected to
(:mod:`structcrawl.render.addresses` for Scrapy's HTTP handler, :mod:`structcrawl.render.egress`
for the browser), so a name that resolves differently the second time (DNS rebinding) is
checked again.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from structcrawl.core.hosts import host_matches, normal_host

__all__ = [
    "AddressPolicy",
    "Refusal",
    "address_rule",
    "endpoint_of",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_PRIVATE = tuple(
    ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
)
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _embedded_v4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), if any."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def address_rule(address: str | IPAddress) -> str | None:
    """Why ``address`` is refused, or None for a public (global unicast) address.

    >>> [address_rule(a) for a in ("127.0.0.1", "10.1.2.3", "100.64.0.1", "169.254.169.254")]
    ['loopback', 'private', 'cgnat', 'link-local']
    >>> [address_rule(a) for a in ("::1", "fd00::1", "fe80::1", "ff02::1", "::ffff:127.0.0.1")]
    ['loopback', 'private', 'link-local', 'multicast', 'loopback']
    >>> [address_rule(a) for a in ("0.0.0.0", "240.0.0.1", "192.0.2.1", "93.184.216.34")]
    ['unspecified', 'reserved', 'reserved', None]
    >>> address_rule("64:ff9b::a9fe:a9fe"), address_rule("2002:0a00:0001::1"), address_rule("x")
    ('link-local', 'private', 'reserved')
    """
    if isinstance(address, str):
        try:
            address = ipaddress.ip_address(address.strip("[]").split("%")[0])
        except ValueError:
            return "reserved"  # not an address at all: never connected to
    inner = _embedded_v4(address)
    if inner is not None:
        return address_rule(inner)
    if address.is_unspecified or (
        isinstance(address, ipaddress.IPv4Address) and address.packed[0] == 0
    ):
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if any(address in net for net in _PRIVATE if net.version == address.version):
        return "private"
    if isinstance(address, ipaddress.IPv4Address) and address in _CGNAT:
        return "cgnat"
    if not address.is_global or address.is_reserved:
        return "reserved"
    return None


def endpoint_of(url: str) -> tuple[str, int] | None:
    """``(host, port)`` of a URL in the normal form of :func:`structcrawl.core.hosts.normal_host`
    (the scheme's default port when the URL names none); None when it has no host.

    >>> endpoint_of("https://Shop.Example/x"), endpoint_of("http://127.0.0.1:8765/")
    (('shop.example', 443), ('127.0.0.1', 8765))
    >>> endpoint_of("http://[::1]:81/"), endpoint_of("file:///etc/passwd")
    (('::1', 81), None)
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
        host = parts.hostname
    except ValueError:
        return None
    if not host:
        return None
    if port is None:
        port = _DEFAULT_PORTS.get(parts.scheme.lower())
        if port is None:
            return None
    return normal_host(host), port


@dataclass(frozen=True, slots=True)
class Refusal:
    """One refused connection: the endpoint asked for, the address and the rule."""

    host: str
    port: int
    address: str
    rule: str

    @property
    def message(self) -> str:
        """The error record's message.

        >>> Refusal("a.example", 80, "10.0.0.1", "private").message.split(":", 2)[:2]
        ['a.example', '80 resolves to 10.0.0.1 (private)']
        """
        host = f"[{self.host}]" if ":" in self.host else self.host
        return (
            f"{host}:{self.port} resolves to {self.address} ({self.rule}): not named by the "
            "operator nor in STRUCTCRAWL_ADDRESS_ALLOW"
        )

    def to_dict(self) -> dict[str, str | int]:
        return {"host": self.host, "port": self.port, "address": self.address, "rule": self.rule}


@dataclass(frozen=True, slots=True)
class _Allowed:
    """One allow-list entry: a host (a name includes the hosts below it) on one port or on
    any (``port`` None), or a network of addresses (any port)."""

    host: str | None = None
    port: int | None = None
    network: ipaddress.IPv4Network | ipaddress.IPv6Network | None = None


def _parse_allowed(entry: str) -> _Allowed:
    """An allow-list entry: ``host`` (its default ports, 80 and 443), ``host:port``,
    ``host:*`` (any port), ``[v6]:port``, or a network ``10.0.0.0/8`` (any port)."""
    entry = entry.strip()
    if "/" in entry:
        return _Allowed(network=ipaddress.ip_network(entry, strict=False))
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        port_text = rest.lstrip(":")
    elif entry.count(":") == 1:
        host, _, port_text = entry.partition(":")
    else:  # a name or a bare address (IPv6 ones have several colons)
        host, port_text = entry, ""
    if port_text == "*":
        return _Allowed(host=normal_host(host))
    if port_text:
        return _Allowed(host=normal_host(host), port=int(port_text))
    return _Allowed(host=normal_host(host), port=-1)  # -1: the default ports


@dataclass(eq=False)  # compared by identity: the resolver holds the running crawls' policies
class AddressPolicy:
    """The decision for one connection (see the module docstring).

    >>> policy = AddressPolicy(allow=("intranet.example:8080", "10.9.0.0/16"))
    >>> policy.name("http://127.0.0.1:8765/")
    >>> policy.check("127.0.0.1", 8765, ["127.0.0.1"]) is None  # named by the operator
    True
    >>> policy.check("127.0.0.1", 9000, ["127.0.0.1"]).rule  # the same host, another port
    'loopback'
    >>> policy.check("evil.example", 80, ["93.184.216.34", "10.0.0.5"]).address  # mixed answer
    '10.0.0.5'
    >>> policy.check("intranet.example", 8080, ["10.0.0.5"]), policy.check("x", 80, ["10.9.1.1"])
    (None, None)
    >>> AddressPolicy(enabled=False).check("x", 80, ["127.0.0.1"]) is None
    True
    """

    enabled: bool = True
    allow: Iterable[str] = ()
    named: set[tuple[str, int]] = field(default_factory=set)
    _entries: tuple[_Allowed, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._entries = tuple(_parse_allowed(e) for e in self.allow if e.strip())

    def name(self, url: str) -> None:
        """The operator named ``url`` (a start URL, a sitemap, a proxy): its endpoint is
        reachable whatever its address."""
        endpoint = endpoint_of(url)
        if endpoint is not None:
            self.named.add(endpoint)

    def exempt(self, host: str, port: int) -> bool:
        """Whether ``host:port`` is reachable whatever it resolves to (named or allowed)."""
        host = normal_host(host)
        if not self.enabled or (host, port) in self.named:
            return True
        for entry in self._entries:
            if entry.host is None or not host_matches(host, entry.host):
                continue
            if entry.port is None or entry.port == port or (entry.port == -1 and port in (80, 443)):
                return True
        return False

    def check(self, host: str, port: int, addresses: Iterable[str]) -> Refusal | None:
        """The refusal of a connection to ``host:port`` resolved to ``addresses``, or None."""
        if self.exempt(host, port):
            return None
        for text in addresses:
            rule = address_rule(text)
            if rule is None or self._allowed_address(text):
                continue
            return Refusal(normal_host(host), port, text, rule)
        return None

    def _allowed_address(self, text: str) -> bool:
        try:
            address = ipaddress.ip_address(text.split("%")[0])
        except ValueError:
            return False
        return any(
            e.network is not None and e.network.version == address.version and address in e.network
            for e in self._entries
        )
