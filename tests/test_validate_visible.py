"""Semantic data against the visible page: conflicts, never a silent choice."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from structcrawl.validate import check_visible
from structcrawl.visible.facts import VisibleFacts


def rec(types: str | list[str], **props: Any) -> dict[str, Any]:
    return {
        "format": "json-ld",
        "kind": "entity",
        "type": [types] if isinstance(types, str) else list(types),
        "properties": props,
    }


def facts(**kw: Any) -> VisibleFacts:
    return VisibleFacts(
        **{"title": None, "h1": [], "canonical": None, "prices": [], "times": [], **kw}
    )


def codes(conflicts: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(c["field"], c["code"]) for c in conflicts]


def test_visible_facts_is_a_frozen_dataclass_with_the_agreed_fields() -> None:
    f = VisibleFacts(
        title="t", h1=["h"], canonical="https://x.example/", prices=["$1"], times=["2026-01-01"]
    )
    assert [x.name for x in dataclasses.fields(f)] == [
        "title",
        "h1",
        "canonical",
        "prices",
        "times",
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.title = "other"  # type: ignore[misc]


def test_no_facts_no_conflicts() -> None:
    product = rec("Product", name="Anything", offers=rec("Offer", price="1"))
    assert check_visible(product, None) == []  # type: ignore[arg-type]
    assert check_visible(product, facts()) == []


@pytest.mark.parametrize(
    "title,h1",
    [
        ("Trail Runner X | Northwind Outfitters", []),  # suffix
        ("Northwind — TRAIL  RUNNER   x", []),  # case, whitespace, prefix
        ("Shop", ["Trail Runner X"]),  # an h1 matches
        ("Trail Runner", []),  # the title is contained in the name
        (None, ["Trail-Runner X"]),  # punctuation folds to spaces
    ],
)
def test_name_agrees_with_title_or_h1(title: str | None, h1: list[str]) -> None:
    product = rec("Product", name="Trail Runner X")
    assert check_visible(product, facts(title=title, h1=h1)) == []


def test_name_disagreeing_with_title_and_h1_is_a_conflict() -> None:
    product = rec("Product", name="Summit Down Jacket")
    assert check_visible(product, facts(title="All gear | Northwind", h1=["All gear"])) == [
        {
            "field": "name",
            "record_value": "Summit Down Jacket",
            "visible_value": "All gear | Northwind",
            "visible_source": "title",
            "code": "name-vs-title",
        }
    ]
    only_h1 = check_visible(product, facts(h1=["Alpine 2P Tent"]))
    assert [(c["visible_source"], c["visible_value"]) for c in only_h1] == [
        ("h1", "Alpine 2P Tent")
    ]
    # containment is word for word: "Down" is not in "Downhill skis"
    assert codes(check_visible(rec("Product", name="Down"), facts(title="Downhill skis"))) == [
        ("name", "name-vs-title")
    ]


def test_headline_is_compared_for_articles_and_non_subject_types_are_not() -> None:
    article = rec("NewsArticle", headline="Northwind opens in München")
    f = facts(title="Northwind opens in MÜNCHEN | Journal")
    assert check_visible(article, f) == []
    assert codes(check_visible(article, facts(title="Other news"))) == [
        ("headline", "headline-vs-title")
    ]
    author = rec("Person", name="Ingrid Solberg")
    assert check_visible(author, facts(title="How to layer | Journal")) == []


@pytest.mark.parametrize("visible", [["$129.99"], ["USD 129.99"], ["was $149.00", "$129.99"]])
def test_price_agrees_with_a_visible_price(visible: list[str]) -> None:
    product = rec("Product", name="X", offers=rec("Offer", price="129.99", priceCurrency="USD"))
    assert check_visible(product, facts(prices=visible)) == []


def test_raw_and_normalized_european_prices_compare_as_decimals() -> None:
    f = facts(prices=["€1.299,00"])
    for price in ("1299.00", "1299", "1.299,00", 1299):
        product = rec("Product", name="Set", offers=rec("Offer", price=price))
        assert check_visible(product, f) == [], price


def test_price_disagreement_names_the_offers() -> None:
    product = rec(
        "Product", name="Poles", offers=[rec("Offer", price="119.00"), rec("Offer", price="129.00")]
    )
    conflicts = check_visible(product, facts(prices=["$99.00"]))
    assert conflicts[1] == {
        "field": "offers[1].price",
        "record_value": "129.00",
        "visible_value": ["$99.00"],
        "visible_source": "price",
        "code": "price-vs-visible",
    }
    assert codes(conflicts) == [
        ("offers[0].price", "price-vs-visible"),
        ("offers[1].price", "price-vs-visible"),
    ]
    spec = rec("Offer", priceSpecification=rec("UnitPriceSpecification", price="9.99"))
    assert codes(check_visible(spec, facts(prices=["$19.99"]))) == [
        ("priceSpecification.price", "price-vs-visible")
    ]
    assert check_visible(product, facts(prices=["call us"])) == []  # nothing to compare


def test_one_visible_price_is_enough_for_several_offers() -> None:
    new_and_open_box = rec(
        "Product", name="Poles", offers=[rec("Offer", price="149.00"), rec("Offer", price="119.00")]
    )
    assert check_visible(new_and_open_box, facts(prices=["$149.00"])) == []
    agg = rec(
        "Product", name="Tent", offers=rec("AggregateOffer", lowPrice="349.00", highPrice="419.00")
    )
    assert check_visible(agg, facts(prices=["from $349.00"])) == []


def test_dates_compare_by_date_part_or_instant() -> None:
    article = rec("Article", datePublished="2026-03-14T10:00:00+01:00")
    assert check_visible(article, facts(times=["2026-03-14"])) == []
    assert check_visible(article, facts(times=["2026-03-14T09:00:00Z"])) == []
    late = rec("Article", datePublished="2026-03-14T23:30:00-08:00")
    assert check_visible(late, facts(times=["2026-03-15T07:30:00Z"])) == []  # same instant
    conflicts = check_visible(article, facts(times=["2026-03-12", "March 14"]))
    assert conflicts == [
        {
            "field": "datePublished",
            "record_value": "2026-03-14T10:00:00+01:00",
            "visible_value": ["2026-03-12", "March 14"],
            "visible_source": "time",
            "code": "date-vs-time",
        }
    ]
    event = rec("Event", name="Clinic", startDate="2026-04-18T09:00:00-07:00")
    assert codes(check_visible(event, facts(times=["2026-04-19"]))) == [
        ("startDate", "date-vs-time")
    ]
    assert check_visible(event, facts(times=["next Saturday"])) == []


def test_webpage_url_against_canonical() -> None:
    page = rec("CollectionPage", name="Journal", url="http://127.0.0.1:8765/articles/")
    assert check_visible(page, facts(canonical="http://127.0.0.1:8765/articles/")) == []
    assert codes(
        check_visible(page, facts(canonical="http://127.0.0.1:8765/articles/index.html"))
    ) == [("url", "url-vs-canonical")]


def test_facts_given_as_a_mapping_and_odd_records() -> None:
    product = rec("Product", name="Trail Runner X")
    assert codes(
        check_visible(product, {"title": "Other", "h1": "not a list"})  # type: ignore[arg-type]
    ) == [("name", "name-vs-title")]
    for odd in ({}, {"kind": "error"}, {"properties": None}, rec("Product", name=["", "x"])):
        assert isinstance(check_visible(odd, facts(title="t", prices=["$1"])), list)
