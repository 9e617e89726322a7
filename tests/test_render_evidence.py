"""Evidence kept for a rendered page (issue 15), with a real Chromium on a generated site: the
server's HTML and the rendered DOM both in the body store and both referenced from the page
record, the captured JSON body too; the browser context's cookies (names and domains, values
redacted); a consent dialog dismissed by the site rule's ``consent`` selector, recorded in the
render context. Under ``CI=true`` a missing Chromium fails the test."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from structcrawl.crawl.bodystore import LocalBodyStore
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pipelines.bodies import BodyStorePipeline
from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer
from structcrawl.render.browser import locate_chromium
from structcrawl.rules import parse_site
from tests.servers import require

SECRET = "s3cr3t-cookie-value"
DATA = '{"offers": [{"@type": "Offer", "price": "12.50", "priceCurrency": "EUR"}]}'
APP = """<!doctype html><html><head><title>App</title></head><body>
<div id="cookie-consent"><p>We use cookies.</p><button id="accept">Accept all</button></div>
<div id="root"></div>
<script>
document.cookie = "sid=SECRET; path=/";
document.getElementById("accept").addEventListener("click", function () {
  document.getElementById("cookie-consent").remove();
  document.cookie = "consent=yes; path=/";
  fetch("/api/data.json").then(function (r) { return r.json(); }).then(function (d) {
    var s = document.createElement("script"); s.type = "application/ld+json"; s.id = "late";
    s.textContent = JSON.stringify({"@context": "https://schema.org", "@type": "Product",
      "@id": "urn:test:app", "name": "App product"});
    document.head.appendChild(s);
  });
});
</script></body></html>""".replace("SECRET", SECRET)
RULES = """name = "app"
hosts = ["127.0.0.1"]
[[render]]
url_pattern = "/app/"
consent = "#accept"
wait_for = "script#late"
"""


def _read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    require(locate_chromium(None).problem() is None, "the evidence test renders with Chromium")
    tmp = tmp_path_factory.mktemp("evidence")
    site, rules, out = tmp / "site", tmp / "rules", tmp / "out"
    (site / "app").mkdir(parents=True)
    (site / "api").mkdir()
    (site / "app" / "p.html").write_text(APP)
    (site / "api" / "data.json").write_text(DATA)
    rules.mkdir()
    (rules / "app.toml").write_text(RULES)
    with BackgroundServer(site) as server:
        code = run_crawl(server.url + "app/p.html", out, "-s", f"STRUCTCRAWL_RULES_DIR={rules}",
                         "-a", "depth=0", timeout=180)  # fmt: skip
    return {"code": code, "out": out, "pages": _read(out / "pages.jsonl")}


@pytest.mark.crawl
@pytest.mark.timeout(240)
def test_both_bodies_and_the_json_are_kept_and_referenced(crawl):
    assert crawl["code"] == 0, (crawl["out"] / "crawl.log").read_text()[-3000:]
    (page,) = crawl["pages"]
    assert page["fetched_with"] == "browser"
    store = LocalBodyStore(crawl["out"] / "bodies")
    server, rendered = store.get(page["server_body_ref"]), store.get(page["body_ref"])
    assert page["server_body_ref"] != page["body_ref"]
    assert b'<script type="application/ld+json"' not in server  # as served, before the script
    assert b'<div id="cookie-consent">' in server
    assert b'id="late"' in rendered and b'<div id="cookie-consent">' not in rendered
    assert Path(page["server_body_uri"][len("file://") :]).exists()
    (network,) = page["render"]["network_bodies"]
    assert network["url"].endswith("/api/data.json") and network["status"] == 200
    assert json.loads(store.get(network["body_ref"])) == json.loads(DATA)


@pytest.mark.crawl
def test_cookies_and_consent_are_in_the_render_context(crawl):
    (page,) = crawl["pages"]
    render = page["render"]
    cookies = {c["name"]: c for c in render["cookies"]}
    assert set(cookies) >= {"sid", "consent"}
    assert cookies["sid"]["domain"] == "127.0.0.1" and cookies["sid"]["value"] == "[REDACTED]"
    assert SECRET not in (crawl["out"] / "pages.jsonl").read_text()
    assert SECRET not in (crawl["out"] / "records.jsonl").read_text()
    assert render["consent"] == {"seen": None, "rule": {"selector": "#accept", "dismissed": True}}
    assert render["wait"]["met"] is True


# -- without a browser -------------------------------------------------------------------------


def test_the_consent_selector_is_a_site_rule_field():
    site = parse_site(
        {"name": "s", "hosts": ["s.example"], "render": [{"url_pattern": "/", "consent": "#ok"}]}
    )
    assert site.render[0].consent == "#ok"
    with pytest.raises(ValueError, match="consent"):
        parse_site({"name": "s", "hosts": ["s.example"],
                    "render": [{"url_pattern": "/", "consent": "h1::text"}]})  # fmt: skip


def test_the_body_store_keeps_the_evidence_under_the_capture_cap(tmp_path):
    from scrapy.utils.test import get_crawler

    crawler = get_crawler(settings_dict={"STRUCTCRAWL_BODY_STORE": str(tmp_path)})
    pipeline = BodyStorePipeline.from_crawler(crawler)
    item = PageItem(
        url="http://s.example/", final_url="http://s.example/", body=b"<html>rendered</html>",
        server_body=b"<html>served</html>", render={"reason": "rule"},
        network=[{"url": "http://s.example/a.json", "status": 200, "text": '{"a": 1}'},
                 {"url": "http://s.example/b.json", "status": 200, "text": None,
                  "note": "too-large: 9000000 bytes"}],
    )  # fmt: skip
    asyncio.run(pipeline.process_item(item))
    store = LocalBodyStore(tmp_path)
    assert store.get(item.body_ref) == b"<html>rendered</html>"
    assert store.get(item.server_body_ref) == b"<html>served</html>"
    (kept,) = item.render["network_bodies"]  # the one over the cap is not kept
    assert kept["url"] == "http://s.example/a.json" and store.get(kept["body_ref"]) == b'{"a": 1}'
    stats = crawler.stats.get_stats()
    assert stats["structcrawl/bodystore/server_html"] == 1
    assert stats["structcrawl/bodystore/network_json"] == 1
