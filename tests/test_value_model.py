"""The value model end to end: the helpers, normalization and validation reading it, the
settings that choose how layers read markup, warnings through the pipeline and the report."""

from __future__ import annotations

import pytest
from scrapy.utils.test import get_crawler

from structcrawl.core import values
from structcrawl.crawl.config import ExtractConfig
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pipelines.extraction import ExtractionPipeline
from structcrawl.normalize import NormalizeContext, normalize_record
from structcrawl.report import QualityAggregator
from structcrawl.validate import Validator

XSD = values.XSD


def test_reading_helpers() -> None:
    ref, typed = {"@id": "_:b1"}, {"@value": "10", "@type": XSD + "integer"}
    tagged = {"@value": "Hej", "@language": "sv"}
    assert values.ref_id(ref) == "_:b1" and values.ref_id("_:b1") is None
    assert values.literal(typed) == "10" and values.literal(ref) is None
    assert values.datatype(typed) == XSD + "integer" and values.datatype("10") is None
    assert values.language(tagged) == "sv" and values.language(typed) is None
    assert [values.text_of(v) for v in (ref, typed, tagged, True, None)] == [
        "_:b1",
        "10",
        "Hej",
        "true",
        None,
    ]
    assert values.values_of("a") == ["a"] and values.values_of(None) == []
    assert values.make_literal("x") == "x" and values.make_ref("i") == {"@id": "i"}


def record(**props):
    return {
        "kind": "entity",
        "format": "rdfa",
        "type": ["Offer"],
        "id": None,
        "source_url": "https://shop.example/p",
        "properties": props,
        "repairs": [],
        "provenance": {"fields": {k: [{"path": "/x", "raw": v}] for k, v in props.items()}},
    }


def test_normalization_reads_value_objects() -> None:
    rec = record(
        price={"@value": "119.01", "@type": XSD + "decimal"},
        priceCurrency={"@value": "EUR", "@language": "en"},
        validFrom={"@value": "2024-06-01", "@type": XSD + "date"},
        description={"@value": "Linen", "@language": "en"},
        availability={"@id": "http://schema.org/InStock"},
    )
    out = normalize_record(rec, NormalizeContext("https://shop.example/p"))
    props = out["properties"]
    assert props["price"] == "119.01" and props["priceCurrency"] == "EUR"
    assert props["validFrom"] == "2024-06-01"
    assert props["description"] == {"@value": "Linen", "@language": "en"}  # nothing to do
    assert props["availability"] == "https://schema.org/InStock"
    assert out["flags"] == []


def test_a_language_tag_guides_a_price() -> None:
    rec = record(price={"@value": "1.299,00 €", "@language": "de"})
    props = normalize_record(rec, NormalizeContext("https://shop.example/p"))["properties"]
    assert props["price"] == "1299.00" and props["priceCurrency"] == "EUR"


def test_validation_accepts_the_model_and_flags_repairs() -> None:
    rec = record(
        price={"@value": "28.00", "@type": XSD + "decimal"},
        availability={"@id": "https://schema.org/InStock"},
    )
    result = Validator.default().validate(rec)
    assert result.valid, result.errors
    assert "repaired-source" not in {w.code for w in result.warnings}
    rec["repairs"] = ["remove-trailing-commas"]
    (repaired,) = [
        w for w in Validator.default().validate(rec).warnings if w.code == "repaired-source"
    ]
    assert "remove-trailing-commas" in repaired.message


@pytest.mark.parametrize(
    "settings, mode, repairs",
    [
        ({}, "practical", "safe"),
        (
            {"STRUCTCRAWL_MICRODATA_MODE": "strict", "STRUCTCRAWL_JSONLD_REPAIRS": "all"},
            "strict",
            "all",
        ),
    ],
)
def test_settings_choose_how_layers_read(settings, mode, repairs) -> None:
    config = ExtractConfig.from_settings(get_crawler(settings_dict=settings).settings)
    assert (config.options.microdata_mode, config.options.jsonld_repairs) == (mode, repairs)


def test_unknown_mode_is_a_configuration_error() -> None:
    with pytest.raises(ValueError, match="microdata mode"):
        ExtractConfig.from_settings(
            get_crawler(settings_dict={"STRUCTCRAWL_MICRODATA_MODE": "lenient"}).settings
        )


def _page(body: bytes) -> PageItem:
    url = "https://shop.example/p"
    return PageItem(url=url, final_url=url, status=200, content_type="text/html", body=body)


def test_strict_setting_reaches_extraction() -> None:
    body = b'<div itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="1.5">1,50</span></div>'
    for mode, price in (("practical", "1.5"), ("strict", "1,50")):
        crawler = get_crawler(settings_dict={"STRUCTCRAWL_MICRODATA_MODE": mode})
        item = ExtractionPipeline.from_crawler(crawler).process_item(_page(body))
        (rec,) = item.records
        assert rec["properties"]["price"] == price


def test_warnings_alone_still_say_the_page_has_no_records_and_are_counted() -> None:
    crawler = get_crawler()
    item = ExtractionPipeline.from_crawler(crawler).process_item(_page(b'<p itemprop="name">x</p>'))
    assert [(r["kind"], r["error"]["code"]) for r in item.records] == [
        ("warning", "microdata-itemprop-outside-item"),
        ("skip", "no-records"),
    ]
    assert crawler.stats.get_value("structcrawl/extract/warning/microdata") == 1
    agg = QualityAggregator()
    agg.add_page({"records": item.records, "content_type": "text/html"})
    report = agg.report({})
    assert report["page_warnings"] == {
        "total": 1,
        "by_code": {"microdata-itemprop-outside-item": 1},
    }
    assert report["pages"]["by_outcome"] == {"no-records": 1}
