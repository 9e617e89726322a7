"""The typed items' classes (structcrawl/typed/classes.py): the published schemas are generated
from them, every item the fixtures give fits its class, and the crawl carries instances,
checked against their schema, with invalid items counted and kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from itemadapter import ItemAdapter
from scrapy.utils.test import get_crawler

from structcrawl.crawl.exporters import page_typed_items
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pipelines.typeditems import TypedItemsPipeline
from structcrawl.typed import page_items
from structcrawl.typed.classes import ITEM_CLASSES, UnknownField, item_dict, to_item
from structcrawl.typed.schema import as_checked_items, check_item, item_schemas
from structcrawl.typed.schemagen import item_schema_files, main, render

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "fixtures").glob("items*/*/page.html"))


def test_the_shipped_schemas_are_the_ones_the_classes_generate(capsys):
    assert main(["--check"]) == 0, capsys.readouterr().out
    folder = ROOT / "structcrawl" / "typed" / "schemas"
    assert {p.name for p in folder.glob("*.json")} == set(item_schema_files())
    for name, schema in item_schema_files().items():
        assert (folder / name).read_text("utf-8") == render(schema)
    assert set(item_schemas()) - {"_common"} == set(ITEM_CLASSES)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_every_fixture_item_is_an_instance_of_its_class_and_valid(page: Path):
    items = page_items(page.read_bytes(), "https://shop.example/p", "text/html")
    for data in items:
        instance = to_item(data)
        assert type(instance).__name__ == data["type"]
        assert item_dict(instance) == data  # the feeds' shape, nothing lost
        assert check_item(data) == (True, [])
        assert ItemAdapter(instance).get("entityKey") == data.get("entityKey")


def test_a_field_the_class_does_not_define_is_named_not_dropped():
    with pytest.raises(UnknownField, match="'colour'"):
        to_item({"kind": "item", "type": "Product", "colour": "red"})
    (kept,), invalid = as_checked_items([{"kind": "item", "type": "Product", "colour": "red"}])
    assert invalid == ["Product"] and isinstance(kept, dict)
    assert kept["colour"] == "red" and "colour" in kept["validation"]["schema"][0]


def test_parts_are_classes_and_absent_fields_stay_absent():
    item = to_item({"kind": "item", "type": "Article", "authors": [{"name": "Ada"}],
                    "mainImage": {"url": "https://s.example/a.jpg"}})  # fmt: skip
    assert type(item.authors[0]).__name__ == "Named" and item.mainImage.url.endswith("a.jpg")
    assert item_dict(item) == {"kind": "item", "type": "Article", "authors": [{"name": "Ada"}],
                               "mainImage": {"url": "https://s.example/a.jpg"}}  # fmt: skip


def _pipeline() -> tuple[TypedItemsPipeline, object]:
    crawler = get_crawler(
        settings_dict={"STRUCTCRAWL_TYPED_ITEMS": True, "STRUCTCRAWL_CHANGES_ENABLED": False}
    )
    crawler.stats.open_spider()
    return TypedItemsPipeline.from_crawler(crawler), crawler.stats


JSONLD = (
    b'<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product",'
    b' "name": "Mug", "offers": {"@type": "Offer", "price": "12.00", "priceCurrency": "EUR"}}'
    b"</script><h1>Mug</h1>"
)


def _page() -> PageItem:
    from structcrawl.core.document import parse_html
    from structcrawl.extract import extract_payload

    url = "https://shop.example/p"
    doc = parse_html(JSONLD, url)
    records = [r.to_dict() for r in extract_payload(JSONLD, url, "text/html", document=doc).records]
    return PageItem(url=url, final_url=url, records=records, document=doc, body=JSONLD)


def test_the_crawl_carries_checked_instances(monkeypatch):
    pipeline, stats = _pipeline()
    (item,) = pipeline.process_item(_page()).typed_items
    assert type(item).__name__ == "Product" and ItemAdapter(item)["price"] == "12.00"
    assert ItemAdapter(item)["entityKey"] and not stats.get_value("structcrawl/items/invalid")


def test_an_invalid_item_is_counted_and_kept_with_its_failures(monkeypatch):
    """The projection writes valid items by construction; the check is what tells when it
    does not (a builder bug stands in for one here)."""
    import structcrawl.crawl.pipelines.typeditems as module

    real = module.page_resolution

    def broken(*args, **kwargs):
        resolution = real(*args, **kwargs)
        resolution.items[0]["price"] = "12,00"
        return resolution

    monkeypatch.setattr(module, "page_resolution", broken)
    pipeline, stats = _pipeline()
    page = pipeline.process_item(_page())
    assert stats.get_value("structcrawl/items/invalid") == 1
    assert stats.get_value("structcrawl/items/invalid/Product") == 1
    (line,) = page_typed_items(page)
    assert line["price"] == "12,00"  # kept as built, never dropped
    assert line["validation"]["schema"][0].startswith("$.price: '12,00' does not match")


#: values put in place of each field of a fixture item: of every JSON type, and strings that
#: some fields' patterns and enumerations refuse
_ODD_VALUES = (None, 1.5, "1,99", ["x"], {"name": 1})


def test_jsonschema_rs_finds_valid_exactly_the_items_jsonschema_finds_valid():
    """check_item asks jsonschema-rs first and lists failures with jsonschema only where it
    says invalid: the two engines must agree on every item, valid or not (each fixture item,
    and each with one field given a value of another type or shape, or an unknown field)."""
    from structcrawl.typed.schema import _is_valid, _validator

    checked = refused = 0
    for page in PAGES:
        for data in page_items(page.read_bytes(), "https://shop.example/p", "text/html"):
            kind = data["type"]
            fast, reference = _is_valid(kind), _validator(kind)
            assert fast is not None and reference is not None, kind
            variants = [data, {**data, "colour": "red"}]
            variants += [{**data, field: odd} for field in data for odd in _ODD_VALUES]
            for variant in variants:
                valid = not any(True for _ in reference.iter_errors(variant))
                assert fast(variant) == valid, (page.parent.name, kind, variant)
                checked += 1
                refused += not valid
    assert checked > 1000 and 0 < refused < checked


def test_a_value_jsonschema_rs_cannot_read_is_checked_by_jsonschema():
    class Smart(str):  # as lxml's XPath strings are: no JSON type to jsonschema-rs
        pass

    assert check_item({"kind": "item", "type": "Product", "name": Smart("Kettle")}) == (True, [])
    ok, errors = check_item({"kind": "item", "type": "Product", "price": Smart("1,99")})
    assert not ok and errors[0].startswith("$.price: '1,99' does not match")


def test_item_dict_is_what_attrs_asdict_gives_without_the_none_fields():
    """The feeds' dict of an item is attrs.asdict's (None fields dropped at every depth), made
    faster: the same on values an item may carry in its open fields (collections rebuilt in
    their own classes, None inside a list kept)."""
    from decimal import Decimal

    import attrs

    item = to_item({"kind": "item", "type": "Product", "brand": {"name": "Acme"},
                    "images": [{"url": "https://s.example/a.jpg"}], "price": "1.00"})  # fmt: skip
    item.additionalProperties = [{"name": "a", "value": (1, None)}, {"name": "b", "value": {2}}]
    item.provenance = {"price": {"raw": Decimal("1.0"), "path": ["offers", 0]}, (1, 2): {3}}
    made = item_dict(item)
    assert made == attrs.asdict(item, recurse=True, filter=lambda _a, v: v is not None)
    assert made["provenance"]["price"] is not item.provenance["price"]
    assert made["provenance"][(1, 2)] == {3}
    assert "sku" not in made and made["additionalProperties"][0]["value"] == (1, None)
