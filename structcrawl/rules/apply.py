"""Selector fallback: a site's rules fill what the semantic layers left empty.

:func:`apply_rules` runs each entity rule of the page's site whose ``url_pattern`` matches the
page, over the page's one parsed tree:

1. The rule's ``scope`` selects the entity elements (no scope: the whole page, ``/html``). For
   each element every field selector is evaluated inside it and its values pass through the
   field's processors; a field with no value is left out.
2. **Fill.** The page's top-level entity records whose ``type`` lists the rule's type (from any
   layer) are the targets. A field is written only where the record's value is missing or empty
   (``None``, ``""``, ``[]``, ``{}``), or always when the rule says ``override = true``. With one
   scope element every target is filled from it; with several (a listing), a target is filled
   from the scope element that contains its ``source_element`` (a JSON-LD block in ``<head>``
   lies in none and is left alone).
3. **Create.** When the page has no record of the type, each scope element with values becomes
   a new record: ``format = "selector"``, ``type = [<type>]``, ``source_element`` the scope
   element's XPath, ``raw`` the raw value of each field, provenance parser
   ``structcrawl.rules``. The page's ``no-records`` skip record is then dropped.

Every value a rule writes carries a sighting in its record's ``provenance.fields[<field>]``:
``{"path": <query as written>, "raw": <extracted text>, "selector": "css:…"|"xpath:…",
"rule": <site name>}``; it replaces the sightings of a value it replaced.

Nested fields (``offers.price``) fill the nested record at ``offers``: an existing nested record
(the first one, when ``offers`` is a list), or a new ``selector`` record created where the value
is empty (typed from the rule's ``nested_types``). A nested value that is not a record (a
``{"@id"}`` reference, a string) is never replaced. ``"@id"`` sets the record's ``id``.

Pure: the input records are not modified (changed records are copies). No Scrapy imports.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from structcrawl.core.document import Document
from structcrawl.core.records import Provenance, Record
from structcrawl.rules._select import page_selector, select_elements, select_values
from structcrawl.rules.model import EntityRule, FieldRule, SiteRules

__all__ = ["RulesOutcome", "apply_rules", "run_rules"]

_PARSER = "structcrawl.rules"


@dataclass(frozen=True, slots=True)
class RulesOutcome:
    """The updated records and what the rules did (for stats)."""

    records: list[dict[str, Any]]
    #: ``(type, field)`` for every field written into an existing record.
    filled: tuple[tuple[str, str], ...] = ()
    #: The type of every record created.
    created: tuple[str, ...] = ()


@dataclass(slots=True)
class _Match:
    path: str
    values: dict[str, tuple[FieldRule, Any, Any]] = field(default_factory=dict)


def apply_rules(
    site: SiteRules | None, document: Document, records: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The page's records after ``site``'s rules filled and created what they could."""
    return run_rules(site, document, records).records


def run_rules(
    site: SiteRules | None, document: Document, records: list[dict[str, Any]]
) -> RulesOutcome:
    """:func:`apply_rules`, also saying which fields were filled and which records created."""
    out = list(records)
    if site is None:
        return RulesOutcome(out)
    page = page_selector(document.root)
    filled: list[tuple[str, str]] = []
    created: list[str] = []
    copied: set[int] = set()
    for rule in site.entities:
        if not rule.applies_to(document.url):
            continue
        matches = [m for m in _matches(rule, page, document) if m.values]
        if not matches:
            continue
        targets = [i for i, rec in enumerate(out) if _is_target(rec, rule.type)]
        if not targets:
            for match in matches:
                out.append(_new_record(site, rule, match, document))
                created.append(rule.type)
            continue
        for i in targets:
            source = matches[0] if len(matches) == 1 else _containing(matches, out[i])
            if source is None:
                continue
            rec = out[i] if i in copied else copy.deepcopy(out[i])
            names = _fill(rec, rule, source, site.name, document)
            if names:
                out[i] = rec
                copied.add(i)
                filled.extend((rule.type, name) for name in names)
    if created:
        out = [rec for rec in out if not _is_no_records(rec)]
    return RulesOutcome(out, tuple(filled), tuple(created))


