"""Authors and publishers as a reader sees them: references inside the page's graph followed to
their names, bylines cleaned (pure).

* :func:`graph_names` indexes every node of the page's records that has an identifier
  (``@id``, ``itemid``, RDFa subject; nested nodes too) by that identifier, with its name
  (``name``, else ``givenName familyName``, else ``legalName`` / ``alternateName``): the common
  WordPress/Yoast layout names the author only in a ``Person`` node of the ``@graph`` that the
  ``Article`` references (``"author": {"@id": ".../#/schema/person/..."}``).
* :func:`clean_byline` turns what a byline or a markup name says into names: HTML entities
  decoded (``O&#039;Donnell``), a leading "By" / "Von" / "Par" / "Por" / "Door" dropped, lists
  joined by commas, "and", "&", "und", "et", "y" split, roles after a comma, a bar or a dash
  ("Jane Doe, Staff Writer") dropped.

>>> clean_byline("By Jane Doe and John Roe, Staff Writers")
['Jane Doe', 'John Roe']
>>> clean_byline("By Jon Porter @JonPorty"), clean_byline("Published by")
(['Jon Porter'], [])
>>> clean_byline("John Walk -"), clean_byline("Süddeutsche.de GmbH, Munich, Germany")
(['John Walk'], ['Süddeutsche.de GmbH, Munich, Germany'])
>>> clean_byline("CDU - Fraktion Erfurt")
['CDU - Fraktion Erfurt']
>>> clean_byline("by Jake Goulding"), clean_byline("Lindsey O&#039;Donnell")
(['Jake Goulding'], ["Lindsey O'Donnell"])
>>> clean_byline("Letters To The Editor"), clean_byline("Von Miller"), clean_byline("von Ada Roe")
(['Letters To The Editor'], ['Von Miller'], ['Ada Roe'])
>>> clean_byline("https://example.org/#/schema/person/1"), clean_byline("  ")
([], [])
"""

from __future__ import annotations

import html
import re
from typing import Any

from structcrawl.core.values import is_record, text_of, values_of

__all__ = ["clean_byline", "graph_names", "is_iri", "name_of"]

_BY = re.compile(  # always a prefix
    r"^(?:(?:written|posted|published|geschrieben|verfasst|veröffentlicht)\s+(?:by|von)|by|from)"
    r"(?:\s*[:\s]\s*|$)",
    re.I,
)
_BY_WORD = re.compile(r"^(?:von|par|por|door)\s+(?=\S+\s+\S)", re.I)  # also a particle
_SPLIT = re.compile(r"\s*(?:,|;|\s\|\s|\s[-–—]\s)\s*")
_AND = re.compile(r"\s+(?:and|&|und|et|y|e|en|og|och)\s+", re.I)
_ROLE_WORDS = frozenset(
    (
        "editor editors writer writers reporter reporters correspondent correspondents "
        "contributor contributors columnist columnists staff journalist journalists author "
        "authors photographer photographers producer producers analyst editorial desk "
        "redakteur redakteurin redaktion autor autorin korrespondent korrespondentin "
        "journaliste rédacteur rédactrice redactor redactora periodista corresponsal "
        "redacteur verslaggever"
    ).split()
)
_TRIM = " .:,;|-–—"
_HANDLE = re.compile(r"(?:^|\s)@\w+")  # a social media handle beside the name
_IRI = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|_:|#|/)\S*$", re.I)
_NAME_KEYS = ("name", "legalName", "alternateName")


def is_iri(value: str) -> bool:
    """Whether ``value`` is written like an identifier rather than a name (``https://...``,
    ``_:b0``, ``#author``, ``/author/x``).

    >>> is_iri("https://x.example/#author"), is_iri("Jane Doe"), is_iri("_:b1")
    (True, False, True)
    """
    return bool(_IRI.match(value.strip()))


def name_of(properties: dict[str, Any]) -> str | None:
    """A node's name: ``name``, else ``givenName familyName``, else ``legalName``,
    ``alternateName`` (None when none is written)."""
    found = text_of(_first(properties.get("name")))
    if found and found.strip():
        return found.strip()
    parts = [text_of(_first(properties.get(k))) for k in ("givenName", "familyName")]
    joined = " ".join(p.strip() for p in parts if p and p.strip())
    if joined:
        return joined
    for key in _NAME_KEYS[1:]:
        found = text_of(_first(properties.get(key)))
        if found and found.strip():
            return found.strip()
    return None


def _first(value: Any) -> Any:
    items = values_of(value)
    return items[0] if items else None


def graph_names(records: list[dict[str, Any]]) -> dict[str, str]:
    """Every identified node of the page's records (nested ones too) -> its name; the first
    named node wins for an identifier several nodes share."""
    names: dict[str, str] = {}
    stack: list[Any] = [r for r in reversed(records) if r.get("kind") == "entity"]
    while stack:
        node = stack.pop()
        if not is_record(node):
            continue
        props = node.get("properties") or {}
        iri = node.get("id")
        if isinstance(iri, str) and iri and iri not in names:
            name = name_of(props)
            if name and not is_iri(name):
                names[iri] = name
        for value in reversed(list(props.values())):
            stack.extend(v for v in reversed(values_of(value)) if is_record(v))
    return names


def _is_role(part: str) -> bool:
    words = re.findall(r"\w+", part.casefold())
    return bool(words) and any(w in _ROLE_WORDS for w in words)


def clean_byline(value: str | None) -> list[str]:
    """The names a byline or a markup name gives (see the module doc); ``[]`` for an
    identifier or an empty value."""
    text = " ".join(html.unescape(value or "").split())
    if not text or is_iri(text):
        return []
    text = _BY_WORD.sub("", _BY.sub("", _HANDLE.sub("", text))).strip()
    segments = [s for s in _SPLIT.split(text) if s.strip(_TRIM)]
    kept = [s for i, s in enumerate(segments) if not (i and _is_role(s))]
    if len(kept) > 1 and any(len(s.split()) < 2 for s in kept):
        # not a list of people: "Süddeutsche.de GmbH, Munich, Germany", "CDU - Fraktion Erfurt"
        kept = [text] if len(kept) == len(segments) else [", ".join(kept)]
    names: list[str] = []
    for segment in kept:
        parts = _AND.split(segment)
        if len(parts) > 1 and not all(p[:1].isupper() for p in parts):
            parts = [segment]
        names += [p.strip(_TRIM) for p in parts if p.strip(_TRIM)]
    out: list[str] = []
    for name in names:
        if not is_iri(name) and name.casefold() not in {n.casefold() for n in out}:
            out.append(name)
    return out
