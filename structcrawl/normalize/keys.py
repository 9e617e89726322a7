"""Stable entity keys: one string per entity, equal for the same entity in any layer.

Precedence (the first that applies wins):

1. ``id:<canonical @id>`` — the record's ``id`` (``@id``, ``itemid``, RDFa subject) when it
   is an IRI (blank nodes ``_:`` are per document and do not count). Canonical: safe-encoded,
   scheme and host lower-cased, default port dropped, query sorted (w3lib
   ``canonicalize_url``), and the fragment KEPT — ``#product`` and ``#org`` on one page are
   different entities.
2. ``derived:<Type>:<sha1>`` — a SHA-1 over the type, the rule used, its scope and the
   identifying values, tried in this order:

   * ``gtin`` (any of ``gtin``/``gtin8``/``gtin12``/``gtin13``/``gtin14``, valid, compared
     as GTIN-14) — global;
   * ``isbn`` (valid, compared as ISBN-13) — global;
   * ``sku`` — scoped to the site (host without ``www.``): SKUs are a seller's numbering;
   * ``mpn`` + brand name — global;
   * per type: Event ``name`` + ``startDate`` + location (name or ``@id``) — site;
     Person ``url`` + ``name`` — global (a team page URL is often shared);
     Offer, ListItem, Rating, addresses and other structured values have no identity of
     their own: their whole content (see last rule);
   * ``url`` (or ``contentUrl`` for media) — global;
   * ``name`` (or ``headline``) plus ``datePublished``/``startDate`` when present — the page;
   * the whole content: every property, nested entities by their keys — the page.

   ``<Type>`` is ``Product`` for any product type (``IndividualProduct``, ``ProductModel``,
   ...), ``Event`` for event types, otherwise the record's types sorted and joined with ``+``
   (``Thing`` when untyped). Values are compared normalized: text NFKC, case-folded, spaces
   collapsed; URLs canonical; dates as normalized.

Error and skip records get ``<kind>:<sha1>`` over page, layer, element and error code.
"""

from __future__ import annotations

import hashlib
import unicodedata
from typing import Any
from urllib.parse import urlsplit

from structcrawl.core.jsontext import sorted_compact
from structcrawl.normalize.dates import normalize_date
from structcrawl.normalize.identifiers import GTIN_PROPERTIES, gtin14, isbn13
from structcrawl.normalize.urls import canonical_url

__all__ = ["entity_key"]

_PRODUCT_TYPES = frozenset(
    "Product IndividualProduct ProductModel SomeProducts ProductGroup Vehicle Car "
    "Motorcycle BusOrCoach MotorizedBicycle DietarySupplement Drug".split()
)
_EVENT_TYPES = frozenset(
    "Event BusinessEvent ChildrensEvent ComedyEvent CourseInstance DanceEvent "
    "DeliveryEvent EducationEvent EventSeries ExhibitionEvent Festival FoodEvent Hackathon "
    "LiteraryEvent MusicEvent PublicationEvent SaleEvent ScreeningEvent SocialEvent "
    "SportsEvent TheaterEvent VisualArtsEvent BroadcastEvent OnDemandEvent".split()
)
_MEDIA_TYPES = frozenset(
    "ImageObject VideoObject AudioObject MediaObject 3DModel MusicVideoObject DataDownload".split()
)
# Structured values and other things whose identity is their content on one page.
_CONTENT_TYPES = frozenset(
    "Offer AggregateOffer Demand ListItem Rating AggregateRating EmployerAggregateRating "
    "PostalAddress GeoCoordinates GeoShape QuantitativeValue PropertyValue "
    "OpeningHoursSpecification ContactPoint HowToStep HowToSection HowToDirection HowToTip "
    "HowToSupply HowToTool NutritionInformation MonetaryAmount PriceSpecification "
    "UnitPriceSpecification CompoundPriceSpecification DeliveryChargeSpecification "
    "EntryPoint SearchAction BreadcrumbList ItemList OfferShippingDetails "
    "ShippingDeliveryTime MerchantReturnPolicy InteractionCounter WebPageElement "
    "SiteNavigationElement".split()
)


def _text(value: Any) -> str | None:
    if type(value) is str:  # the common case first
        return " ".join(unicodedata.normalize("NFKC", value).casefold().split()) or None
    if isinstance(value, dict):
        if "properties" in value:  # a nested record: its name, else its id
            props = value.get("properties") or {}
            return _text(props.get("name")) or _ref(value.get("id"))
        if set(value) == {"@id"}:
            return _ref(value["@id"])
        return _text(value.get("@value") or value.get("value") or value.get("name"))
    if isinstance(value, list):
        return _text(value[0]) if value else None
    if isinstance(value, bool) or value is None:
        return None
    text = " ".join(unicodedata.normalize("NFKC", str(value)).casefold().split())
    return text or None


