"""What the page shows about its product (structcrawl.visible.evidence), as plain functions."""

from __future__ import annotations

import pytest

from structcrawl.core.document import parse_html
from structcrawl.typed import page_items
from structcrawl.visible.evidence import page_evidence


def evidence(body: str, url: str = "https://shop.example/p/1"):
    return page_evidence(parse_html(body.encode(), url, content_type="text/html"))


@pytest.mark.parametrize(
    ("row", "code"),
    [
        ("<tr><th>ASIN</th><td>B07FW264WL</td></tr>", "B07FW264WL"),
        ("<tr><td>Article Number:</td><td>15213589</td></tr>", "15213589"),
        ("<tr><td>eBay item number:</td><td>302474151804</td></tr>", "302474151804"),
        ("<tr><td>Numero oggetto eBay: 133588510845</td></tr>", "133588510845"),
        ("<tr><td>Numéro de l'objet eBay\xa0:293565036718</td></tr>", "293565036718"),
        ("<tr><td>ID Produto</td><td>1236291</td></tr>", "1236291"),
        ("<tr><td>딜번호 : 4548094738</td></tr>", "4548094738"),
        ("<tr><td>Art.-Nr.</td><td>AB-12345</td></tr>", "AB-12345"),
        ("<tr><td>Артикул</td><td>77-310</td></tr>", "77-310"),
        ("<tr><td>رقم المنتج</td><td>14448AT50HJP</td></tr>", "14448AT50HJP"),
        ("<tr><td>Mã sản phẩm:</td><td>SP-1234</td></tr>", "SP-1234"),
        ("<tr><td>Kode produk</td><td>KP0098</td></tr>", "KP0098"),
        ('<tr><td>רהיט מק"ט: 778812</td></tr>', "778812"),
        ("<tr><td>รหัสสินค้า: 88123</td></tr>", "88123"),
    ],
)
def test_labelled_article_codes_in_many_languages(row, code):
    ev = evidence(f"<h1>Lamp</h1><table>{row}</table>")
    assert ev.sku == code


def test_an_article_code_wins_over_a_reference_and_a_model_number_nearer_the_heading():
    ev = evidence(
        "<h1>Lamp</h1><table><tr><td>Item model number</td><td>QB737</td></tr>"
        "<tr><td>Référence</td><td>RF-2201</td></tr><tr><td>ASIN</td><td>B08LNDXM65</td></tr>"
        "</table>"
    )
    assert ev.sku == "B08LNDXM65"
    assert evidence("<h1>Lamp</h1><p>Model number: QB737</p>").sku == "QB737"
    assert evidence("<h1>Lamp</h1><p>refurbished in 2020, SKUs 12</p>").sku is None


def test_the_main_heading_is_the_h1_that_names_the_page():
    page = (
        "<title>Pink Dog Hair Dye 50ml : Amazon.it</title><body>"
        "<div class='popover'><h1>Adding to cart...</h1></div>"
        "<h1>Pink Dog Hair Dye 50ml</h1><p>12,99 €</p><button>Add to cart</button></body>"
    )
    ev = evidence(page)
    assert ev.heading == "Pink Dog Hair Dye 50ml" and ev.price == "12,99 €"
    no_h1 = "<title>Tapo C200 Camera | Shop</title><h2>Offers</h2><h2>Tapo C200 Camera</h2>"
    assert evidence(no_h1).heading == "Tapo C200 Camera"
    assert evidence("<title>Shop</title><h2>Offers</h2>").heading is None


def test_aria_hidden_text_is_on_screen():
    ev = evidence(
        "<div aria-hidden='true'><h1>Kettle</h1><span>€ 49,90</span>"
        "<button>In den Warenkorb</button></div>"
    )
    assert (ev.heading, ev.price, ev.availability) == ("Kettle", "€ 49,90", "InStock")


def test_a_price_written_over_two_elements_and_whole_units():
    ev = evidence("<h1>Boat kit</h1><div class='price'><strong>€ <span>206,-</span></strong></div>")
    assert ev.price == "€206,-"
    ev = evidence(
        "<h1>Potatoes</h1><span class='a-price'><span>$</span><span>29<span>.</span></span>"
        "<span>99</span></span>"
    )
    assert ev.price == "$29.99"


