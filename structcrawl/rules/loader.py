"""Site rules as data: one TOML file per site, validated when it is loaded.

A rules file (``<rules dir>/<site>.toml``, read with :mod:`tomllib`)::

    name = "northwind"
    hosts = ["northwind.example"]
    url_patterns = ["/products/"]          # optional: the site applies only to URLs matching one
    timezone = "Europe/Berlin"             # optional IANA zone, for normalization
    language = "en"                        # optional language tag, for normalization

    [[entity]]
    type = "Product"
    url_pattern = "/products/[^/]+\\.html$"   # optional regex (re.search over the page URL)
    scope = "main article.product"           # optional: one entity per matching element
    override = false                          # true: replace what the semantic layers found
    nested_types = { offers = "Offer" }       # optional: type of nested records the rule creates

    [entity.fields]
    name = "h1::text"                                  # CSS by default
    sku = "xpath://tr[th='SKU']/td/text()"             # XPath with the xpath: prefix
    image = { css = "img.photo::attr(src)", processors = ["absolute_url"] }
    "offers.price" = { css = ".price", processors = ["normalize_space", "regex:([\\d.,]+)"] }

A field's spec is a string (CSS; ``xpath:`` prefix for XPath; parsel's ``::text`` and
``::attr(name)``) or a table with ``css`` or ``xpath``, ``processors`` (names from
:mod:`structcrawl.rules.processors`; default ``["normalize_space"]``, ``[]`` for none) and
``many`` (a list of every value instead of the first). Dotted field names (quoted
``"offers.price"``, or TOML sub-tables ``[entity.fields.offers]``) address nested records; the
field ``"@id"`` sets the record's ``id``.

``[[render]]`` tables in the same file are the site's render rules
(:mod:`structcrawl.rules.render`; read by the render handler through the same
:class:`~structcrawl.rules.model.RuleSet`). A file that breaks these rules is a configuration
mistake: :func:`load_rules` raises :class:`RulesError` naming the file and the reason.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from structcrawl.core.hosts import normal_host
from structcrawl.core.records import short_schema_name
from structcrawl.rules._select import SelectorSpec, parse_selector
from structcrawl.rules.model import EntityRule, FieldRule, RulesError, RuleSet, SiteRules
from structcrawl.rules.processors import ProcessorChain, compile_processors
from structcrawl.rules.render import compile_regex, parse_render_tables

__all__ = [
    "EntityRule",
    "FieldRule",
    "RuleSet",
    "RulesError",
    "SiteRules",
    "load_rules",
    "parse_site",
]

_SITE_KEYS = frozenset(
    {"name", "hosts", "url_patterns", "timezone", "language", "entity", "render"}
)
_ENTITY_KEYS = frozenset({"type", "url_pattern", "scope", "override", "fields", "nested_types"})
_SPEC_KEYS = frozenset({"css", "xpath", "processors", "many"})
_DEFAULT_PROCESSORS = ("normalize_space",)
_SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_:-]*\Z")
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*\Z")
_HOST = re.compile(r"[\w.:\[\]-]+\Z")  # a name (international too), an address, [v6]


_Fail = Callable[[str], RulesError]


# ---------------------------------------------------------------------------------------------
# loading and validation


def load_rules(path: str | Path | None = None) -> RuleSet:
    """Load site rules, extraction and render rules together: ``None`` = no site rules (none
    ship with the package); a directory = its ``*.toml`` files; a file = that file. Files load
    in name order.

    A path that was asked for must be there: a missing or unreadable path, a file that is not
    TOML, a file that breaks the format, or two files naming the same site raise
    :class:`RulesError` (a configuration mistake, reported the same way by every component
    that reads the rules). The same files are parsed once: a second call with unchanged files
    returns the same :class:`RuleSet`.
    """
    return _parse_files(tuple(_read_files(path)))


def _read_files(path: str | Path | None) -> Iterator[tuple[str, bytes]]:
    if path is None:
        return
    target = Path(path)
    try:
        if target.is_dir():
            files = sorted(target.glob("*.toml"))
        elif target.is_file():
            files = [target]
        else:
            raise RulesError(f"{target}: no such rules file or directory")
        for f in files:
            yield str(f), f.read_bytes()
    except OSError as exc:
        raise RulesError(f"{target}: cannot read the rules ({exc.strerror or exc})") from None


@lru_cache(maxsize=16)
def _parse_files(entries: tuple[tuple[str, bytes], ...]) -> RuleSet:
    sites: list[SiteRules] = []
    seen: dict[str, str] = {}
    for source, data in entries:
        try:
            table = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise RulesError(f"{source}: not a valid TOML file ({exc})") from None
        site = parse_site(table, source)
        if site.name in seen:
            raise RulesError(f"{source}: site name {site.name!r} already used by {seen[site.name]}")
        seen[site.name] = source
        sites.append(site)
    return RuleSet(tuple(sites))


def parse_site(table: Mapping[str, Any], source: str = "<rules>") -> SiteRules:
    """Validate one rules file's table and build its :class:`SiteRules`.

    >>> site = parse_site({"name": "demo", "hosts": ["Shop.Example"],
    ...     "entity": [{"type": "Product", "fields": {"name": "h1::text"}}]})
    >>> site.hosts, site.entities[0].fields[0].selector.label
    (('shop.example',), 'css:h1::text')
    >>> parse_site({"name": "demo", "hosts": []}, "demo.toml")
    Traceback (most recent call last):
    ...
    structcrawl.rules.model.RulesError: demo.toml: 'hosts' must be a non-empty list of host names
    """

    def fail(reason: str) -> RulesError:
        return RulesError(f"{source}: {reason}")

    _check_keys(table, _SITE_KEYS, "the file", fail)
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail("'name' must be a non-empty string")
    hosts = table.get("hosts")
    if (
        not isinstance(hosts, list)
        or not hosts
        or not all(isinstance(h, str) and _HOST.match(h.strip().strip(".")) for h in hosts)
    ):
        raise fail("'hosts' must be a non-empty list of host names")
    url_patterns = tuple(
        compile_regex(p, f"url_patterns[{i}]", fail)
        for i, p in enumerate(_list(table, "url_patterns", fail))
    )
    timezone = _optional_str(table, "timezone", fail)
    if timezone is not None and not _valid_timezone(timezone):
        raise fail(f"'timezone' {timezone!r} is not an IANA time zone name")
    language = _optional_str(table, "language", fail)
    if language is not None and not _LANGUAGE.match(language):
        raise fail(f"'language' {language!r} is not a language tag such as 'en' or 'de-AT'")
    raw_entities = table.get("entity", [])
    if not isinstance(raw_entities, list):
        raise fail("'entity' must be an array of tables ([[entity]])")
    entities = tuple(_parse_entity(e, i, fail) for i, e in enumerate(raw_entities))
    render = parse_render_tables(table.get("render", []), name.strip(), fail)
    return SiteRules(
        name=name.strip(),
        hosts=tuple(normal_host(h).lstrip(".") for h in hosts),
        entities=entities,
        url_patterns=url_patterns,
        timezone=timezone,
        language=language,
        source=source,
        render=render,
    )


def _parse_entity(raw: Any, index: int, fail: _Fail) -> EntityRule:
    where = f"entity[{index}]"
    if not isinstance(raw, Mapping):
        raise fail(f"{where} must be a table")
    _check_keys(raw, _ENTITY_KEYS, where, fail)
    type_ = raw.get("type")
    if not isinstance(type_, str) or not type_.strip() or any(c.isspace() for c in type_.strip()):
        raise fail(f"{where}: 'type' must be one type name such as 'Product'")
    type_ = short_schema_name(type_.strip())
    where = f"{where} ({type_})"
    url_pattern = None
    if "url_pattern" in raw:
        url_pattern = compile_regex(raw["url_pattern"], f"{where}: url_pattern", fail)
    scope = None
    if "scope" in raw:
        if not isinstance(raw["scope"], str):
            raise fail(f"{where}: 'scope' must be a CSS or xpath: selector string")
        scope = _selector(raw["scope"], None, f"{where}: scope", fail)
    override = raw.get("override", False)
    if not isinstance(override, bool):
        raise fail(f"{where}: 'override' must be true or false")
    raw_fields = raw.get("fields")
    if not isinstance(raw_fields, Mapping) or not raw_fields:
        raise fail(f"{where}: '[entity.fields]' must map at least one field to a selector")
    fields = tuple(_parse_fields(raw_fields, (), where, fail))
    nested_types = raw.get("nested_types", {})
    if not isinstance(nested_types, Mapping):
        raise fail(f"{where}: 'nested_types' must be a table such as {{ offers = \"Offer\" }}")
    prefixes = {".".join(f.path[:i]) for f in fields for i in range(1, len(f.path))}
    for key, value in nested_types.items():
        if key not in prefixes:
            raise fail(f"{where}: nested_types key {key!r} is not the prefix of a dotted field")
        if not isinstance(value, str) or not value.strip():
            raise fail(f"{where}: nested_types[{key!r}] must be a type name")
    return EntityRule(
        type=type_,
        fields=fields,
        url_pattern=url_pattern,
        scope=scope,
        override=override,
        nested_types={k: short_schema_name(v.strip()) for k, v in nested_types.items()},
    )


def _parse_fields(
    table: Mapping[str, Any], prefix: tuple[str, ...], where: str, fail: _Fail
) -> Iterator[FieldRule]:
    for key, spec in table.items():
        path = (*prefix, *key.split("."))
        name = ".".join(path)
        here = f"{where}: field {name!r}"
        for i, segment in enumerate(path):
            if not (_SEGMENT.match(segment) or (segment == "@id" and i == 0 and len(path) == 1)):
                raise fail(f"{here}: not a property name (letters, digits, '_', '-', ':')")
        if isinstance(spec, str):
            yield FieldRule(
                name,
                _selector(spec, None, here, fail),
                _processors(list(_DEFAULT_PROCESSORS), here, fail),
            )
        elif isinstance(spec, Mapping) and ("css" in spec or "xpath" in spec):
            _check_keys(spec, _SPEC_KEYS, here, fail)
            if "css" in spec and "xpath" in spec:
                raise fail(f"{here}: give 'css' or 'xpath', not both")
            kind = "css" if "css" in spec else "xpath"
            if not isinstance(spec[kind], str):
                raise fail(f"{here}: '{kind}' must be a string")
            processors = spec.get("processors", list(_DEFAULT_PROCESSORS))
            if not isinstance(processors, list) or not all(isinstance(p, str) for p in processors):
                raise fail(f"{here}: 'processors' must be a list of processor names")
            many = spec.get("many", False)
            if not isinstance(many, bool):
                raise fail(f"{here}: 'many' must be true or false")
            yield FieldRule(
                name,
                _selector(spec[kind], kind, here, fail),
                _processors(processors, here, fail),
                many,
            )
        elif isinstance(spec, Mapping) and spec:
            yield from _parse_fields(spec, path, where, fail)  # a [fields.offers] sub-table
        else:
            raise fail(f"{here}: must be a selector string or a table with 'css' or 'xpath'")


def _check_keys(table: Mapping[str, Any], allowed: frozenset[str], where: str, fail: _Fail) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise fail(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))} "
            f"(allowed: {', '.join(sorted(allowed))})"
        )


def _list(table: Mapping[str, Any], key: str, fail: _Fail) -> list[Any]:
    value = table.get(key, [])
    if not isinstance(value, list):
        raise fail(f"{key!r} must be a list")
    return value


def _optional_str(table: Mapping[str, Any], key: str, fail: _Fail) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise fail(f"{key!r} must be a non-empty string")
    return value.strip()


def _selector(text: str, kind: str | None, where: str, fail: _Fail) -> SelectorSpec:
    try:
        return parse_selector(text, kind)
    except ValueError as exc:
        raise fail(f"{where}: {exc}") from None


def _processors(names: list[str], where: str, fail: _Fail) -> ProcessorChain:
    try:
        return compile_processors(names)
    except ValueError as exc:
        raise fail(f"{where}: {exc}") from None


def _valid_timezone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        # without any time zone database (no system zoneinfo, no tzdata) nothing can be checked
        return not available_timezones()
    return True
