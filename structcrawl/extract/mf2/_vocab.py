"""Class-name rules of microformats2 and the microformats v1 (backcompat) vocabularies.

Class attributes are split on ASCII whitespace only (the HTML definition), and names must match
the microformats2 naming rules exactly: ``h-`` / ``p-`` / ``u-`` / ``dt-`` / ``e-``, an optional
vendor prefix made of ``[a-z0-9]`` and a dash, then lowercase words joined by single dashes.

The backcompat tables map classic (v1) property class names and ``rel`` values to their
microformats2 equivalents, per root class, following the backcompat sections of the
microformats2 parsing specification and the per-vocabulary wiki pages.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "BACKCOMPAT_ROOTS",
    "BACKCOMPAT_TYPES",
    "ITEM_CONTEXT_ROOTS",
    "PropSpec",
    "backcompat_properties",
    "mf2_properties",
    "mf2_roots",
    "split_tokens",
]

_ASCII_WS: Final = re.compile(r"[ \t\n\f\r]+")
_NAME: Final = r"(?:[a-z0-9]+-)?[a-z]+(?:-[a-z]+)*"
_ROOT_RE: Final = re.compile(r"h-" + _NAME)
_PROP_RE: Final = re.compile(r"(p|u|dt|e)-(" + _NAME + r")")

# A property spec: (prefix, name, special). ``special`` is "" for ordinary class-based
# properties and "tag" for rel=tag mapped to p-category (value = last path segment of href).
PropSpec = tuple[str, str, str]


def split_tokens(value: str | None) -> list[str]:
    """Split a class or rel attribute on ASCII whitespace, dropping empty tokens."""
    if not value:
        return []
    return [t for t in _ASCII_WS.split(value) if t]


def mf2_roots(tokens: list[str]) -> list[str]:
    """Valid ``h-*`` root class names, sorted and de-duplicated."""
    return sorted({t for t in tokens if t.startswith("h-") and _ROOT_RE.fullmatch(t)})


def mf2_properties(tokens: list[str]) -> list[PropSpec]:
    """Valid ``p-``/``u-``/``dt-``/``e-`` property classes in attribute order (duplicates kept)."""
    out: list[PropSpec] = []
    for t in tokens:
        if "-" in t:
            m = _PROP_RE.fullmatch(t)
            if m:
                out.append((m.group(1), m.group(2), ""))
    return out


def _table(spec: str) -> dict[str, tuple[str, ...]]:
    """Parse ``"fn=p-name url=u-url geo=p-location"`` into ``{"fn": ("p-name",), ...}``."""
    table: dict[str, tuple[str, ...]] = {}
    for pair in spec.split():
        old, new = pair.split("=")
        table[old] = table.get(old, ()) + (new,)
    return table


# root class -> (mf2 types, class-name map, rel map)
_Vocabulary = tuple[tuple[str, ...], dict[str, tuple[str, ...]], dict[str, str]]
_BACKCOMPAT: Final[dict[str, _Vocabulary]] = {
    "vcard": (
        ("h-card",),
        _table(
            "fn=p-name honorific-prefix=p-honorific-prefix given-name=p-given-name"
            " additional-name=p-additional-name family-name=p-family-name"
            " honorific-suffix=p-honorific-suffix nickname=p-nickname sort-string=p-sort-string"
            " email=u-email logo=u-logo photo=u-photo url=u-url uid=u-uid sound=u-sound"
            " category=p-category adr=p-adr post-office-box=p-post-office-box"
            " extended-address=p-extended-address street-address=p-street-address"
            " locality=p-locality region=p-region postal-code=p-postal-code"
            " country-name=p-country-name label=p-label geo=p-geo latitude=p-latitude"
            " longitude=p-longitude tel=p-tel note=p-note bday=dt-bday key=p-key org=p-org"
            " organization-name=p-organization-name organization-unit=p-organization-unit"
            " title=p-job-title role=p-role tz=p-tz rev=dt-rev class=p-class mailer=p-mailer"
            " agent=p-agent"
        ),
        {},
    ),
    "adr": (
        ("h-adr",),
        _table(
            "post-office-box=p-post-office-box extended-address=p-extended-address"
            " street-address=p-street-address locality=p-locality region=p-region"
            " postal-code=p-postal-code country-name=p-country-name"
        ),
        {},
    ),
    "geo": (("h-geo",), _table("latitude=p-latitude longitude=p-longitude"), {}),
    "hentry": (
        ("h-entry",),
        _table(
            "entry-title=p-name entry-summary=p-summary entry-content=e-content"
            " published=dt-published updated=dt-updated author=p-author category=p-category"
            " geo=p-geo"
        ),
        {"bookmark": "u-url", "tag": "p-category"},
    ),
    "hfeed": (
        ("h-feed",),
        _table("author=p-author photo=u-photo url=u-url category=p-category"),
        {"tag": "p-category"},
    ),
    "vevent": (
        ("h-event",),
        _table(
            "summary=p-name dtstart=dt-start dtend=dt-end duration=dt-duration"
            " description=p-description url=u-url category=p-category location=p-location"
            " geo=p-location attendee=p-attendee contact=p-contact organizer=p-organizer"
        ),
        {},
    ),
    "hreview": (
        ("h-review",),
        _table(
            "summary=p-name item=p-item reviewer=p-author dtreviewed=dt-published"
            " rating=p-rating best=p-best worst=p-worst description=e-content url=u-url"
        ),
        {"bookmark": "u-url", "tag": "p-category"},
    ),
    "hreview-aggregate": (
        ("h-review-aggregate",),
        _table(
            "summary=p-name fn=p-name item=p-item rating=p-rating average=p-average"
            " best=p-best worst=p-worst count=p-count votes=p-votes url=u-url"
        ),
        {},
    ),
    "hproduct": (
        ("h-product",),
        _table(
            "fn=p-name photo=u-photo brand=p-brand category=p-category"
            " description=p-description identifier=u-identifier url=u-url review=p-review"
            " price=p-price"
        ),
        {},
    ),
    "hresume": (
        ("h-resume",),
        _table(
            "summary=p-summary contact=p-contact education=p-education"
            " experience=p-experience skill=p-skill affiliation=p-affiliation"
        ),
        {},
    ),
    "hrecipe": (
        ("h-recipe",),
        _table(
            "fn=p-name ingredient=p-ingredient yield=p-yield instructions=e-instructions"
            " duration=dt-duration photo=u-photo summary=p-summary author=p-author"
            " nutrition=p-nutrition category=p-category"
        ),
        {"tag": "p-category"},
    ),
    "hnews": (
        ("h-news",),
        _table("entry=p-entry source-org=p-source-org dateline=p-dateline geo=p-geo"),
        {"principles": "u-principles"},
    ),
    # Not a root by itself: "item" becomes an h-item only inside hreview / hreview-aggregate.
    "item": (("h-item",), _table("fn=p-name photo=u-photo url=u-url"), {}),
}

#: Classic root class names recognised anywhere in a document.
BACKCOMPAT_ROOTS: Final[frozenset[str]] = frozenset(k for k in _BACKCOMPAT if k != "item")
#: Roots inside which a class="item" element (without another root) is parsed as an h-item.
ITEM_CONTEXT_ROOTS: Final[frozenset[str]] = frozenset({"hreview", "hreview-aggregate"})
#: mf2 type names for each classic root class name.
BACKCOMPAT_TYPES: Final[dict[str, tuple[str, ...]]] = {k: v[0] for k, v in _BACKCOMPAT.items()}
#: Every class name the classic vocabularies give a meaning to (roots, "item", properties).
BACKCOMPAT_CLASS_NAMES: Final[frozenset[str]] = frozenset(_BACKCOMPAT).union(
    *(classes for _types, classes, _rels in _BACKCOMPAT.values())
)


def backcompat_properties(
    roots: tuple[str, ...], tokens: list[str], rel_tokens: list[str]
) -> list[PropSpec]:
    """mf2 property specs for an element inside classic roots ``roots``.

    Class-derived properties come first (in the order of each root's table for the element's
    classes); rel-derived ones follow. Duplicates (same prefix and name) are dropped, and a
    ``rel=tag`` category is dropped when the element already has a class-derived category.
    """
    out: list[PropSpec] = []
    seen: set[tuple[str, str]] = set()
    for root in roots:
        _types, classes, _rels = _BACKCOMPAT[root]
        for token in tokens:
            for new in classes.get(token, ()):
                prefix, _, name = new.partition("-")
                if (prefix, name) not in seen:
                    seen.add((prefix, name))
                    out.append((prefix, name, ""))
    if rel_tokens:
        rel_set = set(rel_tokens)
        for root in roots:
            for rel, new in _BACKCOMPAT[root][2].items():
                if rel in rel_set:
                    prefix, _, name = new.partition("-")
                    if (prefix, name) not in seen:
                        seen.add((prefix, name))
                        out.append((prefix, name, "tag" if rel == "tag" else ""))
    return out
