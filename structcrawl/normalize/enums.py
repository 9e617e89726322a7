"""schema.org enumeration values to full IRIs (``https://schema.org/InStock``).

Accepted spellings of a member: the IRI with ``http``/``https``/``www``, the ``schema:``
CURIE, the bare name, and the name in any case with spaces, ``-`` or ``_`` (``in stock``,
``in_stock``, ``PRE-ORDER``); for enumerations whose members share an affix, the name without
it (``new`` for ``NewCondition``, ``cancelled`` for ``EventCancelled``, ``online`` for
``OnlineEventAttendanceMode``, ``vegan`` for ``VeganDiet``). GoodRelations day IRIs
(``http://purl.org/goodrelations/v1#Monday``) map to schema.org days. Anything else is kept
and flagged ``enum-unknown``.
"""

from __future__ import annotations

from typing import Any

from structcrawl.normalize._result import Normalized, flagged

__all__ = ["ENUM_PROPERTIES", "SCHEMA", "enumeration_members", "normalize_enum"]

SCHEMA = "https://schema.org/"

# enumeration -> (members, affixes stripped to make short synonyms, extra synonyms)
# fmt: off
_DAYS = {"mo": "Monday", "mon": "Monday", "tu": "Tuesday", "tue": "Tuesday", "we": "Wednesday",
         "wed": "Wednesday", "th": "Thursday", "thu": "Thursday", "fr": "Friday",
         "fri": "Friday", "sa": "Saturday", "sat": "Saturday", "su": "Sunday", "sun": "Sunday"}
# fmt: on
_ENUMERATIONS: dict[str, tuple[str, tuple[str, ...], dict[str, str]]] = {
    "ItemAvailability": (
        "BackOrder Discontinued InStock InStoreOnly LimitedAvailability MadeToOrder OnlineOnly "
        "OutOfStock PreOrder PreSale Reserved SoldOut",
        (),
        {"available": "InStock", "unavailable": "OutOfStock"},
    ),
    "OfferItemCondition": (
        "DamagedCondition NewCondition RefurbishedCondition UsedCondition",
        ("condition",),
        {},
    ),
    "EventStatusType": (
        "EventCancelled EventMovedOnline EventPostponed EventRescheduled EventScheduled",
        ("event",),
        {"canceled": "EventCancelled", "eventcanceled": "EventCancelled"},
    ),
    "EventAttendanceModeEnumeration": (
        "MixedEventAttendanceMode OfflineEventAttendanceMode OnlineEventAttendanceMode",
        ("eventattendancemode", "attendancemode"),
        {},
    ),
    "DayOfWeek": (
        "Monday Tuesday Wednesday Thursday Friday Saturday Sunday PublicHolidays",
        (),
        _DAYS,
    ),
    "BookFormatType": ("AudiobookFormat EBook GraphicNovel Hardcover Paperback", ("format",), {}),
    "RestrictedDiet": (
        "DiabeticDiet GlutenFreeDiet HalalDiet HinduDiet KosherDiet LowCalorieDiet LowFatDiet "
        "LowLactoseDiet LowSaltDiet VeganDiet VegetarianDiet",
        ("diet",),
        {},
    ),
    "MerchantReturnEnumeration": (
        "MerchantReturnFiniteReturnWindow MerchantReturnNotPermitted "
        "MerchantReturnUnlimitedWindow MerchantReturnUnspecified",
        ("merchantreturn",),
        {},
    ),
    "ReturnFeesEnumeration": (
        "FreeReturn OriginalShippingFees RestockingFees ReturnFeesCustomerResponsibility "
        "ReturnShippingFees",
        (),
        {},
    ),
    "ActionStatusType": (
        "ActiveActionStatus CompletedActionStatus FailedActionStatus PotentialActionStatus",
        ("actionstatus",),
        {},
    ),
    "ItemListOrderType": (
        "ItemListOrderAscending ItemListOrderDescending ItemListUnordered",
        ("itemlistorder", "itemlist"),
        {},
    ),
}

#: Property -> the enumeration its values come from (schema.org and Open Graph names).
ENUM_PROPERTIES: dict[str, str] = {
    "availability": "ItemAvailability",
    "itemCondition": "OfferItemCondition",
    "eventStatus": "EventStatusType",
    "eventAttendanceMode": "EventAttendanceModeEnumeration",
    "dayOfWeek": "DayOfWeek",
    "bookFormat": "BookFormatType",
    "suitableForDiet": "RestrictedDiet",
    "returnPolicyCategory": "MerchantReturnEnumeration",
    "returnFees": "ReturnFeesEnumeration",
    "actionStatus": "ActionStatusType",
    "itemListOrder": "ItemListOrderType",
    "product:availability": "ItemAvailability",
    "og:availability": "ItemAvailability",
    "product:condition": "OfferItemCondition",
    "og:condition": "OfferItemCondition",
}

_PREFIXES = tuple(
    "https://schema.org/ http://schema.org/ https://www.schema.org/ http://www.schema.org/ "
    "schema: http://purl.org/goodrelations/v1# https://purl.org/goodrelations/v1#".split()
)
_SQUASH = str.maketrans("", "", " _-\u00a0")


def enumeration_members(enumeration: str) -> list[str]:
    """The member names of a schema.org enumeration this module reads.

    >>> enumeration_members("ItemAvailability")[:3]
    ['BackOrder', 'Discontinued', 'InStock']
    """
    return _ENUMERATIONS[enumeration][0].split()


def _token(text: str) -> str:
    text = text.strip()
    low = text.casefold()
    for prefix in _PREFIXES:
        if low.startswith(prefix):
            text = text[len(prefix) :]
            break
    return text.casefold().translate(_SQUASH)


def _build() -> dict[str, dict[str, str]]:
    tables: dict[str, dict[str, str]] = {}
    for name, (members, affixes, extra) in _ENUMERATIONS.items():
        table: dict[str, str] = {}
        for member in members.split():
            low = member.casefold()
            table[low] = member
            for affix in affixes:
                if low.endswith(affix) and low != affix:
                    table.setdefault(low[: -len(affix)], member)
                if low.startswith(affix) and low != affix:
                    table.setdefault(low[len(affix) :], member)
        for key, member in extra.items():
            table.setdefault(key, member)
        tables[name] = table
    return tables


_TABLES = _build()


def normalize_enum(prop: str, value: Any) -> Normalized:
    """The schema.org IRI of an enumeration member named by ``value`` for property ``prop``.

    >>> normalize_enum("availability", "in stock").value
    'https://schema.org/InStock'
    >>> normalize_enum("itemCondition", "http://schema.org/UsedCondition").value
    'https://schema.org/UsedCondition'
    >>> [f.code for f in normalize_enum("availability", "ask us").flags]
    ['enum-unknown']
    """
    enumeration = ENUM_PROPERTIES.get(prop)
    if enumeration is None:
        return Normalized(value)
    if isinstance(value, dict) and set(value) == {"@id"}:
        inner = normalize_enum(prop, value["@id"])
        return Normalized(inner.value if inner.ok else value, inner.flags)
    if not isinstance(value, str):
        return flagged(value, "enum-unknown", f"not a {enumeration} member: {value!r}")
    member = _TABLES[enumeration].get(_token(value))
    if member is None:
        return flagged(value, "enum-unknown", f"{value.strip()!r} is not a {enumeration} member")
    return Normalized(SCHEMA + member)
