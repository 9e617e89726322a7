"""GTINs and ISBNs: digits only, check digits verified, the raw value kept when wrong."""

from __future__ import annotations

import pytest

from structcrawl.normalize.identifiers import gtin14, isbn13, normalize_gtin, normalize_isbn

GOOD_GTINS = [
    ("gtin13", "0614141100019", "0614141100019"),
    ("gtin13", " 4251234004203 ", "4251234004203"),
    ("gtin13", "4-251234-004203", "4251234004203"),
    ("gtin13", "EAN 4006381333931", "4006381333931"),
    ("gtin12", "614141100019", "614141100019"),
    ("gtin12", 614141100019, "614141100019"),
    ("gtin8", "96385074", "96385074"),
    ("gtin14", "00614141100019", "00614141100019"),
    ("gtin", "96385074", "96385074"),
    ("gtin", "GTIN: 0614141100019", "0614141100019"),
]


@pytest.mark.parametrize(("prop", "value", "expected"), GOOD_GTINS)
def test_valid_gtins(prop, value, expected):
    result = normalize_gtin(value, prop)
    assert (result.value, result.flags) == (expected, ())


BAD_GTINS = [
    ("gtin13", "0614141100018", "gtin-check-digit"),
    ("gtin8", "96385075", "gtin-check-digit"),
    ("gtin13", "614141100019", "gtin-length"),  # a UPC in gtin13: not padded silently
    ("gtin13", 614141100019, "gtin-length"),  # a JSON number lost its leading zero
    ("gtin", "12345", "gtin-length"),
    ("gtin13", "061414110001X", "gtin-invalid"),
    ("gtin13", "", "gtin-invalid"),
    ("gtin13", None, "gtin-invalid"),
    ("gtin13", True, "gtin-invalid"),
    ("gtin13", "０６１４１４１１０００１９", "gtin-invalid"),  # full-width digits
]


@pytest.mark.parametrize(("prop", "value", "code"), BAD_GTINS)
def test_invalid_gtins_are_flagged_and_kept(prop, value, code):
    result = normalize_gtin(value, prop)
    assert result.value == value
    assert [f.code for f in result.flags] == [code]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("978-3-16-148410-0", "9783161484100"),
        ("ISBN 978-3-16-148410-0", "9783161484100"),
        ("ISBN-13: 9783161484100", "9783161484100"),
        ("urn:isbn:9783161484100", "9783161484100"),
        ("0-306-40615-2", "0306406152"),
        ("0-8044-2957-x", "080442957X"),
        (9783161484100, "9783161484100"),
    ],
)
def test_valid_isbns(value, expected):
    result = normalize_isbn(value)
    assert (result.value, result.flags) == (expected, ())


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("978-3-16-148410-1", "isbn-check-digit"),
        ("0-306-40615-3", "isbn-check-digit"),
        ("4006381333931", "isbn-invalid"),  # a GTIN-13 but not a Bookland one
        ("12345", "isbn-length"),
        ("97831614841X0", "isbn-invalid"),
        ("", "isbn-invalid"),
        (None, "isbn-invalid"),
    ],
)
def test_invalid_isbns_are_flagged_and_kept(value, code):
    result = normalize_isbn(value)
    assert result.value == value
    assert [f.code for f in result.flags] == [code]


def test_comparison_forms():
    assert gtin14("614141100019", "gtin12") == gtin14("0614141100019", "gtin13")
    assert gtin14("0614141100018", "gtin13") is None
    assert isbn13("0-306-40615-2") == isbn13("978-0-306-40615-7") == "9780306406157"
    assert isbn13("bad") is None
