from __future__ import annotations

import pytest

from structcrawl.core.document import parse_html
from structcrawl.extract import jsonld
from structcrawl.extract._jsonparse import parse_json


def page(*blocks: str, head: str = "", url: str = "https://shop.example/a/b.html"):
    scripts = "".join(f'<script type="application/ld+json">{b}</script>' for b in blocks)
    html = f"<!doctype html><html><head>{head}{scripts}</head><body><p>x</p></body></html>"
    return parse_html(html.encode(), url)


def entities(records):
    return [r for r in records if r.kind == "entity"]


def test_graph_is_flattened_with_references_and_resolved_ids():
    doc = page(
        '{"@context": "https://schema.org", "@graph": ['
        '{"@type": "WebPage", "@id": "#page", "mainEntity": {"@id": "#article"}},'
        '{"@type": "Article", "@id": "#article", "author": {"@type": "Person", "name": "Ana"}}]}'
    )
    recs = jsonld.extract(doc)
    assert [r.type for r in recs] == [["WebPage"], ["Article"]]
    assert [r.id for r in recs] == [
        "https://shop.example/a/b.html#page",
        "https://shop.example/a/b.html#article",
    ]
    assert recs[0].properties["mainEntity"] == {"@id": "https://shop.example/a/b.html#article"}
    author = recs[1].properties["author"]
    assert author.type == ["Person"] and author.properties == {"name": "Ana"}
    assert recs[1].source_element == "/html/head/script#$['@graph'][1]"
    assert recs[1].context == "https://schema.org"
    assert author.source_element == "/html/head/script#$['@graph'][1].author"


def test_base_href_counts_for_ids_and_url_properties():
    doc = page(
        '{"@context": "http://schema.org/", "@type": "Product", "@id": "p1", "image": "img/1.png",'
        ' "name": "relative/not/a/url"}',
        head='<base href="https://cdn.example/shop/">',
    )
    (rec,) = jsonld.extract(doc)
    assert rec.id == "https://cdn.example/shop/p1"
    assert rec.properties["image"] == "https://cdn.example/shop/img/1.png"
    assert rec.properties["name"] == "relative/not/a/url"
    assert rec.provenance.fields["image"][0].raw == "img/1.png"


def test_array_and_full_iri_types_are_shortened():
    doc = page(
        '[{"@type": "http://schema.org/Person", "name": "A"}, {"@type": ["Thing", "https://schema.org/Place"]}]'
    )
    recs = jsonld.extract(doc)
    assert [r.type for r in recs] == [["Person"], ["Thing", "Place"]]
    assert recs[0].source_element.endswith("#$[0]")


def test_value_objects_and_lists():
    doc = page(
        '{"@type": "Book", "name": {"@value": "Titre", "@language": "fr"}, "author": ["A", "B"]}'
    )
    (rec,) = jsonld.extract(doc)
    # the value model keeps the language (a bare {"@value": v} is v)
    assert rec.properties["name"] == {"@value": "Titre", "@language": "fr"}
    assert rec.properties["author"] == ["A", "B"]
    assert [s.path for s in rec.provenance.fields["author"]] == [
        "/html/head/script#$.author[0]",
        "/html/head/script#$.author[1]",
    ]


def test_invalid_block_is_an_error_record_and_others_survive():
    doc = page('{"@type": "Thing", "name": "A"', '{"@type": "Organization", "name": "B"}')
    recs = jsonld.extract(doc)
    err, org = recs
    assert err.kind == "error" and err.error.code == "json-ld-invalid"
    assert err.raw == '{"@type": "Thing", "name": "A"'
    assert "Expecting" in err.error.message
    assert org.type == ["Organization"] and org.kind == "entity"


@pytest.mark.parametrize(
    "text, repairs, name",
    [
        ('<!-- {"@type": "Thing", "name": "a"} -->', ["strip-html-comment"], "a"),
        ('//<![CDATA[\n{"@type": "Thing", "name": "a"}\n//]]>', ["strip-cdata"], "a"),
        ('{"@type": "Thing", "name": "a", "k": [1, 2,],}', ["remove-trailing-commas"], "a"),
        ('{"@type": "Thing", "name": "a\nb\tc"}', ["escape-control-characters"], "a\nb\tc"),
        (
            "{&quot;@type&quot;: &quot;Thing&quot;, &quot;name&quot;: &quot;a&amp;b&quot;}",
            ["unescape-html-entities"],
            "a&b",
        ),
        (
            '{"@type": "Thing", // note\n "name": "a /* not a comment */"}',
            ["strip-js-comments"],
            "a /* not a comment */",
        ),
        ('{"@type": "Thing", "name": "a", "ratingValue": NaN}', ["non-finite-number-to-null"], "a"),
    ],
)
def test_labelled_repairs_keep_the_original(text, repairs, name):
    doc = page(text)
    (rec,) = jsonld.extract(doc, "all")
    assert rec.kind == "entity"
    assert rec.repairs == repairs
    assert rec.properties["name"] == name
    assert rec.raw == text  # the original block, untouched


