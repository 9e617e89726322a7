"""Problems named (code, path, element, fix), rich-result eligibility, the page checks that
need more than one record, and the site summary of ``check --sitemap``."""

from __future__ import annotations

import json

from structcrawl.commandline.sitecheck import render_html, render_text, summarize
from structcrawl.core.document import parse_html
from structcrawl.extract import extract_payload
from structcrawl.validate.availability import check_availability, visible_availability
from structcrawl.validate.eligibility import eligibility, features
from structcrawl.validate.page import check_page
from structcrawl.validate.problems import annotate, fixes, page_problems

URL = "https://shop.example/p/k1"


def checked(html: str, at: str = "2026-06-01T00:00:00Z") -> dict:
    doc = parse_html(html.encode(), URL)
    records = [r.to_dict() for r in extract_payload(html.encode(), URL, document=doc).records]
    check_page(records, document=doc, retrieved_at=at)
    page = {"url": URL, "records": records}
    annotate(page)
    return page


def ld(obj: dict) -> str:
    return f'<script type="application/ld+json">{json.dumps(obj)}</script>'


PRODUCT = {
    "@context": "https://schema.org",
    "@type": "Product",
    "name": "K1",
    "image": "https://shop.example/k1.jpg",
    "offers": {"@type": "Offer", "price": "29.00", "priceCurrency": "EUR"},
}


def test_a_problem_has_its_code_path_element_and_fix():
    page = checked(ld({**PRODUCT, "offers": {**PRODUCT["offers"], "price": "-1"}}))
    (problem,) = [p for p in page["problems"] if p["code"] == "negative-price"]
    assert problem["severity"] == "error" and problem["path"] == "offers.price"
    assert problem["element"].startswith("/html/head/script") and "#" in problem["element"]
    assert problem["fix"].startswith("Give price a price of zero or more")
    assert problem["item"] == 'Product "K1"'


def test_every_code_the_checks_emit_has_a_fix():
    emitted = {
        "json-ld-no-context", "json-ld-unknown-context", "rdfa-undefined-prefix",
        "rdfa-unresolved-term", "rdfa-unresolved-subject", "microdata-itemprop-outside-item",
        "microdata-itemref-missing", "microdata-nested-scope-without-itemprop",
        "rating-out-of-range", "negative-price", "date-in-past", "value-not-in-range",
        "availability-vs-visible", "syntax-disagreement", "missing-required",
        "price-shown-as-old",
    }  # fmt: skip
    assert emitted <= set(fixes())


def test_page_warning_records_are_problems_and_skips_are_not():
    records = [
        {"kind": "skip", "format": "page", "error": {"code": "no-records", "message": "x"}},
        {"kind": "warning", "format": "rdfa", "source_element": "/html/body/div",
         "error": {"code": "rdfa-unresolved-term", "message": "y"}},
    ]  # fmt: skip
    assert [(p["code"], p["item"]) for p in page_problems(records)] == [
        ("rdfa-unresolved-term", None)
    ]


def test_eligibility_verdicts_follow_the_rules_file():
    assert all(f.source.startswith("https://developers.google.com/") for f in features())
    page = checked(ld({**PRODUCT, "offers": {**PRODUCT["offers"], "priceCurrency": None}}))
    product = page["records"][0]
    verdicts = {v["feature"]: v for v in product["eligibility"]}
    assert verdicts["product-snippet"]["status"] == "eligible with warnings"
    merchant = verdicts["merchant-listing"]
    assert merchant["verdict"] == "not eligible: offers.priceCurrency|offers.priceSpecification"
    event = {"kind": "entity", "type": ["MusicEvent"], "properties": {"name": "Gig"}}
    (verdict,) = eligibility(event)
    assert verdict["missing"] == ["startDate", "location"]
    not_schema = {"kind": "entity", "type": ["Product"], "properties": {},
                  "validation": {"skipped": "no @context: not schema.org data"}}  # fmt: skip
    assert eligibility(not_schema) == []


def test_date_in_past_needs_the_retrieval_time():
    html = ld({**PRODUCT, "offers": {**PRODUCT["offers"], "priceValidUntil": "2026-03-01"}})
    codes = {p["code"] for p in checked(html)["problems"]}
    assert "date-in-past" in codes
    assert "date-in-past" not in {p["code"] for p in checked(html, at="2026-01-01")["problems"]}
    assert "date-in-past" not in {p["code"] for p in checked(html, at="")["problems"]}


