from __future__ import annotations

import json

from structcrawl.core.document import parse_html
from structcrawl.extract import extract_payload, jsondata


def test_next_data_block_with_typed_nodes():
    state = {"props": {"pageProps": {"product": {"@type": "Product", "name": "P", "url": "/p"}}}}
    html = (
        '<html><body><script id="__NEXT_DATA__" type="application/json">'
        f"{json.dumps(state)}</script></body></html>"
    )
    block, product = jsondata.extract(parse_html(html.encode(), "https://s.example/x"))
    assert block.format == "data-block" and block.type == ["__NEXT_DATA__"]
    assert block.properties["props"] == state["props"]
    assert block.provenance.fields["props"][0].path == "/html/body/script#$.props"
    assert product.type == ["Product"] and product.properties["url"] == "https://s.example/p"
    assert product.source_element == "/html/body/script#$.props.pageProps.product"


def test_javascript_assignments_are_not_data_blocks():
    html = '<html><body><script>window.__INITIAL_STATE__ = {"a": 1};</script></body></html>'
    assert jsondata.extract(parse_html(html.encode(), "https://s.example/")) == []


def test_invalid_data_block_is_an_error_with_raw_text():
    html = '<html><body><script type="application/json" id="s">{"a": 1,}</script></body></html>'
    (err,) = jsondata.extract(parse_html(html.encode(), "https://s.example/"))
    assert err.kind == "error" and err.error.code == "json-invalid" and err.raw == '{"a": 1,}'


def test_json_response_with_json_path_provenance():
    body = json.dumps(
        {"products": [{"@type": "Product", "name": "A"}, {"@type": "Product", "name": "B"}]}
    )
    result = extract_payload(body.encode(), "https://s.example/api", "application/json")
    assert result.payload_kind == "json"
    doc_rec, a, b = result.records
    assert doc_rec.format == "json" and doc_rec.source_element == "$"
    assert [r.source_element for r in (a, b)] == ["$.products[0]", "$.products[1]"]
    assert [r.properties["name"] for r in (a, b)] == ["A", "B"]


def test_json_ld_response_is_read_as_json_ld():
    body = b'{"@context": "https://schema.org", "@type": "Event", "@id": "e1", "name": "E"}'
    (rec,) = extract_payload(body, "https://s.example/events/", "application/ld+json").records
    assert rec.format == "json-ld" and rec.id == "https://s.example/events/e1"


def test_untyped_next_data_is_read_by_its_id():
    state = {"props": {"pageProps": {"product": {"@type": "Product", "name": "Tent"}}}}
    html = f'<html><body><script id="__NEXT_DATA__">{json.dumps(state)}</script></body></html>'
    block, product = jsondata.extract(parse_html(html.encode(), "https://s.example/p"))
    assert block.type == ["__NEXT_DATA__"] and block.properties["props"] == state["props"]
    assert product.type == ["Product"] and product.properties["name"] == "Tent"


def test_a_framework_id_on_javascript_is_not_read():
    html = (
        '<html><body><script id="__NEXT_DATA__">self.__next_f.push([1, "x"])</script>'
        '<script id="__NEXT_DATA__" src="/data.js"></script></body></html>'
    )
    assert jsondata.extract(parse_html(html.encode(), "https://s.example/")) == []


def test_magento_init_blocks_are_strict_json():
    init = {
        "*": {"Magento_Catalog/js/product": {"product": {"@type": "Product", "sku": "24-MB01"}}}
    }
    html = (
        f'<html><body><script type="text/x-magento-init">{json.dumps(init)}</script>'
        '<script type="text/x-magento-init">{"a": </script></body></html>'
    )
    block, product, broken = jsondata.extract(parse_html(html.encode(), "https://s.example/"))
    assert block.format == "data-block" and "*" in block.properties
    assert product.type == ["Product"] and product.properties["sku"] == "24-MB01"
    assert broken.kind == "error" and broken.error.code == "json-invalid"


def test_application_json_islands_each_give_records():
    html = (
        '<html><body><div><script type="application/json" data-product-json>'
        '{"@type": "Product", "name": "Mug"}</script></div>'
        '<div><script type="application/json" id="reviews">{"count": 4}</script></div>'
        "</body></html>"
    )
    product, reviews = jsondata.extract(parse_html(html.encode(), "https://s.example/"))
    assert product.type == ["Product"] and product.properties["name"] == "Mug"
    assert reviews.type == ["reviews"] and reviews.properties["count"] == 4
