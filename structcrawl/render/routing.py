"""Render routing: which URLs need a browser, and what the browser should wait for.

Three kinds of evidence send a request to the browser (the reason is recorded on the page):

* ``rule``: a site's ``[[render]]`` table says the URL pattern needs rendering
  (:mod:`structcrawl.render.rules`); ``requested`` when the request itself asked for it;
* ``learned``: earlier pages of the same URL template (:func:`url_template`) needed the
  browser ``threshold`` times on this site (:class:`TemplateLearner`), so HTTP-first is paid
  once per template, not once per page;
* an HTTP response that looks JS-only (:func:`judge_html`): ``empty-mount`` (an empty
  application mount point such as ``<div id="root"></div>``), ``noscript`` (a ``<noscript>``
  asking for JavaScript) or ``missing-expected`` (the site's ``expect`` selectors find nothing),
  each only when the page has scripts and (for the first two) no content layer
  (JSON-LD, Microdata, RDFa, data block, microformats).

A failed HTTP fetch (an exception, a 4xx/5xx) is never evidence that JavaScript is needed:
:func:`judge_response` only judges 2xx HTML.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from lxml import etree

from structcrawl.core._index import ElementIndex
from structcrawl.core.document import Document, parse_html
from structcrawl.core.payload import classify
from structcrawl.extract.jsondata import is_data_script
from structcrawl.extract.mf2 import has_microformats
from structcrawl.render._shells import body_shell, empty_payload, mount_is_empty
from structcrawl.render.rules import Action, RenderRule, RenderRules, css_to_xpath
from structcrawl.render.templates import TemplateLearner, url_template

__all__ = [
    "DEFAULT_DATA_SELECTOR",
    "DETECT_REASONS",
    "REASONS",
    "Route",
    "ShellVerdict",
    "TemplateLearner",
    "WaitPlan",
    "decide",
    "judge_html",
    "judge_response",
    "url_template",
    "wait_plan",
]

#: Reasons an HTTP response is judged JS-only.
DETECT_REASONS = ("empty-mount", "noscript", "missing-expected")
#: Every escalation reason (``fetch_reason`` and ``structcrawl/render/escalated/<reason>``).
#: ``audit``: the page passed the judgement and was rendered as a sample
#: (:mod:`structcrawl.render.audit`).
REASONS = ("requested", "rule", "learned", "audit", *DETECT_REASONS)

#: What the browser waits for when no rule says: a semantic layer in the DOM.
DEFAULT_DATA_SELECTOR = (
    'script[type="application/ld+json"], [itemscope], [typeof], script#__NEXT_DATA__'
)
#: After a JSON response arrived, this says the application rendered something.
SETTLE_SELECTOR = (
    "#root > *, #app > *, #__next > *, #__nuxt > *, #___gatsby > *, app-root > *, "
    + DEFAULT_DATA_SELECTOR
)

_MOUNT_IDS = frozenset(
    {"root", "app", "__next", "__nuxt", "___gatsby", "svelte", "main-app", "app-root"}
)
_JS_TYPES = frozenset(
    {
        "",
        "text/javascript",
        "application/javascript",
        "module",
        "text/ecmascript",
        "application/ecmascript",
        "text/jsx",
        "text/babel",
    }
)
_NOSCRIPT_HINT = re.compile(
    r"javascript.{0,80}\b(enable|enabled|required|require|requires|need|needs|turn on|"
    r"activate|disabled|support)|\b(enable|requires?|needs?|turn on|activate)\b.{0,80}javascript",
    re.I | re.S,
)
#: What XPath's ``translate(@type, 'LDJSON', 'ldjson')`` does to a script type.
_LDJSON_CASE = str.maketrans("LDJSON", "ldjson")
_LAYER_ATTRS = ("itemscope", "typeof", "vocab")
_TEXT_SKIP = frozenset({"script", "style", "noscript", "template"})


@dataclass(frozen=True, slots=True)
class ShellVerdict:
    """Whether a page looks JS-only, why, and the signals seen (for logs and tests)."""

    js_only: bool
    reason: str | None = None
    signals: tuple[str, ...] = ()


@dataclass(slots=True)
class _Scripts:
    """What one pass over a page's ``script``, ``noscript`` and ``app-root`` elements finds."""

    count: int = 0  # scripts that run: JavaScript with a src or code
    json_ld: bool = False  # a JSON-LD script with content
    data_block: bool = False  # a JSON data block (not JSON-LD) with content
    noscripts: list[etree._Element] = field(default_factory=list)
    app_roots: list[etree._Element] = field(default_factory=list)


