"""Durations to canonical ISO 8601."""

from __future__ import annotations

import pytest

from structcrawl.normalize.durations import normalize_duration

GOOD = [
    ("PT10M", "PT10M"),
    ("PT2H20M", "PT2H20M"),
    ("PT90M", "PT1H30M"),
    ("pt20m", "PT20M"),
    (" PT1H30M ", "PT1H30M"),
    ("PT0M", "PT0S"),
    ("P0D", "PT0S"),
    ("PT1.5H", "PT1H30M"),
    ("PT1,5H", "PT1H30M"),
    ("PT36H", "PT36H"),  # never carried into days
    ("PT3600S", "PT1H"),
    ("PT1.25S", "PT1.25S"),
    ("P1DT2H", "P1DT2H"),
    ("P1Y2M3W4D", "P1Y2M3W4D"),
    ("P2W", "P2W"),
    # text with units
    ("90 min", "PT1H30M"),
    ("90 minutes", "PT1H30M"),
    ("1 h 30 min", "PT1H30M"),
    ("1h 30m", "PT1H30M"),
    ("1 hour and 20 minutes", "PT1H20M"),
    ("1 Std. 30 Min.", "PT1H30M"),
    ("2 heures", "PT2H"),
    ("1,5 Stunden", "PT1H30M"),
    ("45 sec", "PT45S"),
    ("2 days 3 hours", "P2DT3H"),
]


@pytest.mark.parametrize(("value", "expected"), GOOD)
def test_good_durations(value, expected):
    result = normalize_duration(value)
    assert (result.value, result.flags) == (expected, ())


FLAGGED = [
    ("90", "duration-ambiguous"),  # minutes? seconds?
    ("1:30", "duration-ambiguous"),  # h:mm or m:ss?
    ("30m", "duration-ambiguous"),  # minutes, metres or months?
    (90, "duration-ambiguous"),
    ("P", "duration-invalid"),
    ("PT", "duration-invalid"),
    ("P1DT", "duration-invalid"),
    ("-PT5M", "duration-invalid"),
    ("P1H", "duration-invalid"),
    ("about an hour", "duration-unparsed"),
    ("10 min or so", "duration-unparsed"),
    ("1 h 2 h", "duration-unparsed"),
    ("3 weeks", "duration-unparsed"),
    ("", "duration-unparsed"),
]


@pytest.mark.parametrize(("value", "code"), FLAGGED)
def test_flagged_durations_keep_the_original(value, code):
    result = normalize_duration(value)
    assert result.value == value
    assert [f.code for f in result.flags] == [code]


@pytest.mark.parametrize(("value", "expected"), [(5400, "PT1H30M"), ("75", "PT1M15S"), (0, "PT0S")])
def test_open_graph_durations_are_seconds(value, expected):
    assert normalize_duration(value, seconds=True).value == expected


@pytest.mark.parametrize("value", ["1.5", "ninety", True, None])
def test_open_graph_durations_must_be_whole_seconds(value):
    result = normalize_duration(value, seconds=True)
    assert (result.value, [f.code for f in result.flags]) == (value, ["duration-invalid"])
