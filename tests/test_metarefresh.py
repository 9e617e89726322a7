"""The meta refresh read from the head of a page (HeadMetaRefreshMiddleware): the same
redirects as Scrapy's MetaRefreshMiddleware, without decoding a large page whole."""

from __future__ import annotations

import random

import pytest
from scrapy import Request
from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from structcrawl.crawl.middlewares import HeadMetaRefreshMiddleware, head_text, may_refresh

URL = "https://shop.example/p/lamp"
REFRESH = '<meta http-equiv="Refresh" content="0; url=/p/lamp-2">'
FILLER = "<p>Schöne Lampe – 24,99 € 灯 😀</p>\n" * 900  # multi-byte characters across every cut


def response(text: str, encoding: str = "utf-8", header: bool = True) -> HtmlResponse:
    headers = {"Content-Type": f"text/html; charset={encoding}" if header else "text/html"}
    return HtmlResponse(URL, body=text.encode(encoding, "replace"), headers=headers)


@pytest.mark.parametrize(
    "encoding", ["utf-8", "utf-16", "utf-32-le", "gb18030", "shift_jis", "iso-2022-jp", "cp1252"]
)
def test_the_head_text_is_what_scrapy_reads_of_the_whole_text(encoding):
    for shift in range(0, 40, 3):  # the cut falls inside a character, between two, ...
        page = response("x" * shift + FILLER, encoding)
        assert head_text(page) == page.text[:4096]
    undeclared = response(FILLER, encoding, header=False)  # an encoding found in the body
    assert head_text(undeclared) == undeclared.text[:4096]


def test_the_head_text_of_arbitrary_bytes_is_what_scrapy_reads():
    rng = random.Random(24)
    for _ in range(30):
        body = bytes(rng.randrange(256) for _ in range(rng.choice([100, 17000, 30000])))
        for charset in ("", "; charset=utf-8", "; charset=shift_jis", "; charset=utf-16"):
            headers = {"Content-Type": f"text/html{charset}"}
            page = HtmlResponse(URL, body=body, headers=headers)
            assert head_text(page) == page.text[:4096]


def both(text: str) -> tuple[object, object]:
    return both_for(response(text))


def both_for(page: HtmlResponse) -> tuple[object, object]:
    crawler = get_crawler(settings_dict={})
    ours = HeadMetaRefreshMiddleware.from_crawler(crawler)
    scrapys = MetaRefreshMiddleware.from_crawler(crawler)
    return ours.process_response(Request(URL), page), scrapys.process_response(Request(URL), page)


def test_a_refresh_in_the_head_redirects_as_scrapy_redirects():
    ours, scrapys = both(f"<html><head>{REFRESH}</head><body>{FILLER}</body></html>")
    assert isinstance(ours, Request) and isinstance(scrapys, Request)
    assert ours.url == scrapys.url == "https://shop.example/p/lamp-2"


def test_a_large_page_without_a_refresh_goes_on_and_one_after_the_head_is_not_read():
    page_text = f"<html><head><title>Lamp</title></head><body>{FILLER}</body></html>"
    ours, scrapys = both(page_text)
    assert isinstance(ours, HtmlResponse) and ours is scrapys
    late = f"<html><body>{FILLER}{REFRESH}</body></html>"  # beyond the 4,096 characters
    ours, scrapys = both(late)
    assert isinstance(ours, HtmlResponse) and isinstance(scrapys, HtmlResponse)


def test_a_page_without_a_declared_encoding_is_searched_as_bytes_not_decoded():
    # no charset in the header, no BOM, no <meta>: Scrapy would decode the whole body to
    # infer one (and keep the text with the response)
    plain = response(f"<html><head><title>Lamp</title></head><body>{FILLER}</body></html>",
                     header=False)  # fmt: skip
    crawler = get_crawler(settings_dict={})
    ours = HeadMetaRefreshMiddleware.from_crawler(crawler).process_response(Request(URL), plain)
    assert ours is plain and plain._cached_ubody is None  # gone on, never decoded
    assert (
        MetaRefreshMiddleware.from_crawler(crawler).process_response(Request(URL), plain) is plain
    )
    shouting = response(f"<html><head>{REFRESH.upper()}</head>{FILLER}", "cp1252", header=False)
    ours, scrapys = both_for(shouting)
    assert isinstance(ours, Request) and isinstance(scrapys, Request) and ours.url == scrapys.url


def test_the_bytes_search_says_what_the_text_would():
    rng = random.Random(6)
    words = [b"refresh", b"REFRESH", b"Refresh", b"refr\xc3\xa9sh", b"ref\x00resh"]
    for _ in range(60):
        body = bytearray(rng.randrange(256) for _ in range(rng.choice([300, 5000, 20000])))
        if rng.random() < 0.8:
            at = rng.randrange(len(body))
            body[at:at] = rng.choice(words)
        page = HtmlResponse(URL, body=bytes(body), headers={"Content-Type": "text/html"})
        assert may_refresh(page) == ("refresh" in page.text[:4096].lower())
