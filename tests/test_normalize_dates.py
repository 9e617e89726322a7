"""Dates and times to ISO 8601: offsets explicit, nothing guessed."""

from __future__ import annotations

import pytest

from structcrawl.normalize.dates import get_zone, normalize_date

# (value, language, timezone, expected value)
GOOD = [
    ("2026-02-03", None, None, "2026-02-03"),
    ("  2026-02-03 ", None, None, "2026-02-03"),
    ("2026-2-3", None, None, "2026-02-03"),
    ("2026", None, None, "2026"),
    ("2026-02", None, None, "2026-02"),
    ("2026-02-03T07:30:00-08:00", None, None, "2026-02-03T07:30:00-08:00"),
    ("2026-02-03T07:30:00Z", None, None, "2026-02-03T07:30:00+00:00"),
    ("2026-02-03T07:30:00.000Z", None, None, "2026-02-03T07:30:00+00:00"),
    ("2026-02-03T07:30:00.25+0530", None, None, "2026-02-03T07:30:00.250+05:30"),
    ("2026-02-03T07:30:00.1234567Z", None, None, "2026-02-03T07:30:00.123456+00:00"),
    ("2026-02-03T07:30+01", None, None, "2026-02-03T07:30:00+01:00"),
    ("20260203T073000Z", None, None, "2026-02-03T07:30:00+00:00"),
    ("2026-02-03 09:30-0800", None, None, "2026-02-03T09:30:00-08:00"),
    ("2026-02-03+01:00", None, None, "2026-02-03+01:00"),
    ("19:00", None, None, "19:00:00"),
    ("19:00:30+02:00", None, None, "19:00:30+02:00"),
    # a local time takes the site's zone, with the offset of that date (DST aware)
    ("2026-03-21T10:00", None, "Europe/Berlin", "2026-03-21T10:00:00+01:00"),
    ("2026-07-21T10:00:00", None, "Europe/Berlin", "2026-07-21T10:00:00+02:00"),
    ("2026-04-09 18:30", None, "America/Denver", "2026-04-09T18:30:00-06:00"),
    # the site zone never overrides an explicit offset
    ("2026-03-21T10:00:00-05:00", None, "Europe/Berlin", "2026-03-21T10:00:00-05:00"),
    # RFC 2822
    ("Tue, 03 Feb 2026 07:30:00 -0800", None, None, "2026-02-03T07:30:00-08:00"),
    ("Tue, 03 Feb 2026 07:30:00 GMT", None, None, "2026-02-03T07:30:00+00:00"),
    # month names in the page language, English everywhere
    ("3 mars 2025", "fr", None, "2025-03-03"),
    ("1er mars 2025", "fr", None, "2025-03-01"),
    ("mardi 3 mars 2025", "fr-FR", None, "2025-03-03"),
    ("3 févr. 2025", "fr", None, "2025-02-03"),
    ("3 fevrier 2025", "fr", None, "2025-02-03"),
    ("14. März 2026", "de", None, "2026-03-14"),
    ("14. März 2026, 18:00 Uhr", "de", "Europe/Berlin", "2026-03-14T18:00:00+01:00"),
    ("3 de marzo de 2025", "es", None, "2025-03-03"),
    ("March 14, 2026", None, None, "2026-03-14"),
    ("14 Mar 2026", "de", None, "2026-03-14"),
    ("Sept. 3, 2025", None, None, "2025-09-03"),
    (
        "Saturday, March 14th 2026 at 6:30 pm",
        "en-US",
        "America/New_York",
        "2026-03-14T18:30:00-04:00",
    ),
    ("March 14, 2026 18:00 UTC", None, None, "2026-03-14T18:00:00+00:00"),
    # numeric dates: the language fixes the order, or only one reading is a date
    ("03/04/2025", "en-US", None, "2025-03-04"),
    ("03/04/2025", "en-GB", None, "2025-04-03"),
    ("03/04/2025", "de", None, "2025-04-03"),
    ("03.04.2025", "fr", None, "2025-04-03"),
    ("14.03.2026", "en", None, "2026-03-14"),
    ("13/04/2025", None, None, "2025-04-13"),
    ("04/13/2025", None, None, "2025-04-13"),
    ("05/05/2025", None, None, "2025-05-05"),
    ("2025/04/03", None, None, "2025-04-03"),
    ("03.04.2025 18:30", "de", "Europe/Berlin", "2025-04-03T18:30:00+02:00"),
]