def _ref(value: Any) -> str | None:
    if isinstance(value, str) and value.strip() and not value.startswith("_:"):
        return canonical_url(value)
    return None


def _url(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        if "properties" in value:
            return _ref(value.get("id")) or _url((value.get("properties") or {}).get("url"))
        value = value.get("@id") or value.get("url") or value.get("value")
    return _ref(value) if isinstance(value, str) and "://" in value else None


def _first(values: Any) -> Any:
    return values[0] if isinstance(values, list) and values else values


def _date(value: Any) -> str | None:
    value = _first(value)
    if not isinstance(value, str):
        return _text(value)
    result = normalize_date(value)
    return str(result.value) if result.ok else _text(value)


def _family(types: list[str]) -> str:
    if any(t in _PRODUCT_TYPES for t in types):
        return "Product"
    if any(t in _EVENT_TYPES for t in types):
        return "Event"
    return "+".join(sorted(set(types))) or "Thing"


def _site(url: str) -> str:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        host = ""
    return host[4:] if host.startswith("www.") else host


def _sha1(parts: Any) -> str:
    return hashlib.sha1(sorted_compact(parts).encode("utf-8")).hexdigest()


def _content(props: dict[str, Any]) -> dict[str, Any]:
    def plain(v: Any) -> Any:
        if type(v) is str:  # the common case first
            return _text(v)
        if isinstance(v, dict) and "properties" in v:
            return v.get("key") or entity_key(v)
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        if isinstance(v, str):
            return _text(v)
        return v

    return {k: plain(v) for k, v in props.items() if not k.endswith("currencyRaw")}


def _identity(family: str, types: list[str], props: dict[str, Any], page: str) -> list[Any]:
    """``[rule, scope, values]`` for a derived key."""
    for prop in GTIN_PROPERTIES:
        values = props.get(prop)
        if values is None:
            continue
        for value in values if isinstance(values, list) else [values]:
            if value is not None and (found := gtin14(value, prop)):
                return ["gtin", None, found]
    isbn_value = _first(props.get("isbn"))
    if isbn_value is not None and (isbn := isbn13(isbn_value)) is not None:
        return ["isbn", None, isbn]
    if (sku := _text(props.get("sku"))) is not None:
        return ["sku", _site(page), sku]
    mpn, brand = _text(props.get("mpn")), _text(props.get("brand"))
    if mpn and brand:
        return ["mpn", None, [mpn, brand]]
    if family == "Event":
        name, start = _text(props.get("name")), _date(props.get("startDate"))
        if name and start:
            return ["event", _site(page), [name, start, _text(props.get("location"))]]
    if "Person" in types:
        url, name = _url(props.get("url")), _text(props.get("name"))
        if url and name:
            return ["person", None, [url, name]]
    if not any(t in _CONTENT_TYPES for t in types):
        url = _url(props.get("url"))
        if url is None and any(t in _MEDIA_TYPES for t in types):
            url = _url(props.get("contentUrl"))
        if url:
            return ["url", None, url]
        name = _text(props.get("name")) or _text(props.get("headline"))
        if name:
            when = _date(props.get("datePublished")) or _date(props.get("startDate"))
            return ["name", page, [name, when]]
    return ["content", page, _content(props)]


def entity_key(record: dict[str, Any]) -> str:
    """A stable key for ``record`` (see the module docstring for the precedence).

    >>> entity_key({"kind": "entity", "id": "HTTPS://Shop.Example:443/p/1#product"})
    'id:https://shop.example/p/1#product'
    >>> a = {"kind": "entity", "type": ["Product"], "properties": {"gtin13": "0614141100019"}}
    >>> b = {"kind": "entity", "type": ["Product"], "properties": {"gtin12": "614141100019"}}
    >>> entity_key(a) == entity_key(b) and entity_key(a).startswith("derived:Product:")
    True
    """
    kind = record.get("kind") or "entity"
    source = str(record.get("source_url") or "")
    if kind != "entity":
        error = record.get("error") or {}
        parts = [source, record.get("format"), record.get("source_element"), error.get("code")]
        return f"{kind}:{_sha1(parts)}"
    rid = _ref(record.get("id"))
    if rid:
        return f"id:{rid}"
    raw_types = record.get("type") or []
    types = [raw_types] if isinstance(raw_types, str) else [str(t) for t in raw_types]
    family = _family(types)
    page = canonical_url(source, keep_fragment=False) if source else ""
    props = record.get("properties") or {}
    return f"derived:{family}:{_sha1([family, *_identity(family, types, props, page)])}"
