from __future__ import annotations

import gzip
from pathlib import Path

from scrapy.http import Headers

from structcrawl.core.redact import REDACTED, redact_headers
from structcrawl.crawl.bodystore import LocalBodyStore, body_ref, open_store


def test_body_store_is_content_addressed_and_gzipped(tmp_path: Path):
    store = LocalBodyStore(tmp_path)
    ref, uri = store.put(b"hello")
    assert ref == body_ref(b"hello") and ref.startswith("sha256:")
    digest = ref.split(":")[1]
    path = tmp_path / digest[:2] / digest[2:4] / f"{digest}.gz"
    assert uri == path.resolve().as_uri()
    assert gzip.decompress(path.read_bytes()) == b"hello"
    assert store.put(b"hello") == (ref, uri)
    assert store.get(ref) == b"hello"
    assert isinstance(open_store(f"file://{tmp_path}"), LocalBodyStore)


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
