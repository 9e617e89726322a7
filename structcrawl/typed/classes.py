"""The typed items as attrs classes: the one definition of each item's shape (pure).

The classes follow zyte-common-items' names and shapes (``price`` a decimal string,
``currency`` beside ``currencyRaw``, ``brand`` ``{"name"}``, ``images`` ``[{"url"}]``,
``gtin`` ``[{"type", "value"}]``, ...; docs/dependencies.md says why they are not its classes)
and add what every structcrawl item carries: its entity (``entityKey``), provenance,
conflicts and flags per field. The published JSON Schemas (``schemas/<Type>.json``) are
generated from them (:mod:`structcrawl.typed.schemagen`), and the crawl carries items as
instances of them, read through ``ItemAdapter``. A field's metadata holds its description
(``doc``) and what its annotation cannot say (``schema``: a pattern, an enum).

>>> item = to_item({"kind": "item", "type": "Product", "price": "12.00",
...     "brand": {"name": "Acme"}, "images": [{"url": "https://s.example/a.jpg"}]})
>>> type(item).__name__, item.brand.name, item.images[0].url
('Product', 'Acme', 'https://s.example/a.jpg')
>>> item_dict(item)["brand"], "sku" in item_dict(item)
({'name': 'Acme'}, False)
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any

import attrs

from structcrawl.normalize.enums import enumeration_members
from structcrawl.typed.asdict import plain_dict

__all__ = ["ITEM_CLASSES", "Item", "UnknownField", "field_shape", "item_dict", "to_item"]

DECIMAL = {"$ref": "_common.json#/$defs/decimal"}
CURRENCY = {"$ref": "_common.json#/$defs/currency"}
NAMES = {"$ref": "_common.json#/$defs/names"}
AVAILABILITY = {
    "enum": enumeration_members("ItemAvailability"),  # the members normalization reads
    "description": "schema.org ItemAvailability member name.",
}


def _f(doc: str = "", schema: dict[str, Any] | None = None, required: bool = False) -> Any:
    """An optional field (None: absent) with its description and schema overrides."""
    return attrs.field(
        default=None, metadata={"doc": doc, "schema": schema or {}, "required": required}
    )


class UnknownField(ValueError):
    """A dict has a key its item class does not define."""


# --- parts (zyte-common-items' Brand, Image, Gtin, ...) ----------------------------------


@attrs.define(kw_only=True)
class Named:
    """A person, organization or brand by name."""

    name: str | None = _f(required=True)
    nameRaw: str | None = _f("The name as written, when it was cleaned (a byline).")


@attrs.define(kw_only=True)
class Image:
    url: str | None = _f(required=True)


@attrs.define(kw_only=True)
class Gtin:
    type: str | None = _f(schema={"enum": ["gtin8", "gtin12", "gtin13", "gtin14", "isbn"]},
                          required=True)  # fmt: skip
    value: str | None = _f(schema={"pattern": "^\\d{8,14}$"}, required=True)


@attrs.define(kw_only=True)
class AggregateRating:
    ratingValue: str | None = _f()
    bestRating: str | None = _f()
    reviewCount: str | None = _f()


@attrs.define(kw_only=True)
class Breadcrumb:
    name: str | None = _f()
    url: str | None = _f()


@attrs.define(kw_only=True)
class AdditionalProperty:
    name: str | None = _f(required=True)
    value: str | None = _f(required=True)


@attrs.define(kw_only=True)
class Place:
    name: str | None = _f()
    address: str | None = _f()


@attrs.define(kw_only=True)
class Variant:
    name: str | None = _f()
    sku: str | None = _f()
    url: str | None = _f()
    price: str | None = _f(schema=DECIMAL)
    currency: str | None = _f(schema=CURRENCY)
    availability: str | None = _f(schema=AVAILABILITY)


@attrs.define(kw_only=True)
class Source:
    """One entity merged into an item: its layer and where it is in the page."""

    layer: str | None = _f()
    path: str | None = _f()


# --- items --------------------------------------------------------------------------------


@attrs.define(kw_only=True)
class Item:
    """What every item carries (the envelope)."""

    kind: str = attrs.field(default="item", metadata={"schema": {"const": "item"}})
    type: str = attrs.field(
        default="", metadata={"doc": "The item type (Product, Article, ...).", "required": True}
    )
    role: str | None = _f(
        "primary: what the page is about; listed: one of a listing's products; supporting: "
        "breadcrumbs, organization, authors, ...",
        {"enum": ["primary", "supporting", "listed"]},
    )
    entityKey: str | None = _f("The `key` of this item's entity line in the entities feed.")
    schemaTypes: list[str] | None = _f(
        "The schema.org types of the entities merged into this item."
    )
    name: str | None = _f("The name.")
    url: str | None = _f("The item's own URL.")
    description: str | None = _f("Plain-text description.")
    canonicalUrl: str | None = _f(
        "The page's canonical URL (primary item).", {"type": ["string", "null"]}
    )
    page_url: str | None = _f("The page the item was read from (feeds only).")
    provenance: dict[str, Any] | None = _f(
        "Per field: where the chosen value came from.",
        {"additionalProperties": {"$ref": "#/$defs/source"}},
    )
    conflicts: dict[str, Any] | None = _f(
        "Per field: the other values the sources gave.",
        {"additionalProperties": {"type": "array", "items": {"$ref": "#/$defs/source"}}},
    )
    flags: dict[str, list[str]] | None = _f(
        "Per field: what its value is not as plain as it looks for (fallback, conflict, "
        "unreadable, and the normalization flags of the value it came from)."
    )
    sources: list[Source] | None = _f("The entities (layer, location) merged into this item.")
    validation: dict[str, Any] | None = _f(
        "Checks of the item in the crawl: fallback values the page does not show (flags), "
        "the item's failures against its schema (schema)."
    )
    change: dict[str, Any] | None = _f(
        "Against the previous run (incremental crawls): status and changed fields."
    )
    history: list[dict[str, Any]] | None = _f("Earlier values of the watched fields.")


@attrs.define(kw_only=True)
class Product(Item):
    """A product (zyte-common-items Product names)."""

    price: str | None = _f("Current price of the default offer, plain decimal ('119.01').",
                           DECIMAL)  # fmt: skip
    currency: str | None = _f("ISO 4217 code of price.", CURRENCY)
    currencyRaw: str | None = _f("The currency as written ('€', 'EUR').")
    availability: str | None = _f(schema=AVAILABILITY)
    sku: str | None = _f("Stock-keeping unit.")
    mpn: str | None = _f("Manufacturer part number.")
    gtin: list[Gtin] | None = _f("Valid GTINs (check digit verified).")
    brand: Named | None = _f("The brand (or manufacturer) by name.")
    images: list[Image] | None = _f("Product images.")
    aggregateRating: AggregateRating | None = _f()
    breadcrumbs: list[Breadcrumb] | None = _f("The page's breadcrumb trail.")
    additionalProperties: list[AdditionalProperty] | None = _f("additionalProperty PropertyValues.")
    color: str | None = _f()
    size: str | None = _f()
    variants: list[Variant] | None = _f(
        "Every variant of a ProductGroup (the item itself is the variant the page shows)."
    )


@attrs.define(kw_only=True)
class Article(Item):
    """An article, news article or blog posting."""

    headline: str | None = _f()
    datePublished: str | None = _f()
    datePublishedRaw: str | None = _f(
        "The publication date as written, when datePublished is its ISO 8601 reading."
    )
    dateModified: str | None = _f()
    dateModifiedRaw: str | None = _f(
        "The modification date as written, when dateModified is its ISO 8601 reading."
    )
    authors: list[Named] | None = _f(schema=NAMES)
    inLanguage: str | None = _f()
    articleSection: str | None = _f()
    mainImage: Image | None = _f(
        schema={"type": ["object", "null"], "properties": {"url": {"type": ["string", "null"]}}}
    )
    publisher: Named | None = _f()
    articleBody: str | None = _f(
        "The article's text: plain text, paragraphs separated by a blank line (the markup's "
        "articleBody when it is the page's whole text, else the page's main text)."
    )


@attrs.define(kw_only=True)
class BreadcrumbList(Item):
    """A breadcrumb trail."""

    breadcrumbs: list[Breadcrumb] | None = _f("The trail, outermost first.")


@attrs.define(kw_only=True)
class Event(Item):
    """An event; price is its default ticket offer."""

    startDate: str | None = _f()
    endDate: str | None = _f()
    location: Place | None = _f()
    organizer: Named | None = _f()
    eventStatus: str | None = _f(schema={"type": ["string", "null"]})
    performers: list[Named] | None = _f(schema=NAMES)
    price: str | None = _f(schema=DECIMAL)
    currency: str | None = _f(schema=CURRENCY)
    availability: str | None = _f(schema=AVAILABILITY)


@attrs.define(kw_only=True)
class ItemList(Item):
    """A list (the primary thing of a listing page; its products are listed items)."""

    numberOfItems: str | None = _f()


@attrs.define(kw_only=True)
class JobPosting(Item):
    """A job posting (zyte-common-items JobPosting names)."""

    jobTitle: str | None = _f()
    datePublished: str | None = _f()
    validThrough: str | None = _f()
    employmentType: str | None = _f()
    hiringOrganization: Named | None = _f()
    jobLocation: Place | None = _f()


@attrs.define(kw_only=True)
class LocalBusiness(Item):
    """A local business (restaurant, store, ...)."""

    address: str | None = _f()
    telephone: str | None = _f()
    priceRange: str | None = _f()
    openingHours: list[str] | None = _f("Opening hours as written.")


@attrs.define(kw_only=True)
class Organization(Item):
    """An organization."""

    address: str | None = _f()
    telephone: str | None = _f()
    logo: str | None = _f(schema={"type": ["string", "null"]})
    sameAs: list[str] | None = _f("Profiles elsewhere.")


@attrs.define(kw_only=True)
class Person(Item):
    """A person."""

    jobTitle: str | None = _f()
    sameAs: list[str] | None = _f("Profiles elsewhere.")


@attrs.define(kw_only=True)
class Recipe(Item):
    """A recipe."""

    recipeIngredient: list[str] | None = _f("Ingredients.")
    recipeInstructions: list[str] | None = _f("Steps.")
    totalTime: str | None = _f()
    prepTime: str | None = _f()
    cookTime: str | None = _f()
    recipeYield: str | None = _f()
    authors: list[Named] | None = _f(schema=NAMES)
    datePublished: str | None = _f()


#: item type -> class
ITEM_CLASSES: dict[str, type[Item]] = {
    cls.__name__: cls
    for cls in (Article, BreadcrumbList, Event, ItemList, JobPosting, LocalBusiness,
                Organization, Person, Product, Recipe)
}  # fmt: skip

_PARTS = (Named, Image, Gtin, AggregateRating, Breadcrumb, AdditionalProperty, Place, Variant,
          Source)  # fmt: skip
for _cls in (*_PARTS, Item, *ITEM_CLASSES.values()):
    attrs.resolve_types(_cls)


def field_shape(hint: Any) -> tuple[bool, Any]:
    """``(is_list, base type)`` of a field's resolved annotation, None dropped:
    ``list[Image] | None`` -> ``(True, Image)``, ``str | None`` -> ``(False, str)``."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        hint = args[0] if len(args) == 1 else hint
    if typing.get_origin(hint) is list:
        return True, typing.get_args(hint)[0]
    return False, hint


