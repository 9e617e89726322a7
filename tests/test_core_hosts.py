"""Host-suffix matching, written once (structcrawl.core.hosts) and used by the site rules, the
link filter, the browser's navigation guard and the per-site time zones."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from structcrawl.core.hosts import host_match_length, host_matches, is_local_host, normal_host
from structcrawl.core.links import LinkRules
from structcrawl.crawl.config import NormalizeConfig
from structcrawl.render.capture import NavigationGuard
from structcrawl.rules import parse_site


@pytest.mark.parametrize(
    "host, domain, expected",
    [
        ("shop.example", "shop.example", True),
        ("www.shop.example", "shop.example", True),
        ("a.b.shop.example", "shop.example", True),
        ("myshop.example", "shop.example", False),  # a suffix, but not at a dot
        ("shop.example.org", "shop.example", False),
        ("shop.example", "www.shop.example", False),  # a parent is not below its child
        # case and the trailing dot of a fully qualified name
        ("WWW.Shop.Example", "shop.example", True),
        ("www.shop.example.", "Shop.Example.", True),
        # a port on either side is not part of the host
        ("www.shop.example:8080", "shop.example", True),
        ("shop.example", "shop.example:443", True),
        # international names compare in their IDNA form, whichever form is written
        ("www.bücher.example", "bücher.example", True),
        ("www.xn--bcher-kva.example", "bücher.example", True),
        ("www.BÜCHER.example", "xn--bcher-kva.example", True),
        ("www.bucher.example", "bücher.example", False),
        # addresses match only themselves
        ("127.0.0.1", "127.0.0.1", True),
        ("127.0.0.1:8765", "127.0.0.1", True),
        ("10.0.0.1", "0.0.1", False),
        ("27.0.0.1", "127.0.0.1", False),
        ("::1", "::1", True),
        ("[::1]:8000", "::1", True),
        ("[::1]", "[::1]", True),
        ("a.example", "", False),
        ("", "example", False),
    ],
)
def test_host_matches(host, domain, expected):
    assert host_matches(host, domain) is expected


def test_the_longest_matching_domain_wins():
    domains = ["example", "shop.example", "www.shop.example", "other.example"]
    assert host_match_length("www.shop.example", domains) == len("www.shop.example")
    assert host_match_length("api.shop.example", domains) == len("shop.example")
    assert host_match_length("example.org", domains) == -1
    assert host_match_length("shop.example", ["", ".shop.example"]) == len("shop.example")


def test_normal_form():
    assert normal_host(" Shop.Example. ") == "shop.example"
    assert normal_host("[2001:DB8::1]:443") == "2001:db8::1"
    assert normal_host("München.example") == "xn--mnchen-3ya.example"


@pytest.mark.parametrize(
    "host, local",
    [
        ("localhost", True),
        ("LOCALHOST.", True),
        ("app.localhost", True),
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", True),
        ("localhost.example", False),
        ("10.0.0.1", False),
        ("northwind.example", False),
    ],
)
def test_is_local_host(host, local):
    assert is_local_host(host) is local


def test_every_user_of_host_matching_agrees():
    """The site rules, the link filter, the navigation guard and the time zones answer alike."""
    cases = [
        ("https://www.bücher.example/x", True),
        ("https://WWW.XN--BCHER-KVA.EXAMPLE./x", True),
        ("https://mybücher.example/x", False),
        ("https://bücher.example.org/x", False),
    ]
    site = parse_site({"name": "s", "hosts": ["Bücher.Example"]})
    links = LinkRules(allowed_domains=["bücher.example"])
    guard = NavigationGuard(lambda: ["bücher.example"])
    zones = NormalizeConfig(True, (("bücher.example", "Europe/Berlin"),), None)
    for url, inside in cases:
        host = urlsplit(url).hostname or ""
        assert site.matches(url) is inside, url
        assert links.accepts(url) is inside, url
        assert (guard.verdict(url, True) is None) is inside, url
        assert (zones.timezone_for(host) == "Europe/Berlin") is inside, url
