"""Per-site render rules: the ``[[render]]`` tables of the site rules files.

They live in the same files as the site's extraction rules (``structcrawl/sites/<site>.toml``,
or the folder named by ``STRUCTCRAWL_RULES_DIR``); this loader reads only ``name``, ``hosts``
and ``render`` and leaves the rest of the file to :mod:`structcrawl.rules`::

    name = "northwind"
    hosts = ["northwind.example", "127.0.0.1"]

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
detection and in the browser). Within a site the first matching ``[[render]]`` table wins.

A table that breaks these rules is a configuration mistake: :func:`load_render_rules` raises
:class:`RenderRulesError` naming the file and the reason.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from cssselect import SelectorError
from parsel.csstranslator import css2xpath

__all__ = [
    "ACTION_KINDS",
    "Action",
    "RenderRule",
    "RenderRules",
    "RenderRulesError",
    "RenderSite",
    "css_to_xpath",
    "load_render_rules",
    "parse_render_site",
]

ACTION_KINDS = ("click", "fill", "press", "wait_for", "scroll")
_RULE_KEYS = frozenset(
    {"url_pattern", "render", "wait_for", "wait_for_response", "expect", "actions", "consent"}
)
Mode = Literal["always", "auto", "never"]


class RenderRulesError(ValueError):
    """A ``[[render]]`` table that cannot be used (``<file>: <reason>``)."""


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


@dataclass(frozen=True, slots=True)
class RenderSite:
    name: str
    hosts: tuple[str, ...]
    rules: tuple[RenderRule, ...] = ()
    source: str = ""

    def host_match(self, host: str) -> int:
        """Length of the longest matching host entry (exact, or dot-suffix for names), or -1.

        >>> RenderSite("s", ("shop.example",)).host_match("www.shop.example")
        12
        >>> RenderSite("s", ("shop.example",)).host_match("myshop.example")
        -1
        """
        host = host.lower().rstrip(".")
        best = -1
        for entry in self.hosts:
            named = ":" not in entry and any(c.isalpha() for c in entry)
            if host == entry or (named and host.endswith("." + entry)):
                best = max(best, len(entry))
        return best


@dataclass(frozen=True, slots=True)
class RenderRules:
    """The render rules of every loaded site."""

    sites: tuple[RenderSite, ...] = field(default_factory=tuple)

    def for_url(self, url: str) -> RenderRule | None:
        """The first matching rule of the site whose longest host entry matches ``url``."""
        try:
            host = urlsplit(url).hostname
        except ValueError:
            return None
        if not host:
            return None
        best: RenderSite | None = None
        best_len = -1
        for site in self.sites:
            length = site.host_match(host)
            if length > best_len and site.rules:
                best, best_len = site, length
        if best is None:
            return None
        return next((rule for rule in best.rules if rule.matches(url)), None)


def load_render_rules(path: str | Path | None = None) -> RenderRules:
    """Render rules from the site files: ``None`` = the packaged ``structcrawl/sites/*.toml``;
    a directory = its ``*.toml`` files; a file = that file. A missing directory or a file
    without ``[[render]]`` tables gives no rules; a broken table raises
    :class:`RenderRulesError`."""
    entries: list[tuple[str, bytes]] = []
    if path is None:
        folder = resources.files("structcrawl").joinpath("sites")
        if folder.is_dir():
            for item in sorted(folder.iterdir(), key=lambda t: t.name):
                if item.name.endswith(".toml") and item.is_file():
                    entries.append((f"structcrawl/sites/{item.name}", item.read_bytes()))
    else:
        target = Path(path)
        files = sorted(target.glob("*.toml")) if target.is_dir() else [target]
        entries = [(str(f), f.read_bytes()) for f in files if f.is_file()]
    sites = []
    for source, data in entries:
        try:
            table = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise RenderRulesError(f"{source}: not a valid TOML file ({exc})") from None
        site = parse_render_site(table, source)
        if site.rules:
            sites.append(site)
    return RenderRules(tuple(sites))


def parse_render_site(table: Mapping[str, Any], source: str = "<rules>") -> RenderSite:
    """The render part of one site file.

    >>> site = parse_render_site({"name": "d", "hosts": ["a.example"],
    ...     "render": [{"url_pattern": "/app/", "actions": [{"click": "#more"}]}]})
    >>> site.rules[0].mode, site.rules[0].actions[0].to_dict()
    ('always', {'click': '#more'})
    >>> parse_render_site({"name": "d", "hosts": ["a.example"],
    ...     "render": [{"url_pattern": "/x", "wait_for": "h1::text"}]}, "d.toml")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    structcrawl.render.rules.RenderRulesError: d.toml: render[0]: 'wait_for' is not a ...
    """

    def fail(reason: str) -> RenderRulesError:
        return RenderRulesError(f"{source}: {reason}")

    raw_rules = table.get("render", [])
    if not isinstance(raw_rules, list):
        raise fail("'render' must be an array of tables ([[render]])")
    name = table.get("name")
    hosts = table.get("hosts")
    if raw_rules and (not isinstance(name, str) or not name.strip()):
        raise fail("'name' must be a non-empty string")
    if raw_rules and (
        not isinstance(hosts, list) or not hosts or not all(isinstance(h, str) for h in hosts)
    ):
        raise fail("'hosts' must be a non-empty list of host names")
    site_name = str(name or "").strip()
    rules = tuple(_parse_rule(raw, i, site_name, fail) for i, raw in enumerate(raw_rules))
    return RenderSite(
        name=site_name,
        hosts=tuple(h.strip().strip(".").lower() for h in hosts or []),
        rules=rules,
        source=source,
    )


def _parse_rule(raw: Any, index: int, site: str, fail: Any) -> RenderRule:
    where = f"render[{index}]"
    if not isinstance(raw, Mapping):
        raise fail(f"{where} must be a table")
    unknown = sorted(set(raw) - _RULE_KEYS)
    if unknown:
        raise fail(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))} "
            f"(allowed: {', '.join(sorted(_RULE_KEYS))})"
        )
    pattern = _regex(raw.get("url_pattern"), f"{where}: 'url_pattern'", fail)
    if pattern is None:
        raise fail(f"{where}: 'url_pattern' (a regular expression) is required")
    render = raw.get("render", True)
    modes: dict[Any, Mode] = {
        True: "always", False: "never", "always": "always", "never": "never", "auto": "auto"
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
        wait_for_response=_regex(
            raw.get("wait_for_response"), f"{where}: 'wait_for_response'", fail
        ),
        expect=tuple(_css(s, f"{where}: 'expect'", fail) for s in expect),
        actions=tuple(_action(a, f"{where}: actions[{i}]", fail) for i, a in enumerate(actions)),
        site=site,
        consent=_css(raw["consent"], f"{where}: 'consent'", fail) if "consent" in raw else None,
    )


def _action(raw: Any, where: str, fail: Any) -> Action:
    if not isinstance(raw, Mapping):
        raise fail(f"{where} must be a table such as {{ click = \"button.more\" }}")
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
            raise fail(f"{where}: scroll must be \"bottom\"")
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


def _css(value: Any, where: str, fail: Any) -> str:
    if not isinstance(value, str) or css_to_xpath(value) is None:
        raise fail(f"{where} is not a standard CSS selector: {value!r}")
    return value.strip()


def _regex(value: Any, where: str, fail: Any) -> re.Pattern[str] | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise fail(f"{where} must be a non-empty regular expression string")
    try:
        return re.compile(value)
    except re.error as exc:
        raise fail(f"{where}: invalid regular expression {value!r} ({exc})") from None
