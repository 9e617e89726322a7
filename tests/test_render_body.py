"""Bodies decoded in the render path (structcrawl.render._body): every encoding is decoded
step by step and stops at the cap, so a decompression bomb never costs its full size."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib

import brotli
import pytest
from backports import zstd

from structcrawl.render import _body

BOMB_SIZE = 64 * 1024 * 1024  # 64 MB of zeros: a few kB compressed
CAP = 1_000_000

ENCODERS = {
    "gzip": lambda data: gzip.compress(data, compresslevel=1),
    "deflate": lambda data: zlib.compress(data, 1),
    "br": lambda data: brotli.compress(data, quality=1),
    "zstd": lambda data: zstd.compress(data, 1),
}


@pytest.fixture(scope="module")
def bombs():
    zeros = bytes(BOMB_SIZE)
    return {name: encode(zeros) for name, encode in ENCODERS.items()}


@pytest.mark.parametrize("encoding", sorted(ENCODERS))
def test_a_decompression_bomb_stops_at_the_cap_without_inflating_whole(
    encoding, bombs, monkeypatch
):
    monkeypatch.setattr(_body, "MAX_DECODED", CAP)
    bomb = bombs[encoding]
    assert len(bomb) < BOMB_SIZE // 100
    tracemalloc.start()
    try:
        decoded = _body.decoded_body(bomb, [encoding])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert decoded is None  # too large: not judged
    assert peak < 8 * CAP, f"{encoding}: {peak} bytes allocated for a {BOMB_SIZE}-byte bomb"


@pytest.mark.parametrize("encoding", sorted(ENCODERS))
def test_a_body_below_the_cap_is_decoded_whole(encoding, monkeypatch):
    monkeypatch.setattr(_body, "MAX_DECODED", CAP)
    page = b"<html><body>" + b"<p>structured data</p>" * 30000 + b"</body></html>"  # ~660 kB
    assert _body.decoded_body(ENCODERS[encoding](page), [encoding]) == page


@pytest.mark.parametrize("encoding", ["br", "zstd"])
def test_a_truncated_body_is_not_judged(encoding):
    page = b"<html><body>" + bytes(range(256)) * 400 + b"</body></html>"
    encoded = ENCODERS[encoding](page)
    assert _body.decoded_body(encoded[: len(encoded) // 2], [encoding]) is None
