"""normalize_record: properties normalized in place, originals kept, flags, keys."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from structcrawl.core.document import parse_html
from structcrawl.extract import extract_payload
from structcrawl.normalize import NormalizeContext, normalize_record

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
PAGE = "https://northwind.example/products/x.html"
CTX = NormalizeContext(page_url=PAGE)


def record(types, props, raws=None, *, fmt="json-ld", id=None):
    """A record dict with one sighting per value (raw = the value unless given)."""
    raws = raws or {}
    fields = {}
    for prop, value in props.items():
        values = value if isinstance(value, list) else [value]
        given = raws.get(prop, values)
        given = given if isinstance(given, list) else [given]
        fields[prop] = [
            {"path": f"$.{prop}[{i}]", "raw": None if isinstance(v, dict) and "kind" in v else r}
            for i, (v, r) in enumerate(zip(values, given, strict=True))
        ]
    return {
        "source_url": PAGE,
        "format": fmt,
        "kind": "entity",
        "type": types,
        "id": id,
        "properties": props,
        "raw": None,
        "context": None,
        "source_element": "/html/head/script[1]#$",
        "provenance": {"parser": "test", "parser_version": "0", "fields": fields},
        "error": None,
        "repairs": [],
    }


def codes(rec):
    return [(f["field"], f["code"]) for f in rec["flags"]]


def site_records(path, *, timezone=None):
    url = f"https://northwind.example/{path}"
    body = (SITE / path).read_bytes()
    doc = parse_html(body, url)
    ctx = NormalizeContext(url, doc.base_url, doc.root.get("lang"), timezone)
    result = extract_payload(body, url, "text/html", document=doc)
    return [normalize_record(r.to_dict(), ctx) for r in result.records]


def nested(rec):
    for value in rec["properties"].values():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, dict) and "properties" in v:
                yield v
                yield from nested(v)


def test_returns_the_same_dict_normalized_in_place():
    rec = record(["Offer"], {"price": "1.299,00 €"})
    assert normalize_record(rec, CTX) is rec
    assert rec["properties"] == {"price": "1299.00", "priceCurrency": "EUR", "currencyRaw": "€"}
    assert rec["provenance"]["fields"]["price"] == [
        {"path": "$.price[0]", "raw": "1.299,00 €", "value": "1299.00"}
    ]
    assert rec["flags"] == []
    assert rec["key"].startswith("derived:Offer:")


def test_currency_symbol_in_the_currency_property_goes_to_iso_with_the_raw_beside_it():
    rec = normalize_record(record(["Offer"], {"price": "1.299,00", "priceCurrency": "€"}), CTX)
    assert rec["properties"]["price"] == "1299.00"
    assert rec["properties"]["priceCurrency"] == "EUR"
    assert rec["properties"]["currencyRaw"] == "€"
    assert rec["provenance"]["fields"]["priceCurrency"][0] == {
        "path": "$.priceCurrency[0]",
        "raw": "€",
        "value": "EUR",
    }


def test_an_iso_currency_needs_no_raw_and_decides_separators():
    rec = normalize_record(record(["Offer"], {"price": "1.234", "priceCurrency": "JPY"}), CTX)
    assert rec["properties"] == {"price": "1234", "priceCurrency": "JPY"}
    ambiguous = normalize_record(record(["Offer"], {"price": "1.234", "priceCurrency": "USD"}), CTX)
    assert ambiguous["properties"]["price"] == "1.234"
    assert ambiguous["flags"] == [
        {
            "field": "price",
            "code": "price-ambiguous-separator",
            "message": ambiguous["flags"][0]["message"],
            "raw": "1.234",
        }
    ]


def test_price_and_currency_property_disagreeing_is_flagged():
    rec = normalize_record(record(["Offer"], {"price": "12,00 €", "priceCurrency": "USD"}), CTX)
    assert rec["properties"] == {"price": "12.00", "priceCurrency": "USD"}
    assert codes(rec) == [("price", "price-currency-conflict")]


def test_open_graph_prices_use_their_own_currency_property():
    rec = record([], {"og:price:amount": "1.299,00", "og:price:currency": "€"}, fmt="opengraph")
    normalize_record(rec, NormalizeContext(PAGE, language="de"))
    assert rec["properties"] == {
        "og:price:amount": "1299.00",
        "og:price:currency": "EUR",
        "og:price:currencyRaw": "€",
    }


def test_open_graph_product_price_groups():
    groups = [{"amount": "1.299,00", "currency": "€"}, {"amount": "9,99 $"}, {"amount": "5"}]
    rec = record(
        [],
        {"product:price": groups, "product:weight": {"value": "1,2", "units": "kg"}},
        {"product:price": ["1.299,00", "9,99 $", "5"], "product:weight": "1,2"},
        fmt="opengraph",
    )
    rec["provenance"]["fields"]["product:price:amount"] = [
        {"path": "/html/head/meta[1]", "raw": "1.299,00"}
    ]
    normalize_record(rec, CTX)
    assert rec["properties"]["product:price"] == [
        {"amount": "1299.00", "currency": "EUR", "currencyRaw": "€"},
        {"amount": "9.99"},
        {"amount": "5"},
    ]
    assert rec["properties"]["product:weight"] == {"value": "1.2", "units": "kg"}
    assert codes(rec) == [("product:price", "currency-ambiguous")]
    assert rec["flags"][0]["raw"] == "9,99 $"
    fields = rec["provenance"]["fields"]
    assert fields["product:price:amount"][0] == {
        "path": "/html/head/meta[1]",
        "raw": "1.299,00",
        "value": "1299.00",
    }
    assert fields["product:price"][0]["value"] == rec["properties"]["product:price"][0]


def test_language_of_the_page_and_of_the_literal():
    rec = record(["Offer"], {"price": "1.234", "validFrom": "03/04/2025"})
    normalize_record(rec, NormalizeContext(PAGE, language="de"))
    assert rec["properties"] == {"price": "1234", "validFrom": "2025-04-03"}
    # an RDFa literal's own language wins over the page's
    rdfa = record(
        ["Event"],
        {"startDate": "03/04/2025"},
        {"startDate": {"@value": "03/04/2025", "@language": "en-US"}},
        fmt="rdfa",
    )
    normalize_record(rdfa, NormalizeContext(PAGE, language="de"))
    assert rdfa["properties"]["startDate"] == "2025-03-04"
    assert rdfa["provenance"]["fields"]["startDate"][0]["raw"] == {
        "@value": "03/04/2025",
        "@language": "en-US",
    }


def test_typed_literals_are_dates_whatever_their_property():
    rec = record(
        ["Thing"],
        {"https://v.example/#made": "3 March 2025"},
        {
            "https://v.example/#made": {
                "@value": "3 March 2025",
                "@type": "http://www.w3.org/2001/XMLSchema#date",
            }
        },
        fmt="rdfa",
    )
    normalize_record(rec, CTX)
    assert rec["properties"]["https://v.example/#made"] == "2025-03-03"
    untyped = record(["Thing"], {"https://v.example/#made": "3 March 2025"}, fmt="rdfa")
    normalize_record(untyped, CTX)
    assert untyped["properties"]["https://v.example/#made"] == "3 March 2025"


def test_time_zone_from_the_context_and_the_no_timezone_flag():
    rec = record(["Event"], {"startDate": "2026-03-21T10:00", "endDate": "2026-03-21"})
    normalize_record(copy.deepcopy(rec), CTX)
    local = normalize_record(copy.deepcopy(rec), CTX)
    assert local["properties"]["startDate"] == "2026-03-21T10:00:00"
    assert codes(local) == [("startDate", "date-no-timezone")]
    berlin = normalize_record(rec, NormalizeContext(PAGE, timezone="Europe/Berlin"))
    assert berlin["properties"] == {
        "startDate": "2026-03-21T10:00:00+01:00",
        "endDate": "2026-03-21",
    }
    assert berlin["flags"] == []


def test_flags_carry_field_code_message_and_the_raw_value():
    rec = normalize_record(
        record(
            ["Product"],
            {
                "gtin13": "0614141100018",
                "availability": "ask us",
                "image": "javascript:alert(1)",
                "datePublished": "yesterday",
                "totalTime": "1:30",
            },
        ),
        CTX,
    )
    assert codes(rec) == [
        ("gtin13", "gtin-check-digit"),
        ("availability", "enum-unknown"),
        ("image", "url-unsafe"),
        ("datePublished", "date-unparsed"),
        ("totalTime", "duration-ambiguous"),
    ]
    for flag in rec["flags"]:
        assert set(flag) == {"field", "code", "message", "raw"} and flag["message"]
        assert rec["properties"][flag["field"]] == flag["raw"]  # the original is kept


def test_lists_nested_records_and_references():
    offer = record(["Offer"], {"price": "49,95", "availability": "InStock"})
    rec = record(
        ["Product"],
        {
            "sameAs": ["/a", "https://x.example/b#utm_source=1"],
            "offers": [offer],
            "isRelatedTo": {"@id": "/products/trail-runner-x#product"},
            "weight": "1,2 kg",
        },
    )
    normalize_record(rec, CTX)
    props = rec["properties"]
    assert props["sameAs"] == ["https://northwind.example/a", "https://x.example/b"]
    assert props["isRelatedTo"] == {
        "@id": "https://northwind.example/products/trail-runner-x#product"
    }
    assert props["weight"] == {"value": "1.2", "unitText": "kg", "unitCode": "KGM"}
    inner = props["offers"][0]
    assert inner["properties"] == {"price": "49.95", "availability": "https://schema.org/InStock"}
    assert inner["flags"] == [] and inner["key"].startswith("derived:Offer:")
    assert [s["value"] for s in rec["provenance"]["fields"]["sameAs"]] == props["sameAs"]
    assert rec["provenance"]["fields"]["offers"][0]["value"] is None  # see the nested record


def test_flags_stay_on_the_record_that_has_the_field():
    offer = record(["Offer"], {"price": "call"})
    rec = normalize_record(record(["Product"], {"offers": offer}), CTX)
    assert rec["flags"] == []
    assert codes(rec["properties"]["offers"]) == [("price", "price-non-numeric")]


def test_sightings_that_do_not_line_up_with_values_are_normalized_from_their_raw():
    rec = record([], {"og:image": {"url": "/img/a.svg"}}, fmt="opengraph")
    rec["provenance"]["fields"]["og:image"] = [{"path": "/html/head/meta[1]", "raw": "/img/a.svg"}]
    rec["provenance"]["fields"]["og:image:width"] = [{"path": "/html/head/meta[2]", "raw": "1200"}]
    rec["provenance"]["fields"]["og:url"] = [
        {"path": "/html/head/meta[3]", "raw": "/p"},
        {"path": "/html/head/meta[4]", "raw": "/q"},
    ]
    rec["properties"]["og:url"] = "https://northwind.example/p"
    normalize_record(rec, CTX)
    fields = rec["provenance"]["fields"]
    assert rec["properties"]["og:image"] == {"url": "https://northwind.example/img/a.svg"}
    assert fields["og:image"][0]["value"] == {"url": "https://northwind.example/img/a.svg"}
    assert fields["og:image:width"][0]["value"] == "1200"
    assert [s["value"] for s in fields["og:url"]] == [
        "https://northwind.example/p",
        "https://northwind.example/q",
    ]


def test_url_or_text_properties_leave_text_alone():
    rec = normalize_record(
        record(["CreativeWork"], {"license": "CC BY 4.0", "mainEntityOfPage": "/articles/a.html"}),
        CTX,
    )
    assert rec["properties"] == {
        "license": "CC BY 4.0",
        "mainEntityOfPage": "https://northwind.example/articles/a.html",
    }


def test_base_url_wins_over_page_url():
    ctx = NormalizeContext(PAGE, base_url="https://northwind.example/deals/")
    rec = normalize_record(record(["Product"], {"url": "x.html"}), ctx)
    assert rec["properties"]["url"] == "https://northwind.example/deals/x.html"


def test_untyped_json_data_is_left_alone_but_keyed():
    rec = normalize_record(record([], {"price": "1.234", "url": "/x"}, fmt="data-block"), CTX)
    assert rec["properties"] == {"price": "1.234", "url": "/x"}
    assert rec["flags"] == [] and rec["key"].startswith("derived:Thing:")


def test_quantitative_values_stay_records_with_a_normalized_value():
    qv = record(["QuantitativeValue"], {"value": "1,58", "unitCode": "KGM"}, fmt="microdata")
    rec = normalize_record(record(["Product"], {"weight": qv}, fmt="microdata"), CTX)
    assert rec["properties"]["weight"]["properties"] == {"value": "1.58", "unitCode": "KGM"}


@pytest.mark.parametrize("kind", ["error", "skip"])
def test_error_and_skip_records_pass_through_untouched(kind):
    rec = {
        "source_url": PAGE,
        "format": "json-ld",
        "kind": kind,
        "type": [],
        "id": None,
        "properties": {"price": "1.234"},
        "raw": "{broken",
        "context": None,
        "source_element": "/html/head/script[2]",
        "error": {"code": "json-ld-invalid", "message": "Expecting value"},
        "repairs": [],
        "provenance": {"parser": "x", "parser_version": "0", "fields": {}},
    }
    before = copy.deepcopy(rec)
    assert normalize_record(rec, CTX) is rec
    assert rec.pop("flags") == []
    assert rec == before


def test_normalizing_twice_gives_the_same_record():
    once = site_records("products/gipfelstuermer-touring-set.html", timezone="Europe/Berlin")
    twice = copy.deepcopy(once)
    ctx = NormalizeContext(
        "https://northwind.example/products/gipfelstuermer-touring-set.html",
        language="en",
        timezone="Europe/Berlin",
    )
    for rec in twice:
        normalize_record(rec, ctx)
    for a, b in zip(once, twice, strict=True):
        a_fields, b_fields = a["provenance"]["fields"], b["provenance"]["fields"]
        assert a["properties"] == b["properties"] and a["key"] == b["key"]
        assert a_fields == b_fields


def test_gipfelstuermer_microdata_from_the_real_extractor():
    url = "https://northwind.example/products/gipfelstuermer-touring-set.html"
    body = (SITE / "products/gipfelstuermer-touring-set.html").read_bytes()
    result = extract_payload(body, url, "text/html")
    ctx = NormalizeContext(page_url=url, language="en", timezone="Europe/Berlin")
    records = [normalize_record(r.to_dict(), ctx) for r in result.records]
    product = next(r for r in records if r["format"] == "microdata")
    assert product["key"].startswith("derived:Product:")
    assert product["properties"]["gtin13"] == "4251234004203"
    offer = product["properties"]["offers"]
    props, fields = offer["properties"], offer["provenance"]["fields"]
    # shown as "1.299,00 €" with content="1299.00" on a span: practical Microdata reads the
    # content attribute (as publishers mean it) and keeps the visible text beside it
    assert (fields["price"][0]["raw"], props["price"]) == ("1299.00", "1299.00")
    assert (fields["price"][0]["attribute"], fields["price"][0]["text"]) == ("content", "1.299,00")
    assert fields["price"][0]["value"] == "1299.00"
    assert props["priceCurrency"] == "EUR" and "currencyRaw" not in props
    assert props["availability"] == "https://schema.org/InStock"
    assert props["priceValidUntil"] == "2026-04-30"
    rating = product["properties"]["aggregateRating"]
    assert rating["properties"]["ratingValue"] == "4.8"  # German "4,8" shown, content="4.8"
    source = rating["provenance"]["fields"]["ratingValue"][0]
    assert (source["raw"], source["text"]) == ("4.8", "4,8")
    og = next(r for r in records if r["format"] == "opengraph")
    assert og["properties"]["product:price"] == {"amount": "1299.00", "currency": "EUR"}
    assert og["properties"]["og:url"] == url
    for rec in records:
        assert rec["flags"] == [], rec["flags"]


def test_every_page_of_the_demo_site_normalizes():
    seen_flags = []
    for path in sorted(SITE.rglob("*.html")):
        for rec in site_records(str(path.relative_to(SITE)), timezone="America/Los_Angeles"):
            assert isinstance(rec["flags"], list)
            if rec["kind"] != "entity":
                continue
            for r in [rec, *nested(rec)]:
                assert r["key"].startswith(("id:", "derived:"))
                seen_flags.extend(f["code"] for f in r["flags"])
                for sightings in r["provenance"]["fields"].values():
                    assert all("value" in s for s in sightings)
    # the demo site is clean data: with a site zone nothing is ambiguous or invalid
    assert seen_flags == []


def test_site_dates_and_enums_end_up_canonical():
    records = site_records("events/avalanche-awareness-evening.html")
    event = next(r for r in records if r["format"] == "microdata")
    props = event["properties"]
    assert props["startDate"] == "2026-04-09T18:30:00-06:00"
    assert props["eventStatus"].startswith("https://schema.org/Event")
    assert props["eventAttendanceMode"] == "https://schema.org/OfflineEventAttendanceMode"
    recipe = next(
        r for r in site_records("recipes/no-bake-trail-energy-bars.html") if r["type"] == ["Recipe"]
    )
    assert recipe["properties"]["totalTime"] == "PT2H20M"
