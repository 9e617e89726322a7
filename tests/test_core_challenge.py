"""Bot challenges and consent walls recognised over saved sample pages (fixtures/challenges)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structcrawl.core.challenge import detect_challenge, detect_consent, visible_text_length

CASES = sorted(
    p
    for p in (Path(__file__).resolve().parents[1] / "fixtures" / "challenges").iterdir()
    if p.is_dir()
)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_sample_pages(case: Path) -> None:
    meta = json.loads((case / "response.json").read_text())
    expected = json.loads((case / "expected.json").read_text())
    body = (case / "page.html").read_bytes()
    challenge = detect_challenge(meta["status"], meta["headers"], body)
    assert (challenge.vendor if challenge else None) == expected["challenge"], challenge
    if challenge:
        assert challenge.signals and challenge.message().startswith("bot challenge")
    consent = detect_consent(body)
    assert (consent.vendor if consent else None) == expected["consent"]
    if consent:
        assert consent.wall is expected["wall"]


def test_the_fixtures_cover_both_sides() -> None:
    verdicts = [json.loads((c / "expected.json").read_text()) for c in CASES]
    assert sum(v["challenge"] is not None for v in verdicts) >= 8
    assert sum(v["challenge"] is None and v["consent"] is None for v in verdicts) >= 4


def test_a_marker_in_a_page_with_content_is_not_a_challenge() -> None:
    article = "<h1>Tents</h1><p>" + "A long and useful paragraph about tents. " * 30 + "</p>"
    marker = '<script src="https://www.google.com/recaptcha/api.js"></script>'
    assert detect_challenge(200, {}, article + marker) is None
    assert detect_challenge(403, {}, article + marker).vendor == "recaptcha"  # blocked: it is
    assert detect_challenge(200, {}, marker).signals == (
        "status:200",
        "thin-page",
        "marker:recaptcha",
    )
    assert detect_challenge(404, {}, marker) is None  # a missing page is a missing page


def test_the_cloudflare_header_alone_is_enough_and_bodies_are_read_in_bounds() -> None:
    challenge = detect_challenge(403, {"CF-Mitigated": "challenge"}, b"")
    assert challenge.vendor == "cloudflare" and "header:cf-mitigated" in challenge.signals
    huge = b"<p>" + b"x" * 2_000_000 + b"</p>captcha-delivery.com"
    assert detect_challenge(403, {}, huge) is None  # the marker is past the scanned prefix
    assert visible_text_length("<style>p{}</style><p> a  b </p>") == 3


def test_anchored_marker_search_finds_what_the_plain_search_finds():
    """The challenge markers are looked for under shared anchors (fewer scans of a page that
    has none): every marker, alone, in pairs and inside ordinary text, gives the vendors the
    plain search gives, in the same order."""
    from structcrawl.core.challenge import (
        _CHALLENGE_BYTES,
        _CHALLENGE_MARKERS,
        _found,
        _found_challenges,
        _found_groups,
    )

    needles = [n for _, ns in _CHALLENGE_MARKERS for n in ns]
    page = "<html><body><p>verify your order; checking out; a captcha-free form</p>{}</body>"
    cases = [page.format(n) for n in needles]
    cases += [page.format(a + " " + b) for a, b in zip(needles, reversed(needles), strict=True)]
    cases.append(page.format(""))
    for text in cases:
        assert _found_challenges(text) == _found(text, _CHALLENGE_MARKERS), text
        # a 2xx page's bytes (lowercased) are scanned first: the same vendors
        assert _found_groups(text.encode().lower(), _CHALLENGE_BYTES) == _found_challenges(text)


# pieces of markup where the bytes and the decoded text may tell blocks and tags apart: block
# starts and ends spelt every way (a non-ASCII or control whitespace before an end's ">", a
# word character after a name), tags inside attribute values, stray brackets, text in several
# scripts, invalid UTF-8
_PIECES = [
    b"<script>", b"<script", b"</script>", b"</script \xc2\xa0>", b"</script\xc2\xa0>",
    b"</script\x1c>", b"<style>", b"</style >", b"<noscript>", b"</noscript>", b"<template>",
    b"</template\n>", b"<scripts>", b"<script\xc3\xa9>", b"<SCRIPT>", b"</SCRIPT>",
    b"<a title='", b"'>", b">", b"<", b"<p>", b"</p>", b"<!-- ", b" -->", b"word ",
    b"\xc3\xa9t\xc3\xa9 ", b"\xe4\xb8\xad\xe6\x96\x87", b"\x1c\x1d", b"\xff\xfe", b"  \n",
    b"x" * 60, b"<b>" + b"y" * 120 + b"</b>", "\u4e2d\u6587\u5546\u54c1".encode() * 40,
    # the wide spaces (not counted), whole, cut, after a stray lead byte
    b"\xc2\xa0" * 30, b"\xc2\x85", b"\xe1\x9a\x80", b"\xe2\x80\x8a" * 30, b"\xe2\x80\xaf",
    b"\xe2\x81\x9f", b"\xe3\x80\x80" * 30, b"\xe3\x80", b"\xe3", b"\xf0\x9f", b"\xed\xa0\x80",
    # runs longer than the bytes counted of one, cut inside a character
    b"\xe3\x80\x80" * 1366, b"a" + b"\xe3\x80\x80" * 1366, b"\xc3\xa9" * 2100, b" " * 4095,
]  # fmt: skip


def _lower_bound_holds(body: bytes | str) -> bool:
    from structcrawl.core.challenge import _THIN_TEXT, _prefix, _text
    from structcrawl.core.textbound import shows_text

    if not shows_text(_prefix(body).lower(), _THIN_TEXT):
        return False
    assert visible_text_length(_text(body, 200)) >= _THIN_TEXT, body
    return True


@given(st.lists(st.sampled_from(_PIECES), max_size=60), st.booleans())
@settings(max_examples=400, deadline=None)
def test_text_told_from_the_bytes_is_never_more_than_the_text_shows(
    pieces: list[bytes], decoded: bool
) -> None:
    """A 2xx page without structured data is not scanned for challenge markers where its
    bytes surely show 600 characters of text: a lower bound of :func:`visible_text_length`
    (markup where bytes and text may differ included; the body as bytes or as text)."""
    body = b"".join(pieces)
    _lower_bound_holds(body.decode("utf-8", "replace") if decoded else body)


def test_pages_that_show_text_are_told_so_from_their_bytes() -> None:
    """On the shared real pages and the saved samples, every page told to show text does
    (the bound holds), and nearly every real page is told so (its markers' scan spared)."""
    from bench.realpages import large_corpus_dir
    from tests.servers import real_pages_corpus

    real = sorted(real_pages_corpus().glob("*.html")) + sorted(large_corpus_dir().glob("*.html"))
    told = [_lower_bound_holds(p.read_bytes()) for p in real]
    assert len(real) > 100 and sum(told) >= 0.9 * len(real)
    for sample in sorted((Path(__file__).resolve().parents[1] / "fixtures").rglob("*.html")):
        _lower_bound_holds(sample.read_bytes())
    shown = "<script>var a = '<p>' + 1;</script><p>" + "A useful line of text. " * 40 + "</p>"
    assert _lower_bound_holds(shown + '<script src="https://www.google.com/recaptcha/api.js">')
    assert detect_challenge(200, {}, shown + '<div class="g-recaptcha"></div>') is None


def test_the_wide_spaces_taken_back_are_every_whitespace_beyond_ascii() -> None:
    """The bound takes back the lead byte of each whitespace character beyond ASCII (what
    the count's ``\\s`` collapses): its pattern matches their UTF-8 and nothing else's."""
    from structcrawl.core.textbound import _WIDE_SPACE

    spaces = {c for c in map(chr, range(0x80, 0x110000)) if c.isspace()}
    for c in spaces:
        assert _WIDE_SPACE.fullmatch(c.encode()), hex(ord(c))
    others = [c for c in map(chr, range(0x80, 0x10000)) if c not in spaces]
    assert not any(_WIDE_SPACE.search(c.encode("utf-8", "surrogatepass")) for c in others)