def test_concatenated_objects_are_split_and_labelled():
    doc = page('{"@type": "Thing", "name": "a"}\n{"@type": "Thing", "name": "b"}')
    recs = jsonld.extract(doc, "all")
    assert [r.properties["name"] for r in recs] == ["a", "b"]
    assert all(r.repairs == ["split-concatenated-values"] for r in recs)


@pytest.mark.parametrize(
    "text, safe_ok",
    [
        ('{"@type": "Thing", "name": "a",}', True),  # trailing comma
        ('\ufeff{"@type": "Thing", "name": "a"}', True),  # a byte order mark
        ('{"@type": "Thing", "name": "a\tb"}', True),  # a raw control character
        ('{"@type": "Thing", "name": "a"}{"@type": "Thing", "name": "b"}', False),
        ("{&quot;@type&quot;: &quot;Thing&quot;, &quot;name&quot;: &quot;a&quot;}", False),
    ],
)
def test_repair_levels(text: str, safe_ok: bool) -> None:
    """none repairs nothing, safe only what cannot change meaning, all everything."""
    (none,) = jsonld.extract(page(text), "none")
    assert none.kind == "error" and none.error.code == "json-ld-invalid" and none.raw == text
    safe = jsonld.extract(page(text), "safe")
    assert (safe[0].kind == "entity") is safe_ok
    if not safe_ok:
        assert safe[0].error.code == "json-ld-invalid" and safe[0].raw == text
    assert all(r.kind == "entity" and r.repairs for r in jsonld.extract(page(text), "all"))


def test_unrepairable_block_keeps_text_and_message():
    text = "{'@type': 'Thing'}"
    (rec,) = jsonld.extract(page(text))
    assert rec.kind == "error" and rec.raw == text
    assert rec.error.message.startswith("Expecting property name enclosed in double quotes")


def test_empty_block_is_a_skip_record_and_scalar_top_level_is_an_error():
    recs = jsonld.extract(page("   ", '"just a string"'))
    assert [(r.kind, r.error.code) for r in recs] == [
        ("skip", "json-ld-empty"),
        ("error", "json-ld-not-a-node"),
    ]


def test_script_type_with_parameters_and_body_blocks():
    html = (
        '<html><body><script type="Application/LD+JSON; charset=utf-8">{"@type": "Thing"}</script>'
        '<script type="text/template">{"@type": "Nope"}</script></body></html>'
    )
    recs = jsonld.extract(parse_html(html.encode(), "https://x.example/"))
    assert [r.type for r in recs] == [["Thing"]]


def test_deep_nesting_is_an_error_not_a_crash():
    text = "[" * 5000 + "]" * 5000
    result = parse_json(text)
    assert not result.ok and "deep" in result.error


def test_strict_mode_reports_instead_of_repairing():
    assert parse_json('{"a": 1,}', repair=False).error is not None
    assert parse_json('{"a": NaN}', repair=False).error is not None


def test_unusable_urls_never_crash_a_layer():
    doc = page(
        '{"@type": "Thing", "@id": "http://[bad", "url": "http://[x/y"}',
        head='<base href="http://[bad">',
    )
    assert doc.base_url == "https://shop.example/a/b.html"
    (rec,) = jsonld.extract(doc)
    assert rec.id == "http://[bad" and rec.properties["url"] == "http://[x/y"


def test_comment_lines_before_the_json_are_a_labelled_repair():
    text = '\n<!-- John joined the festival. -->\n{"@type": "JoinAction", "agent": "John"}\n<!-- end -->'
    (rec,) = jsonld.extract(page(text))
    assert rec.kind == "entity" and rec.type == ["JoinAction"]
    assert rec.repairs == ["strip-html-comment"]


def test_null_block_is_a_skip():
    (rec,) = jsonld.extract(page("null"))
    assert (rec.kind, rec.error.code) == ("skip", "json-ld-null")
