"""Site rules (selector fallback) and visible-page facts.

* :func:`load_rules` reads one TOML file per site (``structcrawl/sites/*.toml`` by default) into a
  :class:`RuleSet`; :meth:`RuleSet.for_url` picks a page's :class:`SiteRules` by host.
* :func:`apply_rules` fills, from CSS/XPath selectors over the page's one parsed tree, the fields
  the semantic layers left empty, or creates ``selector`` records when they found nothing; every
  value carries its selector in provenance (:mod:`structcrawl.rules.apply`).
* :func:`visible_facts` collects what the page shows (title, h1, canonical, prices, times).

Pure package: no Scrapy imports. The Scrapy side is
:class:`structcrawl.crawl.pipelines.selectors.SelectorPipeline`.
"""

from __future__ import annotations

from structcrawl.rules.apply import RulesOutcome, apply_rules, run_rules
from structcrawl.rules.loader import (
    EntityRule,
    FieldRule,
    RulesError,
    RuleSet,
    SiteRules,
    load_rules,
)
from structcrawl.rules.visible import VisibleFacts, visible_facts

__all__ = [
    "EntityRule",
    "FieldRule",
    "RuleSet",
    "RulesError",
    "RulesOutcome",
    "SiteRules",
    "VisibleFacts",
    "apply_rules",
    "load_rules",
    "run_rules",
    "visible_facts",
]