@pytest.mark.parametrize(
    ("control", "availability"),
    [
        ("<button>Add to Trolley</button>", "InStock"),
        ("<a class='btn' href='/bin'>Compralo Subito</a>", "InStock"),
        ("<img id='addToCartButton' alt='Add to Cart' src='b.png'>", "InStock"),
        ("<button disabled>Ajouter au panier</button>", "OutOfStock"),
        # a control holding every state a stylesheet switches between says "buy"
        (
            "<a class='add-to-basket show'><span>Dodaj do koszyka</span>"
            "<span class='unavailable-label'>Produkt niedostępny</span></a>",
            "InStock",
        ),
        ("<p class='stock'>Vypredané</p><button>Do košíka</button>", "OutOfStock"),
        ("<nav><a>Add to cart</a></nav>", None),
        ("<button>أضف إلى السلة</button>", "InStock"),
        ("<p class='stock'>نفذت الكمية</p><button>أعلمني عند التوفر</button>", "OutOfStock"),
        ("<button>Thêm vào giỏ hàng</button>", "InStock"),
        ("<span>Hết hàng</span>", "OutOfStock"),
        ("<p>Stok tersedia</p><button>Beli Sekarang</button>", "InStock"),
        ("<p>Tidak tersedia</p>", "OutOfStock"),
        ("<button>หยิบใส่ตะกร้า</button>", "InStock"),
        ("<p>Немає в наявності</p>", "OutOfStock"),
    ],
)
def test_availability_from_buy_controls_and_stock_wording(control, availability):
    ev = evidence(f"<h1>Desk</h1><p>99,00 €</p>{control}")
    assert ev.availability == availability


def test_a_page_without_markup_is_a_product_page_when_it_shows_two_product_signs():
    body = (
        b"<html lang='sk'><title>Garni 570 | shop</title><h1>Garni 570</h1>"
        b"<p>Cena: 54,50 \xe2\x82\xac</p><table><tr><td>Katal\xc3\xb3gov\xc3\xa9 \xc4\x8d\xc3\xadslo"
        b"</td><td>112949990</td></tr></table></html>"
    )
    items = page_items(body, "https://shop.example/garni-570", "text/html")
    assert items and items[0]["type"] == "Product" and items[0]["role"] == "primary"
    assert (items[0]["price"], items[0]["currency"], items[0]["sku"]) == (
        "54.50",
        "EUR",
        "112949990",
    )
    assert items[0]["provenance"]["sku"]["layer"] == "visible-page"
    # a heading and one sign is not enough
    assert (
        page_items(b"<h1>About us</h1><p>Since 1990: 12 EUR</p>", "https://s.example/", "text/html")
        == []
    )


def test_a_price_screen_readers_are_told_is_the_regular_one_is_not_the_current_one():
    ev = evidence(
        "<h1>Candle</h1><div><span aria-hidden='true'>$45.00</span>"
        "<span class='sr-only'>Regular Price</span><span>$35.00</span>"
        "<span class='sr-only'>Sale Price</span></div>"
    )
    assert ev.price == "$35.00"
    # a visible "Was" introduces the price after it
    ev = evidence("<h1>Sofa</h1><p><span>£2,450.00</span> <span>Was <s>£2,950.00</s></span></p>")
    assert ev.price == "£2,450.00"


def test_one_options_sold_out_label_yields_to_the_buy_control():
    ev = evidence(
        "<h1>Espresso machine</h1><p>R$ 1.299,90</p><div class='skuSelectorOptionsList'>"
        "<div class='skuSelectorItem'>127V</div><div class='skuSelectorItem unavailable'>220V "
        "<span class='unavailableLabel'>Esgotado</span></div></div>"
        "<button>Adicionar ao carrinho</button>"
    )
    assert ev.availability == "InStock"
    assert evidence("<h1>Mug</h1><p class='stock'>Esgotado</p>").availability == "OutOfStock"