def _matches(rule: EntityRule, page: Any, document: Document) -> list[_Match]:
    if rule.scope is None:
        scopes = [page]
    else:
        scopes = select_elements(rule.scope, page)
    out = []
    for scope in scopes:
        match = _Match(document.path_of(scope.root))
        for field_rule in rule.fields:
            raws = select_values(field_rule.selector, scope)
            if not raws:
                continue
            values = field_rule.processors(raws, document.base_url)
            if not values:
                continue
            value = values if field_rule.many else values[0]
            match.values[field_rule.name] = (field_rule, value, raws[0] if len(raws) == 1 else raws)
        out.append(match)
    return out


def _is_record(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("properties"), dict)


def _is_target(rec: dict[str, Any], type_: str) -> bool:
    return rec.get("kind") == "entity" and type_ in (rec.get("type") or []) and _is_record(rec)


def _is_no_records(rec: dict[str, Any]) -> bool:
    error = rec.get("error")
    return (
        rec.get("kind") == "skip" and isinstance(error, dict) and error.get("code") == "no-records"
    )


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _containing(matches: list[_Match], rec: dict[str, Any]) -> _Match | None:
    path = str(rec.get("source_element") or "").split("#", 1)[0]
    for match in matches:
        if path == match.path or path.startswith(match.path + "/"):
            return match
    return None


def _sightings(rec: dict[str, Any]) -> dict[str, Any]:
    provenance = rec.get("provenance")
    if not isinstance(provenance, dict):
        provenance = rec["provenance"] = {"parser": _PARSER, "fields": {}}
    fields = provenance.get("fields")
    if not isinstance(fields, dict):
        fields = provenance["fields"] = {}
    return fields


def _blank(document: Document, path: str, type_: str | None) -> dict[str, Any]:
    return Record(
        source_url=document.url,
        format="selector",
        source_element=path,
        type=[type_] if type_ else [],
        provenance=Provenance(parser=_PARSER),
    ).to_dict()


def _fill(
    rec: dict[str, Any], rule: EntityRule, match: _Match, site: str, document: Document
) -> list[str]:
    """Write ``match``'s values into ``rec`` (in place); the names of the fields written."""
    written = []
    for name, (field_rule, value, raw) in match.values.items():
        sighting = {
            "path": field_rule.selector.query,
            "raw": raw,
            "selector": field_rule.selector.label,
            "rule": site,
        }
        if name == "@id":
            if _empty(rec.get("id")) or (rule.override and rec.get("id") != value):
                rec["id"] = value
                _sightings(rec)["@id"] = [sighting]
                written.append(name)
            continue
        holder: dict[str, Any] | None = rec
        path = field_rule.path
        for depth, segment in enumerate(path[:-1]):
            assert holder is not None
            props = holder["properties"]
            current = props.get(segment)
            if isinstance(current, list):
                current = next((c for c in current if _is_record(c)), None) or current
            if _is_record(current):
                holder = current
            elif _empty(current):
                nested_type = rule.nested_types.get(".".join(path[: depth + 1]))
                nested = _blank(document, match.path, nested_type)
                props[segment] = nested
                _sightings(holder)[segment] = [{**sighting, "raw": None}]
                holder = nested
            else:  # a reference or a literal: never replaced by a nested record
                holder = None
                break
        if holder is None:
            continue
        props = holder["properties"]
        leaf = path[-1]
        if _empty(props.get(leaf)) or (rule.override and props.get(leaf) != value):
            props[leaf] = value
            _sightings(holder)[leaf] = [sighting]
            written.append(name)
    return written


def _new_record(
    site: SiteRules, rule: EntityRule, match: _Match, document: Document
) -> dict[str, Any]:
    rec = _blank(document, match.path, rule.type)
    rec["raw"] = {name: raw for name, (_rule, _value, raw) in match.values.items()}
    _fill(rec, rule, match, site.name, document)
    return rec
