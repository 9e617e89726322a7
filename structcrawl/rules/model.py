"""The site rules model: what one rules file says, extraction and rendering together.

:func:`structcrawl.rules.loader.load_rules` builds it; :meth:`RuleSet.for_url` picks a page's
site (host, then ``url_patterns``), and both the selector fallback (:mod:`structcrawl.rules.apply`)
and the render handler (:meth:`RuleSet.render_rule_for`) read that one site's rules, so a page
gets its extraction and render rules from the same site.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from structcrawl.core.hosts import host_match_length
from structcrawl.rules._select import SelectorSpec
from structcrawl.rules.processors import ProcessorChain
from structcrawl.rules.render import RenderRule

__all__ = ["EntityRule", "FieldRule", "RuleSet", "RulesError", "SiteRules"]


class RulesError(ValueError):
    """A rules file that cannot be used (``<file>: <reason>``): a configuration mistake."""


@dataclass(frozen=True, slots=True)
class FieldRule:
    """One field of an entity rule: where its value is and how it is cleaned."""

    name: str
    selector: SelectorSpec
    processors: ProcessorChain
    many: bool = False

    @property
    def path(self) -> tuple[str, ...]:
        """The field name split at dots (``offers.price`` -> ``("offers", "price")``)."""
        return tuple(self.name.split("."))


@dataclass(frozen=True, slots=True)
class EntityRule:
    """How to find one type of entity on the site's pages."""

    type: str
    fields: tuple[FieldRule, ...]
    url_pattern: re.Pattern[str] | None = None
    scope: SelectorSpec | None = None
    override: bool = False
    nested_types: Mapping[str, str] = field(default_factory=dict)

    def applies_to(self, url: str) -> bool:
        return self.url_pattern is None or self.url_pattern.search(url) is not None


@dataclass(frozen=True, slots=True)
class SiteRules:
    """The rules of one site (one file): extraction (``entities``) and rendering (``render``)."""

    name: str
    hosts: tuple[str, ...]
    entities: tuple[EntityRule, ...] = ()
    url_patterns: tuple[re.Pattern[str], ...] = ()
    timezone: str | None = None
    language: str | None = None
    source: str = ""
    render: tuple[RenderRule, ...] = ()

    def host_match(self, host: str) -> int:
        """The length of the longest host entry matching ``host`` (exactly, or as a
        dot-separated suffix for names), ``-1`` when none does
        (:func:`structcrawl.core.hosts.host_match_length`).

        >>> SiteRules("s", ("shop.example",)).host_match("www.shop.example")
        12
        >>> SiteRules("s", ("shop.example",)).host_match("myshop.example")
        -1
        """
        return host_match_length(host, self.hosts)

    def matches(self, url: str) -> bool:
        """Whether ``url`` is one of this site's pages (host, then ``url_patterns``)."""
        host = _hostname(url)
        if host is None or self.host_match(host) < 0:
            return False
        return not self.url_patterns or any(p.search(url) for p in self.url_patterns)

    def render_rule_for(self, url: str) -> RenderRule | None:
        """The first of this site's ``[[render]]`` tables matching ``url``."""
        return next((rule for rule in self.render if rule.matches(url)), None)


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every loaded site; :meth:`for_url` picks the one for a page."""

    sites: tuple[SiteRules, ...] = ()

    def __iter__(self) -> Iterator[SiteRules]:
        return iter(self.sites)

    def __len__(self) -> int:
        return len(self.sites)

    def for_url(self, url: str) -> SiteRules | None:
        """The site whose longest host entry matches ``url`` (first loaded wins a tie), among
        sites whose ``url_patterns`` (if any) match; ``None`` when no site does."""
        host = _hostname(url)
        if host is None:
            return None
        best: SiteRules | None = None
        best_len = -1
        for site in self.sites:
            length = site.host_match(host)
            if length > best_len and site.matches(url):
                best, best_len = site, length
        return best

    def render_rule_for(self, url: str) -> RenderRule | None:
        """The render rule for ``url``: the first matching ``[[render]]`` table of the page's
        site (:meth:`for_url`), ``None`` when the site has none or no site is the page's."""
        site = self.for_url(url)
        return site.render_rule_for(url) if site is not None else None


def _hostname(url: str) -> str | None:
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host.rstrip(".") if host else None
