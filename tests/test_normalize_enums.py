"""schema.org enumerations to full IRIs."""

from __future__ import annotations

import pytest

from structcrawl.normalize.enums import normalize_enum

S = "https://schema.org/"

GOOD = [
    ("availability", "InStock", "InStock"),
    ("availability", "http://schema.org/InStock", "InStock"),
    ("availability", "https://schema.org/InStock", "InStock"),
    ("availability", "http://www.schema.org/OutOfStock", "OutOfStock"),
    ("availability", "schema:PreOrder", "PreOrder"),
    ("availability", " in stock ", "InStock"),
    ("availability", "IN_STOCK", "InStock"),
    ("availability", "pre-order", "PreOrder"),
    ("availability", {"@id": "schema:SoldOut"}, "SoldOut"),
    ("product:availability", "in stock", "InStock"),
    ("product:availability", "out of stock", "OutOfStock"),
    ("og:availability", "preorder", "PreOrder"),
    ("itemCondition", "https://schema.org/NewCondition", "NewCondition"),
    ("itemCondition", "new", "NewCondition"),
    ("itemCondition", "http://schema.org/UsedCondition", "UsedCondition"),
    ("product:condition", "refurbished", "RefurbishedCondition"),
    ("eventStatus", "EventScheduled", "EventScheduled"),
    ("eventStatus", "cancelled", "EventCancelled"),
    ("eventStatus", "canceled", "EventCancelled"),
    ("eventStatus", "https://schema.org/EventRescheduled", "EventRescheduled"),
    ("eventAttendanceMode", "online", "OnlineEventAttendanceMode"),
    ("eventAttendanceMode", "OfflineEventAttendanceMode", "OfflineEventAttendanceMode"),
    ("dayOfWeek", "Monday", "Monday"),
    ("dayOfWeek", "http://purl.org/goodrelations/v1#Sunday", "Sunday"),
    ("dayOfWeek", "Sa", "Saturday"),
    ("suitableForDiet", "https://schema.org/VeganDiet", "VeganDiet"),
    ("suitableForDiet", "gluten free", "GlutenFreeDiet"),
    ("itemListOrder", "https://schema.org/ItemListUnordered", "ItemListUnordered"),
    ("bookFormat", "Paperback", "Paperback"),
    ("returnPolicyCategory", "MerchantReturnNotPermitted", "MerchantReturnNotPermitted"),
]


@pytest.mark.parametrize(("prop", "value", "member"), GOOD)
def test_members_become_full_iris(prop, value, member):
    result = normalize_enum(prop, value)
    assert (result.value, result.flags) == (S + member, ())


@pytest.mark.parametrize(
    ("prop", "value"),
    [
        ("availability", "ask us"),
        ("availability", "https://example.org/InStock"),
        ("availability", "available for order"),
        ("itemCondition", "InStock"),  # a member of another enumeration
        ("eventStatus", ""),
        ("availability", 3),
    ],
)
def test_unknown_values_are_flagged_and_kept(prop, value):
    result = normalize_enum(prop, value)
    assert result.value == value
    assert [f.code for f in result.flags] == ["enum-unknown"]


def test_properties_that_are_not_enumerations_pass_through():
    assert normalize_enum("name", "InStock").value == "InStock"