def test_the_visible_page_is_read_only_where_the_layers_leave_the_product_short(monkeypatch):
    import structcrawl.typed.page as page

    calls = []
    real = page.page_evidence
    monkeypatch.setattr(page, "page_evidence", lambda doc: calls.append(doc) or real(doc))
    full = (
        b'<script type="application/ld+json">{"@context": "https://schema.org", "@type": '
        b'"Product", "name": "Mug", "sku": "M1", "offers": {"@type": "Offer", "price": 12, '
        b'"priceCurrency": "EUR", "availability": "https://schema.org/InStock"}}</script>'
        b"<h1>Mug</h1><p>12,00 EUR</p>"
    )
    items = page_items(full, "https://shop.example/mug", "text/html")
    assert items[0]["price"] == "12.00" and calls == []
    short = full.replace(b'"sku": "M1", ', b"").replace(b"<p>", b"<p>Art.-Nr. M-100 ")
    items = page_items(short, "https://shop.example/mug", "text/html")
    assert items[0]["sku"] == "M-100" and len(calls) == 1


def test_a_currency_code_touching_its_amount_is_a_price():
    from structcrawl.visible.prices import find_prices

    assert find_prices("EUR219.99 or 110.00EUR; 3 NEUROS, EURO 4") == ["EUR219.99", "110.00EUR"]


@pytest.mark.parametrize(
    "threshold",
    [
        "توصيل مجاني للطلبيات بمبلغ 200 SAR او أكثر",  # Arabic: free delivery from 200 SAR
        "Darmowa dostawa od 200 zł",
        "Бесплатная доставка от 200 ₽",
        "Tasuta tarne alates 200 €",
    ],
)
def test_a_free_delivery_threshold_is_no_price_in_other_languages(threshold):
    body = f"<h1>Kids T-shirt</h1><ul><li>{threshold}</li></ul><p>Size 6-7</p>".encode()
    ev = page_evidence(parse_html(body, "https://s.example/p"))
    assert ev.price is None


def test_a_scripted_select_is_a_control_its_choices_prices_are_not_the_price():
    body = (
        "<h1>Robot mower 400</h1><div class='buy'><span role='combobox'><span>12 months:"
        " 146,70 €</span></span><p class='price'>978,00 €</p><button>Add to cart</button></div>"
    ).encode()
    ev = page_evidence(parse_html(body, "https://s.example/p"))
    assert ev.price == "978,00 €"
    assert ev.prices == ["978,00 €"]


@pytest.mark.parametrize(
    ("form", "currency"),
    [
        ('<input type="hidden" name="currency_code" value="USD">', "USD"),
        ('<input type="hidden" name="currency_code" value="CAD">', "CAD"),
        ('<input type="hidden" name="currency_code" value="EUR">', None),  # no dollar
        ('<input name="currency" value="USD"><input name="currency" value="AUD">', None),
        ("", None),  # no language, no country domain, no declaration: unknown
    ],
)
def test_a_checkout_forms_currency_says_which_dollar(form, currency):
    body = (
        "<html><body><h1>Maple Burl Bowl</h1><p class='price'>Price: $68</p>"
        f"<form action='/pay' method='post'>{form}<input type='image' alt='Buy Now'></form>"
        "</body></html>"
    ).encode()
    (item,) = page_items(body, "https://woodturner.example/bowl214.html", "text/html")
    assert item["price"] == "68.00"
    assert item.get("currency") == currency


def test_a_number_glued_to_a_word_is_no_amount():
    """A template placeholder ("$qty_dummy1$", a shop's hidden error message) is no price:
    an amount written before its sign starts at a word boundary."""
    from structcrawl.visible.prices import find_prices

    text = "Choose quantity that is less than $qty_dummy1$ or equal to $qty_dummy$; 12$ only"
    assert find_prices(text) == ["12$"]


def test_a_backface_visibility_style_hides_nothing():
    ev = evidence(
        '<body style="-webkit-backface-visibility: hidden;"><h1>Kettle</h1>'
        "<p>€ 39,95</p><button>In winkelwagen</button></body>"
    )
    assert ev.heading == "Kettle" and ev.price == "€ 39,95"
    assert evidence('<body><h1 style="visibility:hidden">Kettle</h1></body>').heading is None


def test_an_h2_naming_the_page_beats_h1s_of_related_products():
    ev = evidence(
        "<html><head><title>Good Thoughts: yearly subscription (gift) - Shop</title></head><body>"
        "<h2>Good Thoughts: yearly subscription (gift)</h2><p>12,00 €</p>"
        "<section><h1>Economist yearly subscription</h1><h1>Sticker book</h1></section>"
        "</body></html>"
    )
    assert ev.heading == "Good Thoughts: yearly subscription (gift)"