@pytest.mark.parametrize(("value", "language", "zone", "expected"), GOOD)
def test_good_values(value, language, zone, expected):
    result = normalize_date(value, language=language, timezone=zone)
    assert result.flags == ()
    assert result.value == expected


# (value, language, timezone, flag code): the original value is always kept
FLAGGED = [
    ("03/04/2025", None, None, "date-ambiguous"),
    ("03/04/2025", "en", None, "date-ambiguous"),  # en-US and en-GB disagree
    ("03/04/25", "de", None, "date-ambiguous"),  # two-digit year
    ("3 March 25", None, None, "date-ambiguous"),
    ("3 mars 2025", None, None, "date-unparsed"),  # French month, no language
    ("3 mars 2025", "de", None, "date-unparsed"),
    ("yesterday", None, None, "date-unparsed"),
    ("", None, None, "date-unparsed"),
    ("MÜNCHEN, 20 February 2026", None, None, "date-unparsed"),
    ("3 March 2025 and 4 March 2025", None, None, "date-unparsed"),
    ("03/04/2025 - 05/04/2025", "de", None, "date-unparsed"),
    ("2026-02-30", None, None, "date-invalid"),
    ("2026-13", None, None, "date-invalid"),
    ("2026-02-03T25:00:00Z", None, None, "date-invalid"),
    ("2026-02-03T10:00:00+25:00", None, None, "date-invalid"),
    ("31/02/2025", None, None, "date-invalid"),
    ("13/13/2025", None, None, "date-invalid"),
    ("13:30 pm March 3 2025", None, None, "date-invalid"),
    (2026, None, None, "date-unparsed"),
    (None, None, None, "date-unparsed"),
    ({"@value": "2026"}, None, None, "date-unparsed"),
]


@pytest.mark.parametrize(("value", "language", "zone", "code"), FLAGGED)
def test_flagged_values_keep_the_original(value, language, zone, code):
    result = normalize_date(value, language=language, timezone=zone)
    assert [f.code for f in result.flags] == [code]
    assert result.value == value
    assert result.flags[0].message


def test_local_time_without_zone_is_kept_local_and_flagged_never_utc():
    result = normalize_date("2026-03-21T10:00")
    assert result.value == "2026-03-21T10:00:00"
    assert [f.code for f in result.flags] == ["date-no-timezone"]
    unknown = normalize_date("2026-03-21T10:00", timezone="Mars/Olympus_Mons")
    assert unknown.value == "2026-03-21T10:00:00"
    assert [f.code for f in unknown.flags] == ["date-no-timezone"]
    assert "Mars/Olympus_Mons" in unknown.flags[0].message
    # a date without time is a date: no zone needed
    assert normalize_date("2026-03-21").flags == ()
    # RFC 2822 "-0000" means "zone unknown"
    assert normalize_date("Tue, 03 Feb 2026 07:30:00 -0000").flags[0].code == "date-no-timezone"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-03-29T02:30:00", "2026-03-29T02:30:00+01:00"),  # skipped by the spring change
        ("2026-10-25T02:30:00", "2026-10-25T02:30:00+02:00"),  # happens twice in autumn
    ],
)
def test_daylight_saving_gaps_and_overlaps_are_flagged(value, expected):
    result = normalize_date(value, timezone="Europe/Berlin")
    assert result.value == expected
    assert [f.code for f in result.flags] == ["date-dst-ambiguous"]


def test_zones_are_cached_and_unknown_zones_are_none():
    assert get_zone("Europe/Berlin") is get_zone("Europe/Berlin")
    assert get_zone("Not/AZone") is None
    assert get_zone(None) is None
    assert get_zone("../etc/passwd") is None


def test_normalizing_twice_changes_nothing():
    for value, language, zone, _ in GOOD:
        once = normalize_date(value, language=language, timezone=zone).value
        twice = normalize_date(once, language=language, timezone=zone)
        assert (twice.value, twice.flags) == (once, ())
