"""Bad input never raises: every normalizer answers with a value and flags."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from structcrawl.normalize import NormalizeContext, entity_key, normalize_record
from structcrawl.normalize._props import MICROFORMATS, OPEN_GRAPH, SCHEMA
from structcrawl.normalize.dates import normalize_date
from structcrawl.normalize.durations import normalize_duration
from structcrawl.normalize.enums import normalize_enum
from structcrawl.normalize.identifiers import normalize_gtin, normalize_isbn
from structcrawl.normalize.prices import normalize_currency, normalize_price
from structcrawl.normalize.quantities import normalize_number, normalize_quantity
from structcrawl.normalize.urls import normalize_url

# text that looks like the values normalizers meet, plus anything at all
ALPHABET = "0123456789.,:;-+/ TZPHMSWDYhm€$£¥'#?&=%@_xX" + "März mars Uhr pm am"
texts = st.one_of(st.text(alphabet=ALPHABET, max_size=30), st.text(max_size=30))
scalars = st.one_of(
    texts,
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(
                ["@id", "@value", "@type", "@language", "url", "value", "amount", "currency"]
            ),
            inner,
            max_size=2,
        ),
    ),
    max_leaves=6,
)
PROPS = sorted({*SCHEMA, *OPEN_GRAPH, *MICROFORMATS})


@settings(max_examples=300, deadline=None)
@given(
    texts,
    st.sampled_from([None, "de", "en", "en-US", "fr", "xx-YY"]),
    st.sampled_from([None, "Europe/Berlin", "Bad/Zone"]),
)
def test_text_normalizers_never_raise(text, language, zone):
    normalize_date(text, language=language, timezone=zone)
    normalize_price(text, language=language)
    normalize_price(text, currency="JPY", language=language)
    normalize_currency(text)
    normalize_url(text, base="https://x.example/a/")
    normalize_url(text, is_id=True)
    normalize_enum("availability", text)
    normalize_gtin(text, "gtin13")
    normalize_isbn(text)
    normalize_duration(text)
    normalize_duration(text, seconds=True)
    normalize_quantity(text, language=language)
    normalize_number(text, language=language, integer=True)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from(PROPS), values, max_size=6),
    values,
    st.sampled_from(
        ["json-ld", "microdata", "rdfa", "opengraph", "microformats", "dublincore", "data-block"]
    ),
    st.sampled_from([[], ["Product"], ["Offer"], ["QuantitativeValue"], ["Event"]]),
)
def test_normalize_record_never_raises_and_stays_json(props, raw, fmt, types):
    rec = {
        "source_url": "https://x.example/p",
        "format": fmt,
        "kind": "entity",
        "type": types,
        "id": None,
        "properties": props,
        "source_element": "/html",
        "provenance": {
            "fields": {
                p: [{"path": "x", "raw": raw}] * len(v)
                if isinstance(v, list)
                else [{"path": "x", "raw": raw}]
                for p, v in props.items()
            }
        },
    }
    out = normalize_record(rec, NormalizeContext("https://x.example/p", language="de"))
    assert isinstance(out["flags"], list) and out["key"] == entity_key(out)
    json.dumps(out)
