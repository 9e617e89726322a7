"""The per-type JSON Schemas: well-formed, shipped as package data, and saying what Google says."""

from __future__ import annotations

import json
import tomllib
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from structcrawl.validate import Validator
from structcrawl.validate._schemas import load_schemas, schema_files

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_DIR = ROOT / "structcrawl" / "schemas"
REQUIRED_TYPES = {
    "Product",
    "Offer",
    "AggregateOffer",
    "Article",
    "NewsArticle",
    "BlogPosting",
    "Event",
    "Organization",
    "Person",
    "Recipe",
    "BreadcrumbList",
    "JobPosting",
    "LocalBusiness",
    "WebPage",
    "WebSite",
    "Review",
    "AggregateRating",
}


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
        "source_element": "/html/head/script[1]#$",
        "provenance": {"parser": "test", "parser_version": "0", "fields": {}},
        "error": None,
        "repairs": [],
    }


def paths(issues: list[dict[str, Any]], code: str | None = None) -> list[str]:
    return [i["path"] for i in issues if code is None or i["code"] == code]


@pytest.mark.parametrize("path", sorted(SCHEMA_DIR.glob("*.json")), ids=lambda p: p.name)
def test_every_schema_file_is_valid_draft_2020_12(path: Path) -> None:
    schema = json.loads(path.read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(f"/{path.name}")
    if not path.name.startswith("_"):
        assert schema["title"] == path.stem
        Draft202012Validator.check_schema(schema["$defs"]["recommended"])


def test_schemas_and_vocabulary_are_found_as_package_data() -> None:
    shipped = {p.name for p in schema_files().iterdir()}
    assert {f"{t}.json" for t in REQUIRED_TYPES} <= shipped
    assert set(load_schemas()) >= REQUIRED_TYPES
    assert REQUIRED_TYPES <= set(Validator.default().checks)
    # and pyproject declares them, so a wheel or a scrapyd egg carries them
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["structcrawl"]
    data = [*(f"schemas/{p.name}" for p in SCHEMA_DIR.glob("*.json")), "vocab/schemaorg.json.gz"]
    for name in data:
        assert any(fnmatch(name, g) for g in globs), f"{name} is not declared as package data"


# (type, record that is valid, record that is not, the error paths of the invalid one)
CASES = [
    (
        "Product",
        rec("Product", name="Shoe", offers=rec("Offer", price="10.00", priceCurrency="USD")),
        rec("Product", description="no name, no offers"),
        ["name", "offers|review|aggregateRating"],
    ),
    (
        "Offer",
        rec("Offer", price=129.99, priceCurrency="USD"),
        rec("Offer", priceCurrency="USD"),
        ["price|priceSpecification"],
    ),
    (
        "AggregateOffer",
        rec("AggregateOffer", lowPrice="349.00", highPrice="419.00", priceCurrency="USD"),
        rec("AggregateOffer", highPrice="419.00"),
        ["lowPrice", "priceCurrency"],
    ),
    (
        "Article",
        rec("Article", headline="Tents", datePublished="2026-03-10"),
        rec("Article", headline="", author="x"),
        ["headline"],
    ),
    (
        "Event",
        rec(
            "Event",
            name="Clinic",
            startDate="2026-04-18T09:00:00-07:00",
            location=rec("Place", name="Park"),
        ),
        rec("Event", name="Clinic", location="Seattle"),
        ["startDate", "location"],
    ),
    (
        "Organization",
        rec("Organization", name="Northwind", url="https://northwind.example/"),
        rec("Organization", name=["Northwind", ""]),
        ["name[1]"],
    ),
    ("Person", rec("Person", name="Ada"), rec("Person", url="https://a.example/"), ["name"]),
    (
        "Recipe",
        rec("Recipe", name="Bars", image="https://x.example/b.jpg"),
        rec("Recipe", name="Bars"),
        ["image"],
    ),
    (
        "BreadcrumbList",
        rec(
            "BreadcrumbList",
            itemListElement=[
                rec("ListItem", position=1, name="Home", item="https://x.example/"),
                rec("ListItem", position=2, item=rec("Thing", name="Shoes")),
            ],
        ),
        rec(
            "BreadcrumbList",
            itemListElement=[
                rec("ListItem", position=1, name="Home"),
                rec("ListItem", item="https://x.example/a"),
            ],
        ),
        ["itemListElement[1].position", "itemListElement[1].name|item"],
    ),
    (
        "JobPosting",
        rec(
            "JobPosting",
            title="Tent fitter",
            description="<p>Fit tents</p>",
            datePosted="2026-03-01",
            hiringOrganization=rec("Organization", name="Northwind"),
            jobLocation=rec("Place", address=rec("PostalAddress", addressLocality="Seattle")),
        ),
        rec(
            "JobPosting",
            title="Tent fitter",
            description="Fit tents",
            hiringOrganization="Northwind",
        ),
        ["datePosted", "jobLocation|applicantLocationRequirements"],
    ),
    (
        "LocalBusiness",
        rec("LocalBusiness", name="Store", address=rec("PostalAddress", streetAddress="1 Main")),
        rec("LocalBusiness", name="Store"),
        ["address"],
    ),
    (
        "WebPage",
        rec("WebPage", name="Home", url="https://x.example/"),
        rec("WebPage", name={"not": "text"}, breadcrumb="Home > Shoes"),
        ["name", "breadcrumb"],
    ),
    (
        "WebSite",
        rec("WebSite", name="Northwind", url="https://x.example/"),
        rec("WebSite", name="Northwind"),
        ["url"],
    ),
    (
        "Review",
        rec(
            "Review",
            author=rec("Person", name="Kenji"),
            reviewRating=rec("Rating", ratingValue="5"),
            itemReviewed={"@id": "https://x.example/p#product"},
        ),
        rec("Review", author=rec("Person", name="Kenji")),
        ["reviewRating", "itemReviewed"],
    ),
    (
        "AggregateRating",
        rec("AggregateRating", ratingValue=4.5, reviewCount=212, itemReviewed={"@id": "#p"}),
        rec("AggregateRating", ratingValue=4.5),
        ["ratingCount|reviewCount", "itemReviewed"],
    ),
]


@pytest.mark.parametrize(("type_", "good", "bad", "error_paths"), CASES, ids=[c[0] for c in CASES])
def test_each_type_accepts_valid_and_rejects_invalid_records(
    type_: str, good: dict[str, Any], bad: dict[str, Any], error_paths: list[str]
) -> None:
    validator = Validator.default()
    ok = validator.validate(good).as_dict()
    assert ok["valid"] and ok["errors"] == [], ok
    result = validator.validate(bad).as_dict()
    assert result["valid"] is False
    assert sorted(paths(result["errors"])) == sorted(error_paths), result["errors"]
    for issue in result["errors"] + result["warnings"]:
        assert set(issue) == {"path", "code", "message"} and issue["message"]


def test_recommended_properties_and_strict_formats_are_warnings() -> None:
    result = (
        Validator.default()
        .validate(rec("Offer", price="1.299,00", priceCurrency="€", priceValidUntil="30.04.2026"))
        .as_dict()
    )
    assert result["valid"] is True
    warnings = {i["path"]: i["code"] for i in result["warnings"]}
    assert warnings["price"] == "bad-format"
    assert warnings["priceCurrency"] == "bad-format"
    assert warnings["priceValidUntil"] == "bad-format"
    assert warnings["availability"] == "missing-recommended"


def test_normalized_values_pass_both_tiers() -> None:
    offer = rec(
        "Offer",
        price="1299.00",
        priceCurrency="EUR",
        priceValidUntil="2026-04-30",
        availability="https://schema.org/InStock",
    )
    result = Validator.default().validate(offer).as_dict()
    assert result == {"valid": True, "errors": [], "warnings": []}


def test_error_codes_name_the_kind_of_problem() -> None:
    result = (
        Validator.default()
        .validate(rec("Product", name="", offers="129.99", review=[rec("Review", author="A")]))
        .as_dict()
    )
    by_path = {i["path"]: i["code"] for i in result["errors"]}
    assert by_path["name"] == "bad-format"
    assert by_path["offers"] == "wrong-type"
    assert by_path["review[0].reviewRating"] == "missing-required"
    assert "got '129.99'" in next(i["message"] for i in result["errors"] if i["path"] == "offers")


def test_itemreviewed_is_required_only_on_top_level_reviews() -> None:
    review = rec(
        "Review", author=rec("Person", name="K"), reviewRating=rec("Rating", ratingValue=5)
    )
    top = Validator.default().validate(review).as_dict()
    assert paths(top["errors"]) == ["itemReviewed"]
    nested = Validator.default().validate(rec("Product", name="Lamp", review=review)).as_dict()
    assert nested["valid"], nested["errors"]