def _scripts(index: ElementIndex) -> _Scripts:
    found = _Scripts()
    for el in index.named("script", "noscript", "app-root"):
        tag = el.tag
        if tag == "noscript":
            found.noscripts.append(el)
            continue
        if tag == "app-root":
            found.app_roots.append(el)
            continue
        kind = el.get("type")
        mime = (kind or "").split(";")[0].strip().lower()
        data = is_data_script(el)  # by MIME type, or a framework id on strict JSON
        if mime in _JS_TYPES and not data:
            if el.get("src") or (el.text or "").strip():
                found.count += 1
            continue
        if not (el.text or "").strip():
            continue
        if kind is not None and "ld+json" in kind.translate(_LDJSON_CASE):
            found.json_ld = True
        elif data and not empty_payload(el):  # a client-only page's payload holds no data
            found.data_block = True
    return found


def _empty_mount(index: ElementIndex, app_roots: list[etree._Element]) -> str | None:
    mounts = [el for el in index.having("id") if el.get("id") in _MOUNT_IDS]
    mounts += [*index.having("data-reactroot"), *app_roots]
    for el in mounts:
        if mount_is_empty(el):  # empty, or a loading placeholder
            return f"#{el.get('id')}" if el.get("id") else el.tag
    return None


def _content_layers(root: etree._Element, scripts: _Scripts, index: ElementIndex) -> list[str]:
    layers = []
    if scripts.json_ld:
        layers.append("json-ld")
    if any(index.having(name) for name in _LAYER_ATTRS):
        layers.append("microdata/rdfa")
    if scripts.data_block:
        layers.append("data-block")
    if has_microformats(root, index.having("class"), index.values("class")):
        layers.append("microformats")
    return layers


def _noscript_hint(noscripts: list[etree._Element]) -> bool:
    return any(_NOSCRIPT_HINT.search("".join(n.itertext())) for n in noscripts)


def _visible_text_length(root: etree._Element) -> int:
    body = root.find("body")
    if body is None:
        return 0
    total = 0
    for el in body.iter():
        if isinstance(el.tag, str) and el.tag not in _TEXT_SKIP and el.text:
            total += len(el.text.strip())
        if el.tail and el is not body:
            total += len(el.tail.strip())
    return total


def _any_match(root: etree._Element, selectors: Sequence[str]) -> bool:
    for selector in selectors:
        xpath = css_to_xpath(selector)
        if xpath is not None and root.xpath(xpath):
            return True
    return False


def judge_html(
    root: etree._Element, expect: Sequence[str] = (), index: ElementIndex | None = None
) -> ShellVerdict:
    """Judge one parsed HTML page (the HTTP version) for JS-only-ness from its element index
    (``index``: the page's ``Document.index()``; built from ``root`` when not given).

    >>> from structcrawl.core.document import Document, parse_html
    >>> shell = parse_html(b'<html><body><div id="root"></div>'
    ...     b'<script src="/app.js"></script></body></html>', "http://a.example/")
    >>> judge_html(shell.root).reason
    'empty-mount'
    >>> plain = parse_html(b'<html><body><h1>Tent</h1><script>var a = 1;</script>'
    ...     b'</body></html>', "http://a.example/")
    >>> judge_html(plain.root).js_only, judge_html(plain.root, expect=["h1"]).js_only
    (False, False)
    >>> judge_html(plain.root, expect=["h1.product"]).reason
    'missing-expected'
    """
    if index is None:
        index = ElementIndex(root)
    found = _scripts(index)  # script facts, noscript hints, app roots
    scripts = found.count
    signals = [f"scripts:{scripts}"]
    if not scripts:
        return ShellVerdict(False, None, (*signals, "no-scripts"))
    if expect:
        if _any_match(root, expect):
            return ShellVerdict(False, None, (*signals, "expected-present"))
        signals.append("expected-missing")
    mount = _empty_mount(index, found.app_roots) or body_shell(root)
    hint = _noscript_hint(found.noscripts)
    # the content layers only matter beside a JS-only sign (or to explain a missing-expected):
    # not worth their searches on every other page
    layers = _content_layers(root, found, index) if mount or hint or expect else []
    signals.extend(f"layer:{name}" for name in layers)
    if mount:
        signals.append(f"empty-mount:{mount}")
    if hint:
        signals.append("noscript-hint")
    reason = (
        "empty-mount"
        if mount and not layers
        else "noscript"
        if hint and not layers
        else "missing-expected"
        if expect
        else None
    )
    if reason is None:
        return ShellVerdict(False, None, tuple(signals))
    # the visible text length explains an escalation; not worth a walk on every other page
    signals.insert(1, f"text:{_visible_text_length(root)}")
    return ShellVerdict(True, reason, tuple(signals))


