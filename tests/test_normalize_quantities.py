"""Numbers, and numbers with their units kept."""

from __future__ import annotations

import pytest

from structcrawl.normalize.quantities import normalize_number, normalize_quantity

QUANTITIES = [
    ("750 ml", None, {"value": "750", "unitText": "ml", "unitCode": "MLT"}),
    ("1,2 kg", None, {"value": "1.2", "unitText": "kg", "unitCode": "KGM"}),
    ("1.58 kg", None, {"value": "1.58", "unitText": "kg", "unitCode": "KGM"}),
    ("73g", None, {"value": "73", "unitText": "g", "unitCode": "GRM"}),
    ("250 kcal", None, {"value": "250", "unitText": "kcal", "unitCode": "E14"}),
    ("1 200 g", None, {"value": "1200", "unitText": "g", "unitCode": "GRM"}),
    ("1.200 g", "de", {"value": "1200", "unitText": "g", "unitCode": "GRM"}),
    ("12 KG", None, {"value": "12", "unitText": "KG", "unitCode": "KGM"}),
    ("15.6″", None, {"value": "15.6", "unitText": "″", "unitCode": "INH"}),
    ("3 Stück", None, {"value": "3", "unitText": "Stück"}),  # unit kept even when unknown
    ("1200", None, "1200"),  # no unit: a scalar
    ("4,5", None, "4.5"),
    (60, None, 60),  # JSON numbers are kept
    (1.5, None, 1.5),
]


@pytest.mark.parametrize(("value", "language", "expected"), QUANTITIES)
def test_quantities(value, language, expected):
    result = normalize_quantity(value, language=language)
    assert (result.value, result.flags) == (expected, ())


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("164 / 171 / 178 cm", "quantity-unparsed"),
        ("3 x 5 cm", "quantity-unparsed"),
        ("about 2 kg", "quantity-unparsed"),
        ("1.200 g", "number-ambiguous-separator"),
        ("", "quantity-unparsed"),
        (None, "number-unparsed"),
    ],
)
def test_flagged_quantities_keep_the_original(value, code):
    result = normalize_quantity(value)
    assert result.value == value
    assert [f.code for f in result.flags] == [code]


@pytest.mark.parametrize(
    ("value", "language", "integer", "expected"),
    [
        ("4.5", None, False, "4.5"),
        ("4,8", None, False, "4.8"),
        (" 212 ", None, False, "212"),
        ("1.234", None, True, "1234"),  # a count has no fraction
        ("1,234", None, True, "1234"),
        ("1.234", "de", False, "1234"),
        ("1.234", "en", False, "1.234"),
        (4.5, None, False, 4.5),
        (5, None, True, 5),
    ],
)
def test_numbers(value, language, integer, expected):
    result = normalize_number(value, language=language, integer=integer)
    assert (result.value, result.flags) == (expected, ())


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("1.234", "number-ambiguous-separator"),
        ("four", "number-unparsed"),
        ("4 stars", "number-unparsed"),
        (True, "number-unparsed"),
        ("", "number-unparsed"),
    ],
)
def test_flagged_numbers(value, code):
    result = normalize_number(value)
    assert (result.value, [f.code for f in result.flags]) == (value, [code])