def test_a_section_h2_sharing_the_titles_category_and_place_does_not_name_the_page():
    ev = evidence(
        "<html><head><title>Remote control TV in Feldkirch - TV, projectors - free ads</title>"
        "</head><body><main><h1>Remote control TV</h1><strong>€20,-</strong>"
        "<h2>Similar ads for TV, projectors near Feldkirch may interest you</h2></main>"
        "</body></html>"
    )
    assert ev.heading == "Remote control TV"


@pytest.mark.parametrize(
    ("html", "lang", "url", "price", "currency"),
    [
        ("<strong>30,000</strong><sub>원~</sub>", "ko", "https://shop.example/d/1", "30000", "KRW"),
        ("<span>售價</span><span>99元</span>", "zh-TW", "https://shop.example/p", "99.00", "TWD"),
        ("<span>99 元</span>", "zh", "https://shop.example/p", "99.00", "CNY"),
        ("<span>RM 129.00</span>", "ms", "https://kedai.example/p", "129.00", "MYR"),
        # the Indian grouping (lakh): not "₹1,29"
        ("<span>₹1,29,999</span>", "en-IN", "https://dukaan.example/p", "129999.00", "INR"),
        # the Arab countries' and other local abbreviations; an article code is none
        ("<span>99 ر.س</span>", "ar", "https://souq.example/p", "99.00", "SAR"),
        ("<span>ج.م 250</span>", "ar-EG", "https://souq.example/p", "250.00", "EGP"),
        ("<span>1.299,90 TL</span>", "tr", "https://magaza.example/p", "1299.90", "TRY"),
        ("<i>AY-ST-KN01</i><span>4,980円</span>", "ja", "https://mise.example/p", "4980", "JPY"),
    ],
)
def test_local_currency_signs(html, lang, url, price, currency):
    body = (
        f'<html lang="{lang}"><head><title>Lamp</title><meta property="og:type" content="product">'
        f"</head><body><h1>Lamp</h1>{html}<button>Add to cart</button></body></html>"
    ).encode()
    (item,) = [i for i in page_items(body, url, "text/html") if i["type"] == "Product"]
    assert (item.get("price"), item.get("currency")) == (price, currency)


def test_a_page_without_heading_elements_is_named_by_the_element_holding_its_title():
    ev = evidence(
        "<html><head><title>Beef jerky, pick 10 - Fresh Foods</title></head><body>"
        "<ul><li><a href='/'>Beef jerky, pick 10</a></li></ul>"
        '<div class="box"><div class="title">Beef jerky, pick 10</div><p>$99</p>'
        '<a id="buy_btn" href="#"></a></div></body></html>'
    )
    assert ev.heading == "Beef jerky, pick 10" and ev.price == "$99"
    assert ev.availability == "InStock"  # a buy control named by its id


@pytest.mark.parametrize("name", ["buy_btn", "btn-buy", "buyButton", "add-to-trolley"])
def test_buy_controls_named_by_id(name):
    ev = evidence(f'<h1>Lamp</h1><p>€ 20,00</p><a id="{name}" href="#"></a>')
    assert ev.availability == "InStock"


def test_an_image_buy_button_an_item_number_and_a_count_available():
    ev = evidence(
        "<html><head><title>Black Walnut Salad Bowl - Eli Marsh Woods</title></head><body>"
        "<h1>Eli Marsh Woods</h1><h2>Black Walnut Salad Bowl</h2><p>Item #B214</p><p>Price: $68</p>"
        "<p>Only <b>1 available</b></p>"
        '<form><input type="image" src="buy.gif" name="submit" alt="Buy Now with PayPal"></form>'
        "</body></html>"
    )
    assert (ev.heading, ev.price, ev.sku) == ("Black Walnut Salad Bowl", "$68", "B214")
    assert ev.availability == "InStock"


def test_a_pre_order_button_overrules_a_markup_in_stock_in_the_item_and_the_check():
    from structcrawl.validate.availability import check_availability, visible_availability

    body = (
        b'<script type="application/ld+json">{"@context": "https://schema.org", "@type":'
        b' "Product", "name": "Trail Stove", "offers": {"@type": "Offer", "price": "249.00",'
        b' "priceCurrency": "AUD", "availability": "https://schema.org/InStock"}}</script>'
        b"<h1>Trail Stove</h1><p>$249.00 AUD</p><button>Pre-order now</button>"
        b"<p>Ships from 14 March</p>"
    )
    url = "https://gear.example/stove"
    (item,) = [i for i in page_items(body, url, "text/html") if i["type"] == "Product"]
    assert item["availability"] == "PreOrder"
    assert [c["value"] for c in item["conflicts"]["availability"]] == ["InStock"]
    record = {"kind": "entity", "type": ["Product"], "properties": {"offers": {
        "type": ["Offer"], "properties": {"availability": "https://schema.org/InStock"}}}}  # fmt: skip
    shown = visible_availability(parse_html(body, url))
    assert [c["code"] for c in check_availability(record, shown)] == ["availability-vs-visible"]