@functools.cache
def _part(cls: type, name: str) -> type | None:
    """The attrs class a field holds (alone or as list items), if any."""
    _, base = field_shape(attrs.fields_dict(cls)[name].type)
    return base if attrs.has(base) else None


def _build(cls: type, data: dict[str, Any]) -> Any:
    names = attrs.fields_dict(cls)
    unknown = [k for k in data if k not in names]
    if unknown:
        raise UnknownField(f"{cls.__name__} has no field {', '.join(map(repr, unknown))}")
    values: dict[str, Any] = {}
    for key, value in data.items():
        part = _part(cls, key)
        if part is not None and isinstance(value, dict):
            value = _build(part, value)
        elif part is not None and isinstance(value, list):
            value = [_build(part, v) if isinstance(v, dict) else v for v in value]
        values[key] = value
    return cls(**values)


def to_item(data: dict[str, Any]) -> Item:
    """The item instance of one item dict (its class by ``type``). Raises
    :class:`UnknownField` for a key its class does not define and ``KeyError`` for a type
    without a class."""
    return _build(ITEM_CLASSES[str(data.get("type"))], data)  # type: ignore[no-any-return]


def item_dict(item: Any) -> dict[str, Any]:
    """The item as the feeds write it: fields that are None are absent. Plain dicts pass
    through (an item that could not be made an instance stays as it was built). What
    ``attrs.asdict`` gives, faster: :func:`structcrawl.typed.asdict.plain_dict`."""
    if isinstance(item, dict):
        return item
    return plain_dict(item)
