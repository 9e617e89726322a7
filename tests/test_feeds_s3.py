"""Entity feeds to S3, against a real S3-compatible server on 127.0.0.1 (moto)."""

from __future__ import annotations

import json

import boto3
import pytest

from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer
from tests.servers import free_port, moto_s3

pytestmark = pytest.mark.crawl

PAGE = (
    '<html><head><script type="application/ld+json">'
    '{"@context": "https://schema.org", "@type": "Product", "@id": "#p", "name": "P"}</script>'
    '</head><body><div itemscope itemtype="https://schema.org/Product" itemid="#p">'
    '<span itemprop="name">P</span></div></body></html>'
)
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


def s3_settings(endpoint: str) -> list[str]:
    args = ["-s", f"AWS_ENDPOINT_URL={endpoint}", "-s", "AWS_REGION_NAME=us-east-1"]
    for key, value in CREDENTIALS.items():
        args += ["-s", f"{key}={value}"]
    return args


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text(PAGE)
    with BackgroundServer(root) as server:
        yield server.url


def test_entities_feed_uploads_to_s3(tmp_path, site):
    with moto_s3(tmp_path) as endpoint:
        s3 = boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="us-east-1",
            **{"aws_access_key_id": "testing", "aws_secret_access_key": "testing"},
        )
        s3.create_bucket(Bucket="feeds")
        code = run_crawl(
            site,
            tmp_path / "out",
            "-O",
            "s3://feeds/crawl/entities.jsonl:entities",
            *s3_settings(endpoint),
            timeout=120,
        )
        body = s3.get_object(Bucket="feeds", Key="crawl/entities.jsonl")["Body"].read()
    assert code == 0, (tmp_path / "out" / "crawl.log").read_text()[-2000:]
    (entity,) = [json.loads(line) for line in body.decode().splitlines()]
    log = (tmp_path / "out" / "crawl.log").read_text()
    assert "AWS_SECRET_ACCESS_KEY" in log and "testing" not in log  # logged, but redacted
    assert entity["id"].endswith("/#p") and set(entity["formats"]) == {"json-ld", "microdata"}


def test_failed_upload_makes_the_crawl_exit_non_zero(tmp_path, site):
    dead = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    code = run_crawl(
        site,
        tmp_path / "out",
        "-O",
        "s3://feeds/entities.jsonl:entities",
        *s3_settings(dead),
        "-s",
        "AWS_MAX_ATTEMPTS=1",
        "-s",
        f"STRUCTCRAWL_FEED_RESCUE_DIR={tmp_path / 'kept'}",
        timeout=180,
    )
    assert code == 1
    kept, label = sorted((tmp_path / "kept").iterdir())  # the feed's content, named in the error
    assert kept.read_text().count("\n") == 1 and kept.name.endswith("-entities.jsonl")
    assert label.name == kept.name + ".feed.json"  # and labelled with its feed from the start
    assert json.loads(label.read_text())["feed"] == "s3://feeds/entities.jsonl"
    log = (tmp_path / "out" / "crawl.log").read_text()
    assert "Error storing" in log and f"its content is kept in {kept}" in log