@pytest.mark.parametrize(
    ("url", "repeat", "sku"),
    [
        ("https://deals.example/store/36064?pid=262388", "262388", "262388"),
        ("https://shop.example/pc/all-in-one/imac-pro-27-112949990", "112949990", "112949990"),
        ("https://ads.example/boats/c5780a200532255/calypso.html", "200532255", "200532255"),
        ("https://shop.example/pc/imac-pro-27-112949990", "", None),  # the page never says it
    ],
)
def test_the_urls_product_id_is_the_last_sku_candidate(url, repeat, sku):
    said = f'<form><input type="hidden" name="pid" value="{repeat}"></form><p>No. {repeat}</p>'
    body = (
        "<html><head><title>Calypso slatted frame kit</title>"
        '<meta property="og:type" content="product"></head><body>'
        f"<h1>Calypso slatted frame kit</h1><p>€ 89,00</p>{said if repeat else ''}"
        "<button>In den Warenkorb</button></body></html>"
    ).encode()
    (item,) = [i for i in page_items(body, url, "text/html") if i["type"] == "Product"]
    assert item.get("sku") == sku
    if sku:
        assert item["provenance"]["sku"]["rule"] == "url-id" and item["flags"]["sku"] == [
            "fallback"
        ]


def test_a_layers_sku_wins_over_the_urls_id():
    body = (
        b'<script type="application/ld+json">{"@context": "https://schema.org", "@type":'
        b' "Product", "name": "Lamp", "sku": "LMP-7", "offers": {"@type": "Offer", "price":'
        b' "12.00", "priceCurrency": "EUR"}}</script><h1>Lamp</h1><p>Art. 4455667 4455667</p>'
    )
    (item,) = [i for i in page_items(body, "https://s.example/p/4455667", "text/html")
               if i["type"] == "Product"]  # fmt: skip
    assert item["sku"] == "LMP-7"


def test_a_related_products_sold_out_in_an_aside_overrules_nothing():
    body = (
        b'<script type="application/ld+json">{"@context": "https://schema.org", "@type":'
        b' "Product", "name": "Kettle", "offers": {"@type": "Offer", "price": "39.00",'
        b' "priceCurrency": "EUR", "availability": "https://schema.org/InStock"}}</script>'
        b"<h1>Kettle</h1><p>39,00 \xe2\x82\xac</p>"
        b"<aside><p>Teapot</p><p>Sold out</p></aside>"
    )
    (item,) = [i for i in page_items(body, "https://s.example/k", "text/html")
               if i["type"] == "Product"]  # fmt: skip
    assert item["availability"] == "InStock" and "availability" not in item["conflicts"]


@pytest.mark.parametrize(
    "lot",
    [
        "<p>Estimate <span>$300</span> - <span>$500</span></p><p><span>$200</span> 2 bids</p>",
        "<p>Estimate $300 - $500</p><p>Current bid: <b>$200</b></p>",
        "<p><span>Schätzpreis</span> <span>300 €</span></p><p>Aktuelles Gebot <b>200 €</b></p>",
    ],
)
def test_an_auctions_estimate_and_the_end_of_a_range_are_no_price_to_pay(lot):
    ev = evidence(f"<h1>Pair of pillows</h1>{lot}<button>Place Bid</button>")
    assert ev.price in ("$200", "200 €")
    # an open auction's bid button is its way to buy
    assert (ev.availability, ev.availability_text) == ("InStock", "Place Bid")


def test_a_price_range_keeps_its_lower_end():
    assert evidence("<h1>Shirt</h1><p>$19.99 – $24.99</p>").price == "$19.99"
    assert evidence("<h1>Shirt</h1><p><b>$19.99</b> <i>to</i> <b>$24.99</b></p>").price == "$19.99"
