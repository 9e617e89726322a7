"""Item kinds: which schema.org types are a Product, an Article, an Event, ... (data, pure).

The one table that typed items (:mod:`structcrawl.typed`), entity identity
(:mod:`structcrawl.entities.identity`) and page metadata corroboration read, so a Motorcycle
is a Product item everywhere.
"""

from __future__ import annotations

__all__ = ["ITEM_TYPES", "PRODUCT_TYPES", "TYPE_ORDER", "item_type"]

#: schema.org types read as a Product item
PRODUCT_TYPES = frozenset(
    {
        "Product",
        "ProductGroup",
        "ProductModel",
        "IndividualProduct",
        "SomeProducts",
        "Vehicle",
        "Car",
        "Motorcycle",
    }
)

#: item type -> schema.org types that map to it
ITEM_TYPES: dict[str, frozenset[str]] = {
    "Product": PRODUCT_TYPES,
    "Article": frozenset(
        {
            "Article",
            "NewsArticle",
            "BlogPosting",
            "Report",
            "ScholarlyArticle",
            "TechArticle",
            "AnalysisNewsArticle",
            "ReportageNewsArticle",
            "OpinionNewsArticle",
            "LiveBlogPosting",
            "SocialMediaPosting",
        }
    ),
    "Event": frozenset(
        {
            "Event",
            "MusicEvent",
            "TheaterEvent",
            "SportsEvent",
            "Festival",
            "ExhibitionEvent",
            "BusinessEvent",
            "EducationEvent",
            "SocialEvent",
            "ComedyEvent",
            "DanceEvent",
            "ScreeningEvent",
            "LiteraryEvent",
            "FoodEvent",
        }
    ),
    "Recipe": frozenset({"Recipe"}),
    "JobPosting": frozenset({"JobPosting"}),
    "LocalBusiness": frozenset(
        {
            "LocalBusiness",
            "Restaurant",
            "Store",
            "FoodEstablishment",
            "Hotel",
            "CafeOrCoffeeShop",
            "Bakery",
            "BarOrPub",
            "AutoDealer",
            "MedicalBusiness",
            "Dentist",
            "LodgingBusiness",
            "ProfessionalService",
            "HomeAndConstructionBusiness",
            "HealthAndBeautyBusiness",
        }
    ),
    "Organization": frozenset(
        {
            "Organization",
            "Corporation",
            "NewsMediaOrganization",
            "OnlineStore",
            "OnlineBusiness",
            "EducationalOrganization",
            "NGO",
        }
    ),
    "Person": frozenset({"Person"}),
    "BreadcrumbList": frozenset({"BreadcrumbList"}),
    "ItemList": frozenset({"ItemList", "OfferCatalog"}),
}
#: the order deciding which type a page is about, first = most specific
TYPE_ORDER = (
    "Product",
    "Article",
    "Event",
    "Recipe",
    "JobPosting",
    "LocalBusiness",
    "Person",
    "Organization",
    "ItemList",
    "BreadcrumbList",
)


def item_type(types: list[str]) -> str | None:
    """The item type of a schema.org type list (the first in :data:`TYPE_ORDER`)."""
    for name in TYPE_ORDER:
        if ITEM_TYPES[name] & set(types):
            return name
    return None
