"""Prices to decimal strings, currencies to ISO 4217; separators never guessed."""

from __future__ import annotations

import pytest

from structcrawl.normalize.prices import normalize_currency, normalize_price

# (value, layer currency, language, expected value, currency found in the text, its raw text)
GOOD = [
    ("1299.00", None, None, "1299.00", None, None),
    ("129.99", None, None, "129.99", None, None),
    ("0", None, None, "0", None, None),
    (" 64.00 ", None, None, "64.00", None, None),
    (129.99, None, None, "129.99", None, None),
    (349, None, None, "349", None, None),
    (0, None, None, "0", None, None),
    (1e21, None, None, "1000000000000000000000", None, None),
    ("1.299,00 €", None, None, "1299.00", "EUR", "€"),
    ("€1 299,00", None, None, "1299.00", "EUR", "€"),
    ("1,299.00", None, None, "1299.00", None, None),
    ("1,299.00 USD", None, None, "1299.00", "USD", "USD"),
    ("US$ 12.50", None, None, "12.50", "USD", "US$"),
    ("EUR 5", None, None, "5", "EUR", "EUR"),
    ("CHF 1'234.50", None, None, "1234.50", "CHF", "CHF"),
    ("1 234,56 zł", None, None, "1234.56", "PLN", "zł"),
    ("£ 9.99", None, None, "9.99", "GBP", "£"),
    ("12,5", None, None, "12.5", None, None),  # a decimal comma: groups have three digits
    ("12.345,6", None, None, "12345.6", None, None),
    ("1.299.000", None, None, "1299000", None, None),  # repeated: groups
    ("0.500", None, None, "0.500", None, None),  # a leading zero is never a group
    ("-5.00", None, None, "-5.00", None, None),
    ("€ -5,00", None, None, "-5.00", "EUR", "€"),
    # "1.234": a hint decides
    ("1.234", None, "de", "1234", None, None),
    ("1.234", None, "en", "1.234", None, None),
    ("1.234", "JPY", None, "1234", None, None),  # no minor unit
    ("1.234", "KWD", None, "1.234", None, None),  # three decimals
    ("1.234 €", None, "de", "1234", "EUR", "€"),
    ("¥1,000", "JPY", None, "1000", None, "¥"),  # the layer says which yen
]


@pytest.mark.parametrize(("value", "layer", "language", "expected", "found", "found_raw"), GOOD)
def test_good_prices(value, layer, language, expected, found, found_raw):
    result = normalize_price(value, currency=layer, language=language)
    assert result.flags == ()
    assert (result.value, result.currency, result.currency_raw) == (expected, found, found_raw)


# (value, layer currency, language, flag codes): the value is kept as given
FLAGGED = [
    ("1.234", None, None, ["price-ambiguous-separator"]),
    ("1,234", None, None, ["price-ambiguous-separator"]),
    ("1.234", "EUR", None, ["price-ambiguous-separator"]),  # €1.234/l fuel exists
    ("EUR 1.234", None, None, ["price-ambiguous-separator"]),
    ("Free", None, None, ["price-non-numeric"]),  # price-parser reads it as 0: we do not
    ("call us", None, None, ["price-non-numeric"]),
    ("", None, None, ["price-non-numeric"]),
    (True, None, None, ["price-non-numeric"]),
    (None, None, None, ["price-non-numeric"]),
    ({"a": 1}, None, None, ["price-non-numeric"]),
    ("10-20 €", None, None, ["price-unparsed"]),
    ("12.50 / 3 pcs", None, None, ["price-unparsed"]),
    ("¥1,000", None, None, ["currency-ambiguous", "price-ambiguous-separator"]),
    # separators that group nothing: no number people write, never read as 1253
    ("12,5,3", None, None, ["price-ambiguous-separator"]),
    ("1.2.3 €", None, None, ["price-ambiguous-separator"]),
    ("1.2,50", None, None, ["price-ambiguous-separator"]),
]


