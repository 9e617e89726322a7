"""Which normalizer applies to which property, per layer.

A kind is ``date``, ``currency``, ``price:<currency property of the same layer>``, ``url``,
``url-or-text`` (a URL only when absolute or explicitly relative: ``license`` may be
``"CC BY 4.0"``), ``enum``, ``gtin``, ``isbn``, ``duration``, ``duration-seconds``,
``quantity``, ``number``, ``integer``, and for Open Graph's grouped product values
``og-price`` (``{"amount", "currency"}``) and ``og-quantity`` (``{"value", "units"}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from structcrawl.normalize.enums import ENUM_PROPERTIES
from structcrawl.normalize.identifiers import GTIN_PROPERTIES

__all__ = ["currency_raw_key", "table_for"]


def _kinds(kind: str, names: str) -> dict[str, str]:
    return dict.fromkeys(names.split(), kind)


_SCHEMA_DATES = """
    datePublished dateModified dateCreated dateDeleted dateIssued datePosted dateReceived
    dateSent dateRead uploadDate startDate endDate previousStartDate doorTime startTime endTime
    validFrom validThrough validUntil priceValidUntil availabilityStarts availabilityEnds
    availableFrom availableThrough birthDate deathDate foundingDate dissolutionDate expires
    releaseDate productionDate purchaseDate modelDate dateVehicleFirstRegistered orderDate
    paymentDueDate scheduledTime lastReviewed contentReferenceTime expectedArrivalFrom
    expectedArrivalUntil departureTime arrivalTime
    http://purl.org/dc/terms/created http://purl.org/dc/terms/modified
    http://purl.org/dc/terms/issued http://purl.org/dc/terms/date
    http://purl.org/dc/terms/available http://purl.org/dc/elements/1.1/date
"""
_SCHEMA_URLS = """
    url image logo photo thumbnailUrl contentUrl embedUrl sameAs item hasMap downloadUrl
    installUrl discussionUrl codeRepository significantLink relatedLink archivedAt replyToUrl
    thumbnail
"""
_SCHEMA_URL_OR_TEXT = "mainEntityOfPage license isBasedOn additionalType"
_SCHEMA_DURATIONS = "totalTime cookTime prepTime performTime duration timeRequired"
_SCHEMA_QUANTITIES = """
    weight height width depth calories fatContent saturatedFatContent transFatContent
    unsaturatedFatContent carbohydrateContent sugarContent fiberContent proteinContent
    cholesterolContent sodiumContent
"""

SCHEMA: dict[str, str] = {
    **_kinds("date", _SCHEMA_DATES),
    **_kinds("url", _SCHEMA_URLS),
    **_kinds("url-or-text", _SCHEMA_URL_OR_TEXT),
    **_kinds("price:priceCurrency", "price lowPrice highPrice minPrice maxPrice"),
    "priceCurrency": "currency",
    **{p: "enum" for p in ENUM_PROPERTIES if ":" not in p},
    **dict.fromkeys(GTIN_PROPERTIES, "gtin"),
    "isbn": "isbn",
    **_kinds("duration", _SCHEMA_DURATIONS),
    **_kinds("quantity", _SCHEMA_QUANTITIES),
    **_kinds("number", "ratingValue bestRating worstRating"),
    **_kinds("integer", "ratingCount reviewCount"),
}
_QUANTITATIVE = {**SCHEMA, **_kinds("number", "value minValue maxValue")}
_MONETARY = {
    **SCHEMA,
    **_kinds("price:currency", "value minValue maxValue"),
    "currency": "currency",
}

_OG_PRICES = (
    "product:price",
    "og:price",
    "product:sale_price",
    "product:original_price",
    "product:pretax_price",
    "product:shipping_cost",
)
OPEN_GRAPH: dict[str, str] = {
    **_kinds(
        "url",
        """og:url og:image og:image:url og:image:secure_url og:video og:video:url
        og:video:secure_url og:audio og:audio:url og:audio:secure_url twitter:image
        twitter:image:src twitter:player twitter:player:stream""",
    ),
    **_kinds("url-or-text", "article:author book:author og:see_also"),
    **_kinds(
        "date",
        """article:published_time article:modified_time article:expiration_time
        og:updated_time video:release_date book:release_date""",
    ),
    # the extractor groups product prices: {"amount": ..., "currency": ...}; the flat names
    # are the parts' provenance sightings (and og:price:*, which stays flat)
    **dict.fromkeys(_OG_PRICES, "og-price"),
    **{f"{p}:amount": f"price:{p}:currency" for p in _OG_PRICES},
    **{f"{p}:currency": "currency" for p in _OG_PRICES},
    **_kinds("og-quantity", "product:weight product:shipping_weight"),
    **_kinds("number", "product:weight:value product:shipping_weight:value"),
    **{p: "enum" for p in ENUM_PROPERTIES if ":" in p},
    **_kinds("gtin", "product:upc product:ean product:gtin"),
    **_kinds("isbn", "book:isbn product:isbn"),
    **_kinds("duration-seconds", "video:duration music:duration"),
}
DUBLIN_CORE: dict[str, str] = {
    **_kinds(
        "date",
        """dc:date dcterms:date dcterms:created dcterms:modified dcterms:issued
        dcterms:available dcterms:dateAccepted dcterms:dateCopyrighted dcterms:dateSubmitted
        dcterms:valid""",
    ),
    **_kinds("url-or-text", "dcterms:license dc:rights.uri"),
}
MICROFORMATS: dict[str, str] = {
    **_kinds("date", "published updated start end bday anniversary rev accessed deleted"),
    **_kinds(
        "url",
        """url photo logo featured syndication in-reply-to like-of repost-of bookmark-of
        video audio""",
    ),
    "uid": "url-or-text",
    "duration": "duration",
}

_EMPTY: Mapping[str, str] = MappingProxyType({})
_TABLES = {
    "opengraph": MappingProxyType(OPEN_GRAPH),
    "twitter": MappingProxyType(OPEN_GRAPH),
    "dublincore": MappingProxyType(DUBLIN_CORE),
    "microformats": MappingProxyType(MICROFORMATS),
}
_UNTYPED_JSON = frozenset({"data-block", "json", "network-json"})
_SCHEMA_VIEW = MappingProxyType(SCHEMA)
_QUANTITATIVE_VIEW = MappingProxyType(_QUANTITATIVE)
_MONETARY_VIEW = MappingProxyType(_MONETARY)


def table_for(record: dict[str, Any]) -> Mapping[str, str]:
    """The property -> kind table for one record (by layer and type).

    Untyped JSON documents (data blocks, JSON responses) are application data, not schema.org:
    nothing in them is normalized.
    """
    fmt = record.get("format")
    table = _TABLES.get(str(fmt))
    if table is not None:
        return table
    types = record.get("type") or []
    if fmt in _UNTYPED_JSON and not types:
        return _EMPTY
    if "QuantitativeValue" in types:
        return _QUANTITATIVE_VIEW
    if "MonetaryAmount" in types:
        return _MONETARY_VIEW
    return _SCHEMA_VIEW


def currency_raw_key(currency_prop: str) -> str:
    """Where the original currency text goes: ``currencyRaw`` beside ``priceCurrency``,
    ``product:price:currencyRaw`` beside ``product:price:currency``.

    >>> currency_raw_key("priceCurrency"), currency_raw_key("product:price:currency")
    ('currencyRaw', 'product:price:currencyRaw')
    """
    if ":" in currency_prop:
        return currency_prop.rpartition(":")[0] + ":currencyRaw"
    return "currencyRaw"
