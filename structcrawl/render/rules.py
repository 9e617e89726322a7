"""The render handler's view of the site rules: which rule, if any, applies to a URL.

The rules themselves are loaded once, with the site's extraction rules, by
:func:`structcrawl.rules.load_rules` (the ``[[render]]`` tables: :mod:`structcrawl.rules.render`).
A URL's render rule is the first matching ``[[render]]`` table of the page's site, the site
that :meth:`structcrawl.rules.RuleSet.for_url` picks by host and ``url_patterns``, so
extraction and rendering never disagree about which site a page belongs to.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from structcrawl.rules import RuleSet, load_rules
from structcrawl.rules.render import ACTION_KINDS, Action, RenderRule, css_to_xpath

__all__ = [
    "ACTION_KINDS",
    "Action",
    "RenderRule",
    "RenderRules",
    "css_to_xpath",
    "load_render_rules",
]


@dataclass(frozen=True, slots=True)
class RenderRules:
    """The render rules of the loaded sites (a view of one :class:`RuleSet`)."""

    rules: RuleSet = RuleSet()

    def for_url(self, url: str) -> RenderRule | None:
        """The first matching ``[[render]]`` table of the site of ``url``, or None."""
        return self.rules.render_rule_for(url)


def load_render_rules(path: str | Path | None = None) -> RenderRules:
    """The render rules of :func:`structcrawl.rules.load_rules` (same files, same errors)."""
    return RenderRules(load_rules(path))