@pytest.mark.parametrize(("value", "layer", "language", "codes"), FLAGGED)
def test_flagged_prices_keep_the_original(value, layer, language, codes):
    result = normalize_price(value, currency=layer, language=language)
    assert [f.code for f in result.flags] == codes
    assert result.value == value


def test_an_ambiguous_sign_does_not_lose_a_clear_amount():
    result = normalize_price("$12.50")
    assert result.value == "12.50"
    assert (result.currency, result.currency_raw) == (None, "$")
    assert [f.code for f in result.flags] == ["currency-ambiguous"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("EUR", "EUR"),
        ("eur", "EUR"),
        (" USD ", "USD"),
        ("€", "EUR"),
        ("US$", "USD"),
        ("£", "GBP"),
        ("CHF", "CHF"),
        ("Fr.", "CHF"),
        ("zł", "PLN"),
        ("₹", "INR"),
        ("JPY", "JPY"),
    ],
)
def test_currencies(value, expected):
    result = normalize_currency(value)
    assert (result.value, result.flags) == (expected, ())


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("$", "currency-ambiguous"),
        ("kr", "currency-ambiguous"),
        ("¥", "currency-ambiguous"),
        ("XYZ", "currency-unknown"),
        ("dollars", "currency-unknown"),
        (5, "currency-unknown"),
    ],
)
def test_unknown_and_ambiguous_currencies_are_flagged(value, code):
    result = normalize_currency(value)
    assert result.value == value
    assert [f.code for f in result.flags] == [code]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1.299.000", "1299000"), ("1,23,456.00", "123456.00"), ("12.345.678,90", "12345678.90")],
)
def test_well_grouped_numbers_are_read(value, expected):
    assert normalize_price(value).value == expected


@pytest.mark.parametrize(
    ("sign", "place", "expected"),
    [
        ("$", {"language": "en"}, "USD"),
        ("$", {"language": "en", "region": "ca"}, "CAD"),
        ("$", {"language": "en", "host": "shop.com.au"}, "AUD"),
        ("kr", {"language": "sv"}, "SEK"),
        ("¥", {"language": "ja"}, "JPY"),
    ],
)
def test_a_sign_the_page_explains_is_read_with_a_note(sign, place, expected):
    result = normalize_currency(sign, **place)
    assert result.value == expected and result.ok
    assert [(f.code, f.note) for f in result.flags] == [("currency-from-page", True)]
    price = normalize_price(f"{sign}12.50", **place)
    assert (price.value, price.currency, price.currency_raw, price.ok) == (
        "12.50",
        expected,
        sign,
        True,
    )


@pytest.mark.parametrize(
    ("value", "currency", "expected"),
    [("3.499", "ARS", "3499"), ("1.299", "BRL", "1299"), ("1.459", "GBP", "1.459")],
)
def test_a_currency_written_one_way_everywhere_decides_the_separator(value, currency, expected):
    assert normalize_price(value, currency=currency).value == expected


def test_a_currency_its_countries_write_differently_does_not_decide():
    for currency in ("EUR", "USD", "CHF"):
        assert [f.code for f in normalize_price("1.234", currency=currency).flags] == [
            "price-ambiguous-separator"
        ]


def test_a_whole_language_tag_reads_as_its_language_for_a_sign():
    """``<html lang="sv-SE">``: a record's "499 kr" is in Swedish kronor, as on "sv"."""
    from structcrawl.normalize import NormalizeContext, normalize_record

    record = {"kind": "entity", "type": ["Offer"], "format": "json-ld",
              "properties": {"price": "499 kr"}, "flags": []}  # fmt: skip
    normalize_record(record, NormalizeContext(page_url="https://butik.example/p", language="sv-SE"))
    assert record["properties"]["priceCurrency"] == "SEK"
    assert [f["code"] for f in record["flags"]] == ["currency-from-page"]
