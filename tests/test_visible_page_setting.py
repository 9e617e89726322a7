"""``STRUCTCRAWL_VISIBLE_PAGE`` off: the records are checked against schemas and vocabulary
only, and the items take their values from the markup alone; the visible page (its price,
its stock wording, the product a page without markup shows) is not read."""

from __future__ import annotations

import pytest

import structcrawl.typed.page as typed_page
from structcrawl.commandline.check import check_file
from structcrawl.core.document import parse_html
from structcrawl.typed.page import resolve_page

URL = "https://shop.example/p/kettle"
#: markup: $59.00, in stock; the page: $49.00 and "Sold out" with no way to buy
MARKED_UP = """<html lang="en"><head><title>Kettle</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product",
 "name": "Kettle", "sku": "K1", "offers": {"@type": "Offer", "price": "59.00",
 "priceCurrency": "USD", "availability": "https://schema.org/InStock"}}</script></head>
<body><h1>Kettle</h1><p class="price">$49.00</p><p class="stock">Sold out</p></body></html>"""
#: no markup: the product only as the page shows it
SHOWN_ONLY = b"""<html lang="en"><body><h1>Kettle 1.7 l</h1>
<p class="price">$49.00</p><button type="submit">Add to cart</button></body></html>"""


def _checked(tmp_path, visible: str) -> tuple[list[str], dict]:
    page = tmp_path / "page.html"
    page.write_text(MARKED_UP)
    out = check_file(str(page), URL, None, [f"STRUCTCRAWL_VISIBLE_PAGE={visible}"])
    (record,) = [r for r in out["records"] if r.get("kind") == "entity"]
    return [c["code"] for c in record.get("conflicts") or []], out["items"][0]


def test_by_default_the_records_and_items_are_read_against_the_visible_page(tmp_path):
    codes, item = _checked(tmp_path, "True")
    assert codes == ["price-vs-visible", "availability-vs-visible"]
    assert item["availability"] == "OutOfStock"  # the page's "Sold out" overrules the markup
    assert item["conflicts"]["availability"][0]["value"] == "InStock"


def test_off_the_records_are_not_compared_and_the_items_keep_the_markup(tmp_path):
    codes, item = _checked(tmp_path, "False")
    assert codes == []
    assert (item["price"], item["availability"], item["conflicts"]) == ("59.00", "InStock", {})


def test_off_the_resolution_never_reads_the_visible_page(monkeypatch):
    doc = parse_html(SHOWN_ONLY, URL)
    shown = resolve_page([], URL, doc, article_body=False).items
    assert [(i["type"], i["price"]) for i in shown] == [("Product", "49.00")]

    def unread(document):
        raise AssertionError("the visible page was read")

    monkeypatch.setattr(typed_page, "page_evidence", unread)
    doc = parse_html(SHOWN_ONLY, URL)
    assert not [i for i in resolve_page([], URL, doc, visible=False).items if i.get("price")]
    with pytest.raises(AssertionError, match="visible page was read"):
        resolve_page([], URL, parse_html(SHOWN_ONLY, URL), visible=True)


def test_off_a_signed_page_without_markup_is_no_article():
    words = " ".join(f"word{i}" for i in range(400))
    page = (
        '<html lang="en"><head><meta name="author" content="Ada Byron"></head><body><main>'
        f"<h1>Notes on an engine</h1><p>{words}.</p><p>{words}.</p></main></body></html>"
    ).encode()
    shown = resolve_page([], URL, parse_html(page, URL)).items
    assert [(i["type"], i["role"]) for i in shown] == [("Article", "primary")]
    assert resolve_page([], URL, parse_html(page, URL), visible=False).items == []


def test_off_the_typed_items_pipeline_checks_no_fallback_against_the_page(tmp_path):
    """A meta-tag price the page does not show is flagged with the page read, not without."""
    from scrapy.http import HtmlResponse
    from scrapy.utils.test import get_crawler

    from structcrawl.commandline.check import _page_pipelines, _settings
    from structcrawl.crawl.exporters import page_typed_items
    from structcrawl.crawl.pageitem import page_item
    from structcrawl.crawl.pipelines.typeditems import TypedItemsPipeline

    body = (
        b'<html lang="en"><head><meta property="og:type" content="product">'
        b'<meta property="product:price:amount" content="19.99">'
        b'<meta property="product:price:currency" content="EUR"></head>'
        b"<body><h1>Kettle</h1><p>24,99 \xe2\x82\xac</p></body></html>"
    )
    flags = {}
    for visible in ("True", "False"):
        settings = {"STRUCTCRAWL_TYPED_ITEMS": True, "STRUCTCRAWL_VISIBLE_PAGE": visible}
        crawler = get_crawler(settings_dict={**settings, "ADDONS": {"structcrawl.Addon": 0}})
        item = page_item(HtmlResponse(URL, body=body, headers={"Content-Type": "text/html"}))
        for pipeline in _page_pipelines(_settings([f"STRUCTCRAWL_VISIBLE_PAGE={visible}"])):
            item = pipeline.process_item(item)
        stage = TypedItemsPipeline.from_crawler(crawler)
        stage.tracker = None
        typed = page_typed_items(stage.process_item(item))
        (product,) = [i for i in typed if i["type"] == "Product"]
        flags[visible] = (product.get("validation") or {}).get("flags") or []
    assert [f["code"] for f in flags["True"]] == ["fallback-not-visible"]
    assert flags["False"] == []