def judge_response(
    body: bytes,
    url: str,
    content_type: str | None,
    status: int,
    expect: Sequence[str] = (),
) -> ShellVerdict:
    """Judge an HTTP response: only a 2xx HTML page can be evidence that JavaScript is needed.

    >>> judge_response(b"<html></html>", "http://a.example/", "text/html", 503).signals
    ('status:503',)
    >>> judge_response(b'{"a": 1}', "http://a.example/a.json", "application/json", 200).js_only
    False
    """
    return judge_and_parse(body, url, content_type, status, expect)[0]


def judge_and_parse(
    body: bytes,
    url: str,
    content_type: str | None,
    status: int,
    expect: Sequence[str] = (),
) -> tuple[ShellVerdict, Document | None]:
    """:func:`judge_response`, also returning the parsed page (None when not parsed), so the
    page is parsed once for judging and extraction."""
    if not 200 <= status < 300:
        return ShellVerdict(False, None, (f"status:{status}",)), None
    kind = classify(content_type, body)
    if kind not in ("html", "xhtml"):
        return ShellVerdict(False, None, (f"payload:{kind}",)), None
    doc = parse_html(body, url, content_type=content_type)
    return judge_html(doc.root, expect, doc.index()), doc


@dataclass(frozen=True, slots=True)
class WaitPlan:
    """What the browser does after load: actions, then wait for a meaningful condition
    (``selector`` attached and/or a JSON response matching ``response``), bounded by the
    caller's timeout. ``any_json``: any captured JSON response also ends the wait, after
    which ``settle`` (the app rendered something) is awaited within the same bound."""

    selector: str | None = DEFAULT_DATA_SELECTOR
    response: re.Pattern[str] | None = None
    any_json: bool = True
    settle: str | None = SETTLE_SELECTOR
    actions: tuple[Action, ...] = ()
    consent: str | None = None  # the rule's consent button, clicked before the actions

    @property
    def label(self) -> str:
        parts = []
        if self.selector:
            parts.append(f"selector:{self.selector}")
        if self.response is not None:
            parts.append(f"response:{self.response.pattern}")
        elif self.any_json:
            parts.append("response:any-json")
        return " | ".join(parts) if self.any_json and self.response is None else " & ".join(parts)


def wait_plan(rule: RenderRule | None) -> WaitPlan:
    """The wait plan of a URL: from its rule when the rule names a condition, else the
    default (a semantic layer in the DOM, or any JSON response then the app settling).

    >>> wait_plan(None).label.startswith("selector:script")
    True
    """
    if rule is None or not (rule.wait_for or rule.wait_for_response or rule.expect):
        return WaitPlan(actions=rule.actions, consent=rule.consent) if rule else WaitPlan()
    selector = rule.wait_for or (", ".join(rule.expect) if rule.expect else None)
    return WaitPlan(
        selector=selector,
        response=rule.wait_for_response,
        any_json=False,
        settle=None,
        actions=rule.actions,
        consent=rule.consent,
    )


@dataclass(frozen=True, slots=True)
class Route:
    """The decision for one request: ``mode`` ``http`` or ``browser``, the reason for a
    browser, the rule that applied and the wait plan to use if rendered."""

    mode: str
    reason: str | None
    rule: RenderRule | None
    plan: WaitPlan
    detect: bool = True

    @property
    def expect(self) -> tuple[str, ...]:
        return self.rule.expect if self.rule else ()


def decide(
    url: str,
    rules: RenderRules,
    learner: TemplateLearner,
    *,
    requested: bool | None = None,
    detect: bool = True,
) -> Route:
    """Route one URL before it is fetched. ``requested`` is the request's own wish
    (``meta["playwright"]``: True forces the browser, False forbids it).

    >>> learner = TemplateLearner(1)
    >>> decide("http://a.example/p/x-1.html", RenderRules(), learner).mode
    'http'
    >>> _ = learner.record("http://a.example/p/x-1.html")
    >>> route = decide("http://a.example/p/y-2.html", RenderRules(), learner)
    >>> route.mode, route.reason
    ('browser', 'learned')
    """
    rule = rules.for_url(url)
    plan = wait_plan(rule)
    if requested is False or (rule is not None and rule.mode == "never"):
        return Route("http", None, rule, plan, detect=False)
    if requested:
        return Route("browser", "requested", rule, plan)
    if rule is not None and rule.mode == "always":
        return Route("browser", "rule", rule, plan)
    if learner.learned(url):
        return Route("browser", "learned", rule, plan)
    return Route("http", None, rule, plan, detect=detect)
