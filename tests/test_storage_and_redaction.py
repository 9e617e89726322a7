from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from scrapy.http import Headers

from structcrawl.core.redact import REDACTED, redact_headers
from structcrawl.core.zstdlib import zstd
from structcrawl.crawl.bodystore import LocalBodyStore, body_ref, open_store


def test_body_store_is_content_addressed_and_compressed(tmp_path: Path):
    store = LocalBodyStore(tmp_path)
    ref, uri = store.put(b"hello")
    assert ref == body_ref(b"hello") and ref.startswith("sha256:")
    digest = ref.split(":")[1]
    path = tmp_path / digest[:2] / digest[2:4] / f"{digest}.zst"
    assert uri == path.resolve().as_uri()
    assert zstd.decompress(path.read_bytes()) == b"hello"
    assert store.put(b"hello") == (ref, uri)
    assert store.get(ref) == b"hello"
    assert isinstance(open_store(f"file://{tmp_path}"), LocalBodyStore)


def test_a_gzip_store_and_a_store_of_either_kind(tmp_path: Path):
    gzipped = LocalBodyStore(tmp_path, "gzip")
    ref, uri = gzipped.put(b"old body")
    digest = ref.split(":")[1]
    path = tmp_path / digest[:2] / digest[2:4] / f"{digest}.gz"
    assert uri == path.resolve().as_uri() and gzip.decompress(path.read_bytes()) == b"old body"
    store = LocalBodyStore(tmp_path)  # zstd, over a store gzip wrote before
    assert store.put(b"old body") == (ref, uri)  # held already: not written again
    assert store.get(ref) == b"old body"
    new_ref, new_uri = store.put(b"new body")
    assert new_uri.endswith(".zst") and gzipped.get(new_ref) == b"new body"
    with pytest.raises(FileNotFoundError):
        store.get(body_ref(b"never stored"))
    with pytest.raises(ValueError, match="brotli"):
        LocalBodyStore(tmp_path, "brotli")


def test_scrapy_headers_are_redacted():
    headers = Headers(
        {
            "Set-Cookie": ["a=1", "b=2"],
            "Content-Type": "text/html",
            "X-Session-Id": "s",
            "Authorization": "Bearer t",
        }
    )
    out = redact_headers(headers)
    assert out["Set-Cookie"] == [REDACTED, REDACTED]
    assert out["Content-Type"] == ["text/html"]
    assert out["X-Session-Id"] == [REDACTED]
    assert out["Authorization"] == [REDACTED]
