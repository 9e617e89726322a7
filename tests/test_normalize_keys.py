"""entity_key: one stable key per entity, equal across layers."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from structcrawl.extract import extract_payload
from structcrawl.normalize import NormalizeContext, entity_key, normalize_record

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
PAGE = "https://northwind.example/products/page.html"


def entity(types, props, *, id=None, source_url=PAGE, fmt="json-ld"):
    return {
        "source_url": source_url,
        "format": fmt,
        "kind": "entity",
        "type": types,
        "id": id,
        "properties": props,
        "source_element": "/html",
        "provenance": {"parser": "test", "parser_version": "0", "fields": {}},
        "error": None,
        "repairs": [],
    }


def site_records(path: str) -> list[dict]:
    url = f"https://northwind.example/{path}"
    body = (SITE / path).read_bytes()
    result = extract_payload(body, url, "text/html")
    ctx = NormalizeContext(page_url=url, language="en")
    return [normalize_record(r.to_dict(), ctx) for r in result.records]


def test_id_keys_are_canonical_and_keep_the_fragment():
    a = entity(["Product"], {}, id="HTTPS://Northwind.Example:443/products/x#product")
    b = entity(["Product"], {}, id="https://northwind.example/products/x#product")
    c = entity(["Organization"], {}, id="https://northwind.example/products/x#org")
    assert entity_key(a) == entity_key(b) == "id:https://northwind.example/products/x#product"
    assert entity_key(c) != entity_key(b)
    # a blank node is not an identifier
    assert entity_key(entity(["Product"], {"sku": "A"}, id="_:b0")).startswith("derived:Product:")


def test_trail_runner_x_has_one_key_in_json_ld_microdata_and_rdfa():
    records = site_records("products/trail-runner-x.html")
    products = [r for r in records if r["type"] == ["Product"]]
    assert sorted(r["format"] for r in products) == ["json-ld", "microdata", "rdfa"]
    keys = {r["key"] for r in products}
    assert keys == {"id:https://northwind.example/products/trail-runner-x#product"}
    assert all(entity_key(r) == r["key"] for r in products)
    # without the shared @id the derived keys still agree (same GTIN in every layer)
    derived = set()
    for r in products:
        anonymous = copy.deepcopy(r)
        anonymous["id"] = None
        derived.add(entity_key(anonymous))
    assert len(derived) == 1 and derived.pop().startswith("derived:Product:")


def test_the_same_product_on_two_pages_shares_its_key():
    summary = [r for r in site_records("products/page-2.html") if "Product" in r["type"]]
    detail = [r for r in site_records("products/summit-down-jacket.html") if "Product" in r["type"]]
    assert summary and detail
    assert summary[0]["key"] == detail[0]["key"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # GTINs compare as GTIN-14, whatever property carries them
        ({"gtin13": "0614141100019"}, {"gtin12": "614141100019", "name": "Other name"}),
        ({"gtin": "0614141100019"}, {"gtin14": "00614141100019"}),
        # ISBN-10 and ISBN-13 of one book
        ({"isbn": "0-306-40615-2"}, {"isbn": "978-0-306-40615-7"}),
        # SKU, case and spacing aside, within one site
        ({"sku": "NW-TRX-001"}, {"sku": " nw-trx-001 "}),
        # url, canonical
        (
            {"url": "https://northwind.example/p?b=1&a=2"},
            {"url": "HTTPS://northwind.example/p?a=2&b=1"},
        ),
        # name, same page
        ({"name": "Trail  Runner X"}, {"name": "trail runner x"}),
    ],
)
def test_equal_identifying_values_give_equal_keys(a, b):
    assert entity_key(entity(["Product"], a)) == entity_key(entity(["Product"], b))


def test_invalid_gtins_are_not_identifiers():
    a = entity(["Product"], {"gtin13": "0614141100018", "name": "A"})
    b = entity(["Product"], {"gtin13": "0614141100018", "name": "B"})
    assert entity_key(a) != entity_key(b)


def test_scopes():
    other_page = "https://northwind.example/other.html"
    other_site = "https://elsewhere.example/p.html"
    gtin = {"gtin13": "0614141100019"}
    sku = {"sku": "NW-1"}
    name = {"name": "Trail Runner X"}
    # GTINs are global
    assert entity_key(entity(["Product"], gtin)) == entity_key(
        entity(["Product"], gtin, source_url=other_site)
    )
    # SKUs are per site
    assert entity_key(entity(["Product"], sku)) == entity_key(
        entity(["Product"], sku, source_url=other_page)
    )
    assert entity_key(entity(["Product"], sku)) != entity_key(
        entity(["Product"], sku, source_url=other_site)
    )
    # names are per page
    assert entity_key(entity(["Product"], name)) != entity_key(
        entity(["Product"], name, source_url=other_page)
    )


def test_types_keep_entities_apart_and_product_subtypes_together():
    props = {"url": "https://northwind.example/p.html"}
    assert entity_key(entity(["Product"], props)) != entity_key(entity(["WebPage"], props))
    assert entity_key(entity(["Product"], props)) == entity_key(
        entity(["Product", "IndividualProduct"], props)
    )


def test_events_by_name_start_and_location():
    place = entity(["Place"], {"name": "Northwind Seattle"})
    a = entity(
        ["Event"], {"name": "Clinic", "startDate": "2026-04-18T09:00:00-07:00", "location": place}
    )
    b = entity(
        ["SportsEvent"],
        {
            "name": "clinic",
            "startDate": "2026-04-18T09:00:00-07:00",
            "location": {"@id": "https://n.example/s#p"},
        },
    )
    c = entity(
        ["Event"],
        {"name": "Clinic", "startDate": "2026-04-19T09:00:00-07:00", "location": place},
        source_url="https://northwind.example/events/",
    )
    d = entity(
        ["Event"],
        {"name": "Clinic", "startDate": "2026-04-18T09:00:00-07:00", "location": place},
        source_url="https://northwind.example/events/",
    )
    assert entity_key(a) == entity_key(d)  # same site, another page
    assert entity_key(a) != entity_key(c)  # another day
    assert entity_key(a) != entity_key(b)  # another place


def test_people_sharing_a_team_page_url_are_different_people():
    url = "https://northwind.example/about.html#team"
    a = entity(["Person"], {"name": "Ingrid Solberg", "url": url})
    b = entity(["Person"], {"name": "Jonas Weber", "url": url})
    assert entity_key(a) != entity_key(b)


def test_offers_are_keyed_by_content_not_by_the_product_url():
    url = "https://northwind.example/products/alpine-tent-2p.html"
    a = entity(["Offer"], {"url": url, "price": "349.00", "priceCurrency": "USD"})
    b = entity(["Offer"], {"url": url, "price": "419.00", "priceCurrency": "USD"})
    same = entity(["Offer"], {"url": url, "price": "349.00", "priceCurrency": "USD"})
    assert entity_key(a) != entity_key(b)
    assert entity_key(a) == entity_key(same)


def test_keys_are_stable_and_deterministic():
    rec = entity(["Recipe"], {"name": "Chili", "recipeIngredient": ["beans", "corn"]})
    assert entity_key(rec) == entity_key(copy.deepcopy(rec))
    assert entity_key(rec) == "derived:Recipe:" + entity_key(rec).rsplit(":", 1)[1]
    assert len(entity_key(rec).rsplit(":", 1)[1]) == 40


def test_error_and_skip_records_get_their_own_keys():
    err = entity([], {})
    err.update(kind="error", error={"code": "json-ld-invalid", "message": "x"})
    skip = dict(err, kind="skip")
    assert entity_key(err).startswith("error:") and entity_key(skip).startswith("skip:")
    assert entity_key(err) == entity_key(copy.deepcopy(err))
