"""The render audit (pure): a bounded sample of the pages judged "no browser needed" is
rendered as well, so a site whose JavaScript adds structured data is not missed in silence.

A plain download cannot prove that a page has no structured data: tag managers and page
scripts insert JSON-LD after load. :class:`RenderAudit` picks which of the pages the shell
judgement passed (:func:`structcrawl.render.routing.judge_html`) are rendered anyway:

* per site (host), its first ``first`` judged pages, then one in ``1 / rate`` of the rest,
  a rate's sample only while fewer than ``at_once`` of the site's audits are rendering and
  none has gained (a sample due meanwhile is not taken): an audit holds one of the crawl's
  download slots for the site while it renders, and inside a busy crawl a render takes many
  times longer than alone, so samples taken while the first audits still rendered took the
  crawl's own pages their slots (docs/speed.md);
* on a site whose audits gained before, the first page of every URL template not seen yet,
  and every page of a template that gained once but is not learned yet (so a template that
  gains is learned within ``STRUCTCRAWL_RENDER_LEARN_AFTER`` of its pages);
* a site whose ``give_up`` audits never gained stops being audited; all audits together stop
  when their browser time reaches ``budget`` seconds.

A site whose audits gained ``learn_after`` times, in ``site_share`` of its audits or more, is
learned as a whole (:meth:`~structcrawl.render.templates.TemplateLearner.learn_site`): real
shops and newspapers give nearly every page a URL template of its own, so a script that adds
the JSON-LD of every page would otherwise be learned one template at a time, each audited.

The handler renders the chosen page, measures the gain (typed records of the rendered DOM and
its JSON responses beyond those of the HTTP version) and calls :meth:`RenderAudit.record`. A
gain counts as an escalation of the URL's template in the
:class:`~structcrawl.render.templates.TemplateLearner`, so a template whose audited pages
gain ``learn_after`` times goes to the browser from then on; :meth:`RenderAudit.remember`
keeps the pages of audited sites fetched without the browser, so those of a newly learned
template can be fetched again in it (:meth:`RenderAudit.take_refetch`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from structcrawl.render.templates import TemplateLearner, site_of, url_template

__all__ = ["AUDIT_REASONS", "AuditConfig", "RenderAudit", "typed_gain"]

#: Why a page was audited (``structcrawl/render/audit/sampled/<why>``).
AUDIT_REASONS = ("first", "rate", "new-template", "template-gained")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class AuditConfig:
    """``STRUCTCRAWL_RENDER_AUDIT*`` (see :mod:`structcrawl.render.config`)."""

    enabled: bool = True
    first: int = 3
    rate: float = 0.05
    give_up: int = 5
    budget: float = 120.0
    refetch_max: int = 1000
    wait: float = 3.0  # bound on an audited page's wait for its data (seconds)
    site_share: float = 0.6  # share of a site's audits that gained: the whole site is learned
    at_once: int = 1  # a rate's sample only below this many audits of the site in flight

    @property
    def every(self) -> int:
        """One page in ``every`` after the first ones (0: none)."""
        return round(1 / self.rate) if self.rate > 0 else 0


@dataclass(slots=True)
class _Site:
    judged: int = 0  # pages the shell judgement passed
    audited: int = 0
    in_flight: int = 0  # audits chosen and not ended yet
    outcomes: int = 0  # audits recorded
    gained: int = 0
    stopped: bool = False
    templates: set[str] = field(default_factory=set)


@dataclass(slots=True)
class RenderAudit(Generic[T]):
    """Which passed pages to render anyway, and what their gains teach (see the module).

    >>> config = AuditConfig(first=1, rate=0.5, give_up=2, site_share=0, at_once=0)
    >>> audit = RenderAudit(config, TemplateLearner(2))  # templates only, rate samples unbound
    >>> [audit.choose(f"http://a.example/p/{n}-x.html") for n in (1, 2, 3, 4)]
    ['first', 'rate', None, 'rate']
    >>> [audit.record(f"http://a.example/p/{n}-x.html", gain=0, seconds=0.5) for n in (1, 2)]
    [False, False]
    >>> audit.stopped_sites(), audit.spent, audit.choose("http://a.example/p/6-x.html")
    (['a.example'], 1.0, None)
    >>> audit.choose("http://b.example/"), audit.record("http://b.example/", 3, 1.0)
    ('first', False)
    >>> audit.choose("http://b.example/p/4-y.html")  # gained: new templates are audited
    'new-template'
    >>> audit.record("http://b.example/p/4-y.html", 1, 1.0), audit.choose("http://b.example/p/5-y.html")
    (False, 'template-gained')
    >>> audit.record("http://b.example/p/5-y.html", 2, 1.0)
    True
    >>> audit.learner.learned("http://b.example/p/9-z.html")  # the template goes to the browser
    True

    A site whose audits mostly gain is learned whole, whatever its pages' templates:

    >>> audit = RenderAudit(AuditConfig(first=3), TemplateLearner(2))
    >>> [audit.choose(u) for u in ("http://c.example/a/x-1", "http://c.example/b/y-2")]
    ['first', 'first']
    >>> audit.record("http://c.example/a/x-1", 2, 1.0)
    False
    >>> audit.record("http://c.example/b/y-2", 1, 1.0)
    True
    >>> audit.learned_sites, audit.learner.learned("http://c.example/news/2020/z-3.html")
    (['c.example'], True)
    """

    config: AuditConfig
    learner: TemplateLearner
    spent: float = 0.0
    pages: int = 0
    gained: int = 0
    learned: list[str] = field(default_factory=list)
    learned_sites: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    _sites: dict[str, _Site] = field(default_factory=lambda: defaultdict(_Site))
    _gaining: set[str] = field(default_factory=set)  # templates with a gain, not learned yet
    _kept: dict[str, list[T]] = field(default_factory=lambda: defaultdict(list))
    _kept_count: int = 0
    stops: int = 0  # sites that stopped being audited

    def choose(self, url: str) -> str | None:
        """Whether to audit ``url`` (a page the shell judgement passed): the reason, or None.
        A chosen page is counted as audited and in flight; its outcome comes with
        :meth:`record` (or :meth:`failed`), its end with :meth:`ended`.

        >>> audit = RenderAudit(AuditConfig(first=1, rate=0.5), TemplateLearner(2))
        >>> [audit.choose(f"http://a.example/{n}") for n in (1, 2)], audit.skipped["busy"]
        (['first', None], 1)
        >>> audit.ended("http://a.example/1")
        >>> [audit.choose(f"http://a.example/{n}") for n in (3, 4)]
        [None, 'rate']
        """
        if not self.config.enabled:
            return None
        site = self._sites[_host(url)]
        site.judged += 1
        template = url_template(url)
        new_template = template not in site.templates
        site.templates.add(template)
        if site.stopped:
            return None
        if self.spent >= self.config.budget:
            self.skipped["budget"] += 1
            return None
        reason = None
        if site.judged <= self.config.first:
            reason = "first"
        elif template in self._gaining:
            reason = "template-gained"
        elif site.gained and new_template:
            reason = "new-template"
        elif self.config.every and site.judged % self.config.every == 0:
            reason = "rate"
        at_once = self.config.at_once
        if reason == "rate" and at_once and not site.gained and site.in_flight >= at_once:
            self.skipped["busy"] += 1
            return None
        if reason is not None:
            site.audited += 1
            site.in_flight += 1
            self.pages += 1
        return reason

    def ended(self, url: str) -> None:
        """An audit chosen for ``url`` is over (recorded, failed or given up)."""
        site = self._sites[_host(url)]
        site.in_flight = max(site.in_flight - 1, 0)

    def record(self, url: str, gain: int, seconds: float) -> bool:
        """The outcome of one audit: its gain (typed records added by rendering) and browser
        seconds. True when this gain made the URL's template, or its whole site, learned."""
        self.spent += max(seconds, 0.0)
        host = _host(url)
        site = self._sites[host]
        site.outcomes += 1
        if gain <= 0:
            if not site.gained and not site.stopped and site.audited >= self.config.give_up:
                self._stop(host, site)  # once: audits in flight end after the stop too
            return False
        self.gained += 1
        site.gained += 1
        template = url_template(url)
        count = self.learner.record(url)
        if self._site_learned(url, site):
            self._gaining = {t for t in self._gaining if site_of(t) != host}
            return True
        if not self.learner.learned(url):
            self._gaining.add(template)
            return False
        self._gaining.discard(template)
        if count == self.learner.threshold:
            self.learned.append(template)
            return True
        return False

    def _site_learned(self, url: str, site: _Site) -> bool:
        """Whether this gain makes the whole site learned: ``learn_after`` gains at least, and
        gains in ``site_share`` of its audits or more (its templates need not repeat)."""
        share = self.config.site_share
        threshold = self.learner.threshold
        if share <= 0 or threshold <= 0 or self.learner.learned_site(url):
            return False
        if site.gained < threshold or site.gained < share * site.outcomes:
            return False
        self.learner.learn_site(url)
        self.learned_sites.append(_host(url))
        return True

    def failed(self, url: str, seconds: float) -> None:
        """An audit whose render failed: its time counts, it taught nothing."""
        self.spent += max(seconds, 0.0)

    def _stop(self, host: str, site: _Site) -> None:
        site.stopped = True
        self.stops += 1
        for template in [t for t in self._kept if site_of(t) == host]:
            self._kept_count -= len(self._kept.pop(template))

    # -- pages fetched without the browser, for a template learned later ------------------

    def remember(self, url: str, page: T) -> None:
        """Keep ``page`` (a request fetched without the browser) while its site may still
        learn a template, within ``refetch_max`` pages in all."""
        if not self.config.enabled or self._kept_count >= self.config.refetch_max:
            return
        site = self._sites.get(_host(url))
        if site is None or site.stopped or self.learner.learned(url):
            return
        self._kept[url_template(url)].append(page)
        self._kept_count += 1

    def take_refetch(self, url: str) -> list[T]:
        """The kept pages of ``url``'s template (just learned), or of its whole site when the
        site was learned, handed over once."""
        if self.learner.learned_site(url):
            host = _host(url)
            templates = [t for t in self._kept if site_of(t) == host]
        else:
            templates = [url_template(url)]
        pages = [page for t in templates for page in self._kept.pop(t, [])]
        self._kept_count -= len(pages)
        return pages

    def stopped_sites(self) -> list[str]:
        return sorted(host for host, site in self._sites.items() if site.stopped)


def _host(url: str) -> str:
    return site_of(url_template(url))


def typed_gain(http_records: Iterable[Any], rendered_records: Iterable[Any]) -> int:
    """Typed entity records rendering added to the HTTP version. A record without a type (a
    JSON response's document, a counter) is no gain, and neither is the document record of a
    data block (typed by its id, e.g. ``__NEXT_DATA__``): only the typed objects inside it are.

    >>> class R:
    ...     def __init__(self, type_, kind="entity", fmt="json-ld", element="/html/head/script"):
    ...         self.type, self.kind, self.format, self.source_element = type_, kind, fmt, element
    >>> block = R(["__NEXT_DATA__"], fmt="data-block")
    >>> inside = R(["Offer"], fmt="data-block", element="x#$.a")
    >>> typed_gain([R(["Product"])], [R(["Product"]), R(["Offer"]), R([]), R(["X"], "error"),
    ...     block, inside])
    2
    """

    def typed(records: Iterable[Any]) -> int:
        return sum(
            1
            for r in records
            if r.kind == "entity"
            and r.type
            and (r.format != "data-block" or "#" in (r.source_element or ""))
        )

    return typed(rendered_records) - typed(http_records)
