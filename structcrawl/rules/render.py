"""Render rules: the ``[[render]]`` tables of a site rules file (which URLs need the
browser, and what to do there), parsed by the one loader (:mod:`structcrawl.rules.loader`)::

    [[render]]
    url_pattern = "/js/specs/"           # regex, re.search over the URL (required)
    render = true                        # true: always render (default); false: never;
                                         # "auto": HTTP first, escalate when it looks JS-only
    wait_for = "script#spec-data"        # CSS selector to wait for (state attached)
    wait_for_response = "/api/.*\\.json" # regex over XHR/fetch URLs to wait for
    expect = ["h1.title"]                # CSS selectors that mean "the data is in the page"
    actions = [{ click = "button#show-specs" }]   # run after load, before the wait
    consent = "button#accept-cookies"    # the consent dialog's button: clicked first when it
                                         # shows up within 3 s (recorded in the render context)

Actions: ``{ click = "<css>" }``, ``{ fill = "<css>", value = "text" }``,
``{ press = "<css>", key = "Enter" }``, ``{ wait_for = "<css>" }``, ``{ scroll = "bottom" }``.
Selectors are standard CSS (validated with cssselect, so the same text works in lxml for
detection and in the browser). Within a site the first matching ``[[render]]`` table wins; the
site is the page's site (:meth:`structcrawl.rules.model.RuleSet.for_url`: host and
``url_patterns``), the same one whose extraction rules apply.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from cssselect import SelectorError
from parsel.csstranslator import css2xpath

__all__ = [
    "ACTION_KINDS",
    "Action",
    "RenderRule",
    "compile_regex",
    "css_to_xpath",
    "parse_render_tables",
]

ACTION_KINDS = ("click", "fill", "press", "wait_for", "scroll")
_RULE_KEYS = frozenset(
    {"url_pattern", "render", "wait_for", "wait_for_response", "expect", "actions", "consent"}
)
Mode = Literal["always", "auto", "never"]
_Fail = Callable[[str], Exception]


def css_to_xpath(selector: str) -> str | None:
    """The XPath of a standard CSS selector, ``None`` when it is not one (pseudo-elements
    such as ``::text`` are refused: a browser cannot wait for them).

    >>> css_to_xpath("div#root")
    "descendant-or-self::div[@id = 'root']"
    >>> css_to_xpath("h1::text") is None, css_to_xpath("a[") is None
    (True, True)
    """
    if not selector.strip() or "::" in selector:
        return None
    try:
        return css2xpath(selector)
    except (SelectorError, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class Action:
    """One page action, run in the browser after load."""

    kind: str
    selector: str | None = None
    value: str | None = None

    def to_dict(self) -> dict[str, str]:
        out = {self.kind: self.selector or self.value or ""}
        if self.kind in ("fill", "press") and self.value is not None:
            out["value"] = self.value
        return out


@dataclass(frozen=True, slots=True)
class RenderRule:
    """How to fetch the URLs one pattern matches."""

    url_pattern: re.Pattern[str]
    mode: Mode = "always"
    wait_for: str | None = None
    wait_for_response: re.Pattern[str] | None = None
    expect: tuple[str, ...] = ()
    actions: tuple[Action, ...] = ()
    site: str = ""
    consent: str | None = None

    def matches(self, url: str) -> bool:
        return self.url_pattern.search(url) is not None


def parse_render_tables(raw_rules: Any, site: str, fail: _Fail) -> tuple[RenderRule, ...]:
    """The ``[[render]]`` array of the site named ``site``; ``fail(reason)`` builds the error
    raised for a table that breaks the format."""
    if not isinstance(raw_rules, list):
        raise fail("'render' must be an array of tables ([[render]])")
    return tuple(_parse_rule(raw, i, site, fail) for i, raw in enumerate(raw_rules))


def _parse_rule(raw: Any, index: int, site: str, fail: _Fail) -> RenderRule:
    where = f"render[{index}]"
    if not isinstance(raw, Mapping):
        raise fail(f"{where} must be a table")
    unknown = sorted(set(raw) - _RULE_KEYS)
    if unknown:
        raise fail(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))} "
            f"(allowed: {', '.join(sorted(_RULE_KEYS))})"
        )
    if raw.get("url_pattern") is None:
        raise fail(f"{where}: 'url_pattern' (a regular expression) is required")
    pattern = compile_regex(raw["url_pattern"], f"{where}: 'url_pattern'", fail)
    render = raw.get("render", True)
    modes: dict[Any, Mode] = {
        True: "always",
        False: "never",
        "always": "always",
        "never": "never",
        "auto": "auto",
    }
    if not isinstance(render, bool | str) or render not in modes:
        raise fail(f"{where}: 'render' must be true, false or \"auto\"")
    wait_for = raw.get("wait_for")
    if wait_for is not None:
        wait_for = _css(wait_for, f"{where}: 'wait_for'", fail)
    expect = raw.get("expect", [])
    if isinstance(expect, str):
        expect = [expect]
    if not isinstance(expect, list):
        raise fail(f"{where}: 'expect' must be a list of CSS selectors")
    actions = raw.get("actions", [])
    if not isinstance(actions, list):
        raise fail(f"{where}: 'actions' must be an array of tables")
    return RenderRule(
        url_pattern=pattern,
        mode=modes[render],
        wait_for=wait_for,
        wait_for_response=None
        if raw.get("wait_for_response") is None
        else compile_regex(raw["wait_for_response"], f"{where}: 'wait_for_response'", fail),
        expect=tuple(_css(s, f"{where}: 'expect'", fail) for s in expect),
        actions=tuple(_action(a, f"{where}: actions[{i}]", fail) for i, a in enumerate(actions)),
        site=site,
        consent=_css(raw["consent"], f"{where}: 'consent'", fail) if "consent" in raw else None,
    )


def _action(raw: Any, where: str, fail: _Fail) -> Action:
    if not isinstance(raw, Mapping):
        raise fail(f'{where} must be a table such as {{ click = "button.more" }}')
    kinds = [k for k in ACTION_KINDS if k in raw]
    if len(kinds) != 1:
        raise fail(f"{where}: give exactly one of {', '.join(ACTION_KINDS)}")
    kind = kinds[0]
    extra = {"fill": {"value"}, "press": {"key"}}.get(kind, set())
    unknown = sorted(set(raw) - {kind} - extra)
    if unknown:
        raise fail(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    if kind == "scroll":
        if raw[kind] not in ("bottom", True):
            raise fail(f'{where}: scroll must be "bottom"')
        return Action("scroll", value="bottom")
    selector = _css(raw[kind], f"{where}: {kind!r}", fail)
    value = None
    if kind == "fill":
        value = raw.get("value")
        if not isinstance(value, str):
            raise fail(f"{where}: fill needs a string 'value'")
    if kind == "press":
        value = raw.get("key")
        if not isinstance(value, str) or not value:
            raise fail(f"{where}: press needs a 'key' such as \"Enter\"")
    return Action(kind, selector, value)


def _css(value: Any, where: str, fail: _Fail) -> str:
    if not isinstance(value, str) or css_to_xpath(value) is None:
        raise fail(f"{where} is not a standard CSS selector: {value!r}")
    return value.strip()


def compile_regex(value: Any, where: str, fail: _Fail) -> re.Pattern[str]:
    """``value`` compiled as a regular expression, or ``fail``'s error naming ``where``
    (shared by the render and extraction rules)."""
    if not isinstance(value, str) or not value:
        raise fail(f"{where} must be a non-empty regular expression string")
    try:
        return re.compile(value)
    except re.error as exc:
        raise fail(f"{where}: invalid regular expression {value!r} ({exc})") from None
