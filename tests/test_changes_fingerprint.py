"""Entity fingerprints: stable over volatile data, sensitive to values, per-field hashes."""

from __future__ import annotations

import pytest

from structcrawl.changes import EntityFingerprint, canonical, field_values, fingerprint, value_hash

ENTITY = {
    "key": "id:https://shop.example/p/1#product",
    "id": "https://shop.example/p/1#product",
    "type": ["Product", "IndividualProduct"],
    "properties": {
        "name": "Trail Runner X",
        "offers": [
            {"@type": ["Offer"], "price": "129.99", "priceCurrency": "EUR"},
            {"@type": ["Offer"], "price": "119.99", "priceCurrency": "EUR", "sku": "B"},
        ],
        "brand": {"@id": "https://shop.example/#brand"},
        "aggregateRating": {"@type": ["AggregateRating"], "ratingValue": 4.5, "reviewCount": 12},
    },
    "sources": [{"url": "https://shop.example/p/1", "retrieved_at": "2026-01-01T00:00:00Z"}],
    "provenance": {"name": [{"url": "https://shop.example/p/1", "raw": "Trail Runner X"}]},
    "formats": ["json-ld", "microdata"],
    "first_seen": "2026-01-01T00:00:00Z",
    "last_seen": "2026-01-01T00:00:00Z",
    "validation": {"valid": True},
}


def variant(**changes):
    return {**ENTITY, **changes}


def props(**changes):
    return variant(properties={**ENTITY["properties"], **changes})


def test_fields_are_dotted_and_lists_of_objects_spread():
    fields = field_values(ENTITY["properties"])
    assert fields["offers.price"] == ["129.99", "119.99"]
    assert fields["offers.sku"] == [None, "B"]
    assert fields["brand.@id"] == "https://shop.example/#brand"
    assert fields["aggregateRating.ratingValue"] == 4.5
    fp = fingerprint(ENTITY)
    assert {"@type", "@id", "name", "offers.price", "offers.@type", "brand.@id"} <= set(fp.fields)


def test_volatile_data_never_changes_the_fingerprint():
    base = fingerprint(ENTITY)
    other = fingerprint(
        variant(
            sources=list(reversed(ENTITY["sources"])) + [{"url": "https://m.shop.example/p/1"}],
            provenance={},
            formats=["microdata"],
            first_seen="2027-05-05T00:00:00Z",
            last_seen="2027-05-06T00:00:00Z",
            validation={"valid": False},
            conflicts=[{"field": "name"}],
            type=["IndividualProduct", "Product"],  # types are a set
        )
    )
    assert other.digest == base.digest and other.fields == base.fields
    assert other.seen == "2027-05-06T00:00:00Z"  # when, not what


def test_key_order_whitespace_and_number_spelling_do_not_count():
    reordered = dict(reversed(list(ENTITY["properties"].items())))
    assert fingerprint(variant(properties=reordered)).digest == fingerprint(ENTITY).digest
    assert fingerprint(props(name="  Trail\nRunner  X ")).digest == fingerprint(ENTITY).digest
    rating = {"@type": ["AggregateRating"], "ratingValue": 4.50, "reviewCount": 12.0}
    assert fingerprint(props(aggregateRating=rating)).digest == fingerprint(ENTITY).digest
    # values compare as the merge compares them: whichever source came first, same fingerprint
    assert value_hash("4.50") == value_hash(4.5) and value_hash("Trail") == value_hash("TRAIL")
    assert value_hash("4.5") != value_hash("4.6") and value_hash(True) != value_hash("true")
    assert canonical([3, 1]) != canonical([1, 3])  # list order counts


def test_a_changed_value_changes_only_its_field():
    base = fingerprint(ENTITY)
    offers = [dict(o) for o in ENTITY["properties"]["offers"]]
    offers[1]["price"] = "99.00"
    changed = fingerprint(props(offers=offers))
    assert changed.digest != base.digest
    assert {f for f in base.fields if base.fields[f] != changed.fields[f]} == {"offers.price"}
    assert fingerprint(props(name="Trail Runner Y")).fields["name"] != base.fields["name"]
    assert fingerprint(variant(id="https://shop.example/p/2")).fields["@id"] != base.fields["@id"]


def test_ignored_fields_are_left_out():
    ignore = ["aggregateRating.*", "*.sku"]
    fp = fingerprint(ENTITY, ignore=ignore)
    assert not any(f.startswith("aggregateRating.") or f.endswith(".sku") for f in fp.fields)
    rating = {"@type": ["AggregateRating"], "ratingValue": 4.7, "reviewCount": 13}
    assert fingerprint(props(aggregateRating=rating), ignore=ignore).digest == fp.digest


def test_fingerprint_keeps_what_a_gone_entity_needs_and_round_trips():
    fp = fingerprint(ENTITY, pages=["https://shop.example/p/1", "https://shop.example/p/1", ""])
    assert fp.pages == ("https://shop.example/p/1",)
    assert fp.entity["properties"]["name"] == "Trail Runner X"
    assert fp.entity["type"] == ["Product", "IndividualProduct"]
    assert EntityFingerprint.from_dict(fp.to_dict()) == fp


def test_malformed_input_gives_values_not_exceptions():
    assert fingerprint({}).key == "" and fingerprint({"properties": "oops"}).fields == {
        "@type": value_hash([])
    }
    assert EntityFingerprint.from_dict({"key": "k", "digest": "d", "pages": "x"}) is None
    assert EntityFingerprint.from_dict({"key": "k", "digest": "d", "fields": [1]}) is None
    assert EntityFingerprint.from_dict(None) is None
    deep: dict = {}
    node = deep
    for _ in range(20):  # nesting is bounded: deep values are hashed whole
        node["x"] = {}
        node = node["x"]
    node["v"] = 1
    assert fingerprint({"key": "k", "properties": deep}).digest


def test_disputed_fields_hash_every_value_the_sources_gave():
    def disputed(chosen, order):
        return variant(
            properties={**ENTITY["properties"], "name": chosen},
            conflicts=[
                {"field": "name", "chosen": chosen, "values": [{"value": v} for v in order]}
            ],
        )

    # which value wins between equally ranked layers depends on crawl order: not a change
    a = fingerprint(disputed("Trail Runner X", ["Trail Runner X", "Trail Runner X2"]))
    b = fingerprint(disputed("Trail Runner X2", ["Trail Runner X2", "Trail Runner X"]))
    assert a.digest == b.digest
    c = fingerprint(disputed("Trail Runner X", ["Trail Runner X", "Trail Runner X3"]))
    assert {f for f in a.fields if a.fields[f] != c.fields.get(f)} == {"name"}
    offers = variant(conflicts=[{"field": "offers", "values": [{"value": []}]}])
    assert not any(f.startswith("offers.") for f in fingerprint(offers).fields)


@pytest.mark.parametrize(
    "value",
    [
        {"b": ["é", None, "\u2028", "\x7f"], "a": True, "": {"z": '\n\t\x00"\\'}},
        [["name", "4a5b"], ["offers.price", "c3"]],
        ["\ud800 lone surrogate", "😀", "\ufeff"],
    ],
)
def test_hashed_text_is_what_earlier_runs_hashed(value):
    """Fingerprints of earlier runs were hashed over the standard library's compact JSON:
    the text hashed now is the same, byte for byte."""
    import json

    from structcrawl.core.jsontext import sorted_compact

    expected = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert sorted_compact(value) == expected
