"""Bot challenges in a crawl (issue 15): a challenged page ends as a ``challenge`` error record
in the records feed and the page ledger, is fetched once (no backoff retries, even for 429 and
503), is never sent to the browser nor learned as a JavaScript-only URL template, and is
counted in the report. Against tests/faultserver.py, which serves the sample pages of
fixtures/challenges with their statuses and headers; rendering is on (Chromium: under
``CI=true`` its absence fails the test)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from structcrawl.dev.demo import run_crawl
from structcrawl.render.browser import locate_chromium
from tests.faultserver import FaultServer
from tests.servers import require

pytestmark = pytest.mark.crawl

CHALLENGED = {
    "cloudflare-managed-challenge": "cloudflare",  # 403
    "datadome-captcha": "datadome",  # 403
    "hcaptcha-rate-limited": "hcaptcha",  # 429: retried as transient without the detector
    "noscript-enable-js-and-cookies": "generic",  # 200 and JS-only looking: a render candidate
    "akamai-bm-verify-interstitial": "akamai",  # 200
}
PLAIN = ["react-app-shell", "nginx-forbidden", "onetrust-banner-on-article"]


def _read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    require(locate_chromium(None).problem() is None, "the challenge crawl renders with Chromium")
    out = tmp_path_factory.mktemp("challenges")
    with FaultServer(log=out / "server.log") as server:
        paths = [f"/challenge/{name}" for name in [*CHALLENGED, *PLAIN]]
        extra = ["-a", "start_urls=" + ",".join(server.url + p for p in paths), "-a", "depth=0"]
        for name, value in {
            "RETRY_TIMES": "2", "STRUCTCRAWL_RETRY_BACKOFF_BASE": "0.1",
            "STRUCTCRAWL_RENDER_LEARN_AFTER": "1", "DOWNLOAD_TIMEOUT": "20",
        }.items():  # fmt: skip
            extra += ["-s", f"{name}={value}"]
        code = run_crawl(None, out, *extra, timeout=240)
        hits = server.hits()
        base = server.url
    log = (out / "crawl.log").read_text()
    return {
        "code": code, "out": out, "base": base, "hits": hits, "log": log,
        "records": _read(out / "records.jsonl"), "pages": _read(out / "pages.jsonl"),
        "ledger": _read(out / "report" / "ledger.jsonl"),
        "stats": {k: int(v) for k, v in re.findall(r"'([a-z_]+/[^']+)': (\d+)", log)},
    }  # fmt: skip


@pytest.mark.timeout(300)
def test_challenged_pages_end_as_challenge_records_fetched_once(crawl):
    assert crawl["code"] == 0, crawl["log"][-4000:]
    by_url = {r["source_url"]: r for r in crawl["records"]}
    for name, vendor in CHALLENGED.items():
        url = f"{crawl['base']}/challenge/{name}"
        record = by_url[url]
        assert record["kind"] == "error" and record["error"]["code"] == "challenge", record
        assert f"bot challenge ({vendor})" in record["error"]["message"]
        assert crawl["hits"][f"/challenge/{name}"].__len__() == 1, name  # never retried
    for name in PLAIN:
        url = f"{crawl['base']}/challenge/{name}"
        assert by_url[url].get("error", {}).get("code") != "challenge", name


def test_the_ledger_and_the_report_count_them(crawl):
    outcomes = {line["url"].rsplit("/", 1)[1]: line["outcome"] for line in crawl["ledger"]}
    assert {outcomes[name] for name in CHALLENGED} == {"error:challenge"}
    stats = crawl["stats"]
    assert stats["structcrawl/challenge/pages"] == len(CHALLENGED)
    assert stats["structcrawl/ledger/outcome/error:challenge"] == len(CHALLENGED)
    report = json.loads((crawl["out"] / "report" / "report.json").read_text())
    assert "error:challenge" in json.dumps(report)


def test_a_challenge_is_never_rendered_nor_learned(crawl):
    stats = crawl["stats"]
    assert stats["structcrawl/render/challenge_not_rendered"] >= 1  # the 200 noscript page
    pages = {p["url"].rsplit("/", 1)[1]: p for p in crawl["pages"]}
    for name in CHALLENGED:
        assert pages[name]["fetched_with"] == "http", name
    assert pages["react-app-shell"]["fetched_with"] == "browser"  # a real shell still is
    # the shell's template was learned, never a challenge's
    assert stats.get("structcrawl/render/learned_templates", 0) <= 1


def test_the_middleware_reads_a_response_once():
    """A response the render handler found not to be a challenge (same status and body length)
    is not read again; another response (a changed body) is."""
    from scrapy import Request
    from scrapy.http import HtmlResponse
    from scrapy.utils.test import get_crawler

    from structcrawl.core.challenge import CHALLENGE_CHECKED_META, CHALLENGE_META
    from structcrawl.crawl.challenges import ChallengeMiddleware

    sample = Path("fixtures/challenges/datadome-captcha")
    body = (sample / "page.html").read_bytes()
    middleware = ChallengeMiddleware.from_crawler(get_crawler())
    for length, challenged in ((len(body), False), (len(body) - 1, True)):
        request = Request("http://a.example/", meta={CHALLENGE_CHECKED_META: (403, length)})
        response = HtmlResponse(request.url, status=403, body=body, request=request)
        middleware.process_response(request, response)
        assert (CHALLENGE_META in request.meta) is challenged
        assert CHALLENGE_CHECKED_META not in request.meta
