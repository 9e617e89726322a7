"""Site rules: extraction (selector fallback) and render rules, loaded once.

* :func:`load_rules` reads one TOML file per site (``STRUCTCRAWL_RULES_DIR``, else the packaged
  ``structcrawl/sites/*.toml``) into a :class:`RuleSet`; :meth:`RuleSet.for_url` picks a page's
  :class:`SiteRules` by host and ``url_patterns``. The site carries its extraction rules
  (``entities``) and its render rules (``render``, :mod:`structcrawl.rules.render`), so both
  come from the same site for any URL.
* :func:`apply_rules` fills, from CSS/XPath selectors over the page's one parsed tree, the fields
  the semantic layers left empty, or creates ``selector`` records when they found nothing; every
  value carries its selector in provenance (:mod:`structcrawl.rules.apply`).

Pure package: no Scrapy imports. The Scrapy side is
:class:`structcrawl.crawl.pipelines.selectors.SelectorPipeline` (and the render handler,
:mod:`structcrawl.render.handler`, for the render rules).
"""

from __future__ import annotations

from structcrawl.rules.apply import RulesOutcome, apply_rules, run_rules
from structcrawl.rules.loader import load_rules, parse_site
from structcrawl.rules.model import EntityRule, FieldRule, RulesError, RuleSet, SiteRules
from structcrawl.rules.render import Action, RenderRule, css_to_xpath

__all__ = [
    "Action",
    "EntityRule",
    "FieldRule",
    "RenderRule",
    "RuleSet",
    "RulesError",
    "RulesOutcome",
    "SiteRules",
    "apply_rules",
    "css_to_xpath",
    "load_rules",
    "parse_site",
    "run_rules",
]
