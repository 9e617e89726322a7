"""The validator as a whole: subtypes, nested paths, which records, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from structcrawl.extract import extract_payload
from structcrawl.validate import ValidationResult, Validator

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"


def rec(types: str | list[str], fmt: str = "json-ld", **props: Any) -> dict[str, Any]:
    return {
        "source_url": "https://shop.example/p/1",
        "format": fmt,
        "kind": "entity",
        "type": [types] if isinstance(types, str) else list(types),
        "id": None,
        "properties": props,
        "raw": None,
        "context": "https://schema.org",
        "source_element": "/html/body",
        "error": None,
        "repairs": [],
        "provenance": {"parser": "test", "parser_version": "0", "fields": {}},
    }


def validate(record: Any) -> dict[str, Any]:
    return Validator.default().validate(record).as_dict()


def error_paths(record: Any) -> list[str]:
    return [e["path"] for e in validate(record)["errors"]]


def test_subtypes_use_their_own_schema_or_the_nearest_supertype_with_one() -> None:
    v = Validator.default()
    assert [c.name for c in v.checks_for(["NewsArticle"])] == ["NewsArticle"]
    assert [c.name for c in v.checks_for(["SportingGoodsStore"])] == ["LocalBusiness"]
    assert [c.name for c in v.checks_for(["Product", "IndividualProduct"])] == ["Product"]
    assert [c.name for c in v.checks_for(["CollectionPage"])] == ["WebPage"]
    assert [c.name for c in v.checks_for(["EmployerAggregateRating"])] == ["AggregateRating"]
    assert v.checks_for(["Thing"]) == () and v.checks_for(["https://x.example/T"]) == ()


def test_news_article_is_checked_with_the_article_rules() -> None:
    result = validate(rec("NewsArticle", headline="x" * 120))
    assert result["valid"]
    warned = {w["path"]: w["code"] for w in result["warnings"]}
    assert warned["headline"] == "out-of-range"  # Article's 110-character advice
    assert warned["author"] == warned["datePublished"] == "missing-recommended"


def test_a_type_without_schema_gets_the_vocabulary_check_only() -> None:
    result = validate(rec("Thing", nmae="typo"))
    assert result["valid"] and [w["code"] for w in result["warnings"]] == ["unknown-property"]


def test_nested_records_are_checked_with_paths() -> None:
    product = rec(
        "Product",
        name="Tent",
        offers=rec(
            "AggregateOffer",
            lowPrice="349.00",
            priceCurrency="USD",
            offers=[rec("Offer", price="349.00"), rec("Offer", priceCurrency="USD")],
        ),
        review=[
            rec(
                "Review",
                author=rec("Person", url="https://x.example/"),
                reviewRating=rec("Rating", ratingValue=5),
            )
        ],
    )
    assert error_paths(product) == [
        "offers.offers[1].price|priceSpecification",
        "review[0].author.name",
    ]
    single = rec("Product", name="Shoe", offers=[rec("Offer", price="1"), rec("Offer")])
    assert error_paths(single) == ["offers[1].price|priceSpecification"]


def test_nested_entities_outside_the_rich_result_only_warn() -> None:
    article = rec("Article", headline="Tents", mentions=rec("Product", name="Tent"))
    result = validate(article)
    assert result["valid"]
    assert {
        "path": "mentions.offers|review|aggregateRating",
        "code": "missing-required",
        "message": "one of offers, review, aggregateRating is required",
    } in result["warnings"]
    assert not any(w["path"] == "mentions.image" for w in result["warnings"])


def test_which_records_are_checked() -> None:
    og = rec("product", fmt="opengraph", **{"og:title": "x"})
    assert validate(og) == {
        "valid": True,
        "errors": [],
        "warnings": [],
        "skipped": "opengraph records are not schema.org",
    }
    for fmt in ("twitter", "dublincore", "microformats"):
        assert validate(rec([], fmt=fmt))["skipped"]
    block = rec("__NEXT_DATA__", fmt="data-block", props={})
    assert validate(block)["skipped"] == "no schema.org type"
    typed = rec("Event", fmt="json", name="Swap", startDate="2026-03-21", location="München")
    assert error_paths(typed) == ["location"]
    foreign = rec("Product", name="x") | {"context": "https://w3id.org/security/v2"}
    assert validate(foreign)["skipped"] == "@context is not schema.org"
    assert [w["code"] for w in validate(foreign)["warnings"]] == ["json-ld-unknown-context"]
    bare = rec("Product", name="x") | {"context": None, "raw": {"@type": "Product", "name": "x"}}
    assert validate(bare)["skipped"] == "no @context: not schema.org data"
    assert [w["code"] for w in validate(bare)["warnings"]] == ["json-ld-no-context"]
    iris = {"@type": "https://schema.org/Product", "https://schema.org/name": "x"}
    assert "skipped" not in validate(rec("Product", name="x") | {"context": None, "raw": iris})
    error = rec([]) | {"kind": "error", "error": {"code": "json-ld-invalid", "message": "x"}}
    assert validate(error)["skipped"] == "error record"
    for fmt in ("microdata", "rdfa"):
        assert error_paths(rec("Product", fmt=fmt)) == ["name", "offers|review|aggregateRating"]


def test_bad_input_never_raises() -> None:
    v = Validator.default()
    for bad in (
        None,
        "x",
        [],
        {},
        {"properties": "x"},
        {"type": "Product", "properties": []},
        {"type": [1, None], "properties": {1: 2}},
        {"kind": "entity", "type": None},
    ):
        result = v.validate(bad)
        assert isinstance(result, ValidationResult)
        assert set(result.as_dict()) >= {"valid", "errors", "warnings"}
    assert v.validate(None).as_dict()["errors"][0]["code"] == "malformed-record"
    deep: dict[str, Any] = rec("Product", name="x")
    for _ in range(200):
        deep = rec("Product", name="x", isRelatedTo=deep)
    assert isinstance(v.validate(deep), ValidationResult)
    looped = rec("Product", name="x", offers=rec("Offer", price="1"))
    looped["properties"]["isSimilarTo"] = looped
    assert v.validate(looped).valid


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    types=st.lists(
        st.sampled_from(
            ["Product", "Offer", "Event", "BreadcrumbList", "Review", "Recipe", "Thing", "x:y", ""]
        ),
        max_size=2,
    ),
    props=st.dictionaries(
        st.sampled_from(
            [
                "name",
                "offers",
                "price",
                "location",
                "image",
                "itemListElement",
                "author",
                "@id",
                "zz",
            ]
        ),
        json_values,
        max_size=5,
    ),
)
def test_arbitrary_properties_give_a_result(types: list[str], props: dict[str, Any]) -> None:
    result = Validator.default().validate(rec(types, **props)).as_dict()
    assert result["valid"] == (not result["errors"])
    assert all(i["code"] != "validator-failed" for i in result["errors"])


def test_the_demo_site_validates_as_expected() -> None:
    """Every demo page: the broken cases are found, the good ones are valid."""
    verdicts: dict[tuple[str, str, str], bool] = {}
    for page in sorted(SITE.rglob("*.html")):
        url = "http://127.0.0.1:8765/" + page.relative_to(SITE).as_posix()
        for record in extract_payload(page.read_bytes(), url, "text/html").records:
            data = record.to_dict()
            result = validate(data)
            if data["kind"] == "entity" and not result.get("skipped"):
                key = (page.relative_to(SITE).as_posix(), data["format"], "/".join(data["type"]))
                verdicts[key] = verdicts.get(key, True) and result["valid"]
    assert verdicts, "the demo site has schema.org records"
    invalid = sorted(k for k, ok in verdicts.items() if not ok)
    assert invalid == [], json.dumps(invalid)
    assert verdicts[("products/trail-runner-x.html", "microdata", "Product")]
    assert verdicts[("stores/munich.html", "json-ld", "Store/SportingGoodsStore")]