def test_availability_both_ways_and_not_on_listings():
    sold = visible_availability(parse_html(b"<p>Out of stock</p>", URL))
    buy = visible_availability(parse_html(b"<button>Add to cart</button>", URL))
    hidden = visible_availability(
        parse_html(b"<p hidden>Sold out</p><button>Add to cart</button>", URL)
    )
    assert (sold.sold_out, buy.buy_control, hidden.sold_out) == (
        "Out of stock",
        "Add to cart",
        None,
    )

    def offer(availability: str) -> dict:
        return {"kind": "entity", "type": ["Offer"], "properties": {"availability": availability}}

    assert check_availability(offer("https://schema.org/OutOfStock"), buy)[0]["record_value"] == (
        "OutOfStock"
    )
    assert check_availability(offer("https://schema.org/InStock"), buy) == []
    two = ld({**PRODUCT, "offers": {**PRODUCT["offers"], "availability": "InStock"}}) + ld(
        {**PRODUCT, "name": "K2", "offers": {**PRODUCT["offers"], "availability": "InStock"}}
    )
    listing = checked(two + "<p>Sold out</p>")
    assert not any(p["code"] == "availability-vs-visible" for p in listing["problems"])


def _sale(offers: dict) -> str:
    box = "<div class='price-box'><span>Was <del>$39.00</del></span> <b>$29.00</b></div>"
    return ld({**PRODUCT, "offers": offers}) + f"<h1>K1</h1>{box}<button>Add to cart</button>"


def test_a_markup_price_the_page_shows_struck_through_as_old_is_named():
    page = checked(_sale({"@type": "Offer", "price": "39.00", "priceCurrency": "USD"}))
    (problem,) = [p for p in page["problems"] if p["code"] == "price-shown-as-old"]
    assert problem["path"] == "offers.price" and "'$29.00'" in problem["message"]
    assert not any(p["code"] == "price-vs-visible" for p in page["problems"])


def test_the_current_price_with_its_old_one_as_a_strikethrough_spec_is_clean():
    spec = {"@type": "UnitPriceSpecification", "priceType": "https://schema.org/StrikethroughPrice"}
    offers = {
        "@type": "Offer",
        "price": "29.00",
        "priceCurrency": "USD",
        "priceSpecification": {**spec, "price": "39.00", "priceCurrency": "USD"},
    }
    page = checked(_sale(offers))
    assert not {"price-shown-as-old", "price-vs-visible"} & {p["code"] for p in page["problems"]}


def test_syntaxes_disagreeing_on_one_id():
    md = (
        '<div itemscope itemtype="https://schema.org/Product" itemid="https://shop.example/#k1">'
        '<span itemprop="name">K one</span></div>'
    )
    page = checked(ld({**PRODUCT, "@id": "https://shop.example/#k1"}) + md)
    found = [p for p in page["problems"] if p["code"] == "syntax-disagreement"]
    assert {p["format"] for p in found} == {"json-ld", "microdata"}
    assert all(p["path"] == "name" for p in found)


def test_site_summary_by_code_and_template():
    bad = ld({**PRODUCT, "offers": {**PRODUCT["offers"], "price": "-1"}})
    pages = []
    for i, html in enumerate([bad, ld(PRODUCT), bad]):
        page = checked(html)
        page["url"] = f"https://shop.example/products/kettle-{i}.html"
        pages.append(page)
    about = checked("<p>about</p>")
    about["url"] = "https://shop.example/about.html"
    summary = summarize([*pages, about])
    assert summary["pages"] == 4 and summary["pages_with_invalid_records"] == 2
    assert summary["exit"] == 1
    (negative,) = [c for c in summary["by_code"] if c["code"] == "negative-price"]
    assert negative["pages"] == 2 and negative["severity"] == "error"
    assert negative["templates"] == {"shop.example/products/{slug}.html": 2}
    assert negative["examples"] == [pages[0]["url"], pages[2]["url"]]
    assert summary["by_template"][0]["template"] == "shop.example/products/{slug}.html"
    assert summary["by_template"][0]["pages_with_errors"] == 2
    assert "negative-price: 2 on 2 page(s)" in render_text(summary)
    assert "<code>negative-price</code>" in render_html(summary)
    assert summarize([])["exit"] == 2


def test_the_text_report_lists_each_problem_with_its_element_and_fix():
    from structcrawl.validate.problems import problem_lines

    page = checked(ld({**PRODUCT, "offers": {**PRODUCT["offers"], "price": "-1"}}))
    text = "\n".join(problem_lines(page))
    assert (
        'error   negative-price  [json-ld] Product "K1" offers.price at /html/head/script' in text
    )
    assert "fix: Give price a price of zero or more" in text
    assert "missing-recommended" not in text
    assert problem_lines(checked("<p>nothing</p>")) == []
