"""End to end with the real browser (Debian's chromium): the demo site's JavaScript-only pages
are rendered and yield their records, no plain page is rendered, the rendering context is
recorded, and a missing browser gives error records and a non-zero exit while plain pages
still complete.

Without a Chromium the browser tests are skipped with a message, except under ``CI=true``,
where a missing browser is a failure.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer
from structcrawl.render.browser import locate_chromium

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
pytestmark = pytest.mark.crawl

RENDERED = {
    "/js/products/trailhead-daypack-20l.html": "empty-mount",
    "/js/products/ember-camp-mug.html": "empty-mount",
    "/js/products/drift-sleeping-pad.html": "learned",
    "/js/deals.html": "empty-mount",
    "/js/specs/lumen-400-headlamp.html": "rule",
}


@pytest.fixture(scope="module")
def chromium() -> str:
    location = locate_chromium(None)
    problem = location.problem()
    if problem:
        message = f"the browser tests need Chromium: {problem}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    assert location.path
    return location.path


def _read(out: Path, name: str) -> list[dict]:
    path = out / name
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def _stats(out: Path) -> dict[str, int]:
    log = (out / "crawl.log").read_text()
    return {k: int(v) for k, v in re.findall(r"'(structcrawl/[^']+)': (\d+)", log)}


def _crawl(tmp_path_factory, name: str, *extra: str, start: str = "") -> dict:
    out = tmp_path_factory.mktemp(name)
    with BackgroundServer(SITE) as server:
        rules = f"STRUCTCRAWL_RULES_DIR={SITE / 'rules'}"  # the demo's rules, as `make demo`
        code = run_crawl(server.url + start, out, "-s", rules, *extra, timeout=240)
        base = server.url
    pages = _read(out, "pages.jsonl")
    return {
        "code": code,
        "out": out,
        "base": base,
        "pages": {"/" + p["final_url"][len(base) :]: p for p in pages},
        "records": _read(out, "records.jsonl"),
        "stats": _stats(out),
    }


@pytest.fixture(scope="module")
def crawl(chromium, tmp_path_factory):
    return _crawl(tmp_path_factory, "render")


@pytest.mark.timeout(300)
def test_the_crawl_with_the_browser_succeeds(crawl):
    assert crawl["code"] == 0, (crawl["out"] / "crawl.log").read_text()[-3000:]


@pytest.mark.timeout(300)
def test_js_only_pages_are_rendered_for_the_expected_reason(crawl):
    rendered = {
        path: p["fetch_reason"]
        for path, p in crawl["pages"].items()
        if p["fetched_with"] == "browser" and p["fetch_reason"] != "audit"
    }
    assert rendered == RENDERED
    for path in RENDERED:
        page = crawl["pages"][path]
        assert page["status"] == 200 and page["fetch_error"] is None and page["body_size"] > 0


@pytest.mark.timeout(300)
def test_no_plain_page_is_rendered_but_the_audited_ones(crawl):
    plain = {path: p for path, p in crawl["pages"].items() if path not in RENDERED}
    assert len(plain) >= 40 and "/js/" in plain
    audited = {path: p for path, p in plain.items() if p["fetch_reason"] == "audit"}
    # the render audit: the demo's first 3 judged pages, then one in 20; none gains
    assert 3 <= len(audited) <= 3 + len(plain) // 20
    assert len(audited) == crawl["stats"]["structcrawl/render/audit/pages"]
    for path, page in audited.items():
        assert page["fetched_with"] == "browser", path
        assert page["render"]["audit"]["gain"] == 0, path
        assert page["render"]["wait"]["timeout_ms"] == 3000, path  # the audit's wait bound
    for path, page in plain.items():
        if path in audited:
            continue
        assert page["fetched_with"] == "http" and page["fetch_reason"] is None, path
        assert page["render"] is None, path


@pytest.mark.timeout(300)
def test_each_js_only_page_yields_its_records(crawl):
    by_page: dict[str, list[dict]] = {}
    for record in crawl["records"]:
        by_page.setdefault("/" + record["source_url"][len(crawl["base"]) :], []).append(record)
    names = {
        path: [
            r["properties"].get("name")
            for r in recs
            if r["format"] == "json-ld" and r["type"] == ["Product"]
        ]
        for path, recs in by_page.items()
    }
    assert names["/js/products/trailhead-daypack-20l.html"] == ["Trailhead Daypack 20 L"]
    assert names["/js/products/ember-camp-mug.html"] == ["Ember Camp Mug 350 ml"]
    assert names["/js/products/drift-sleeping-pad.html"] == ["Drift Sleeping Pad R4"]
    # the JSON-LD the page's script inserted after load, with its offer
    (daypack,) = [
        r for r in by_page["/js/products/trailhead-daypack-20l.html"] if r["format"] == "json-ld"
    ]
    assert daypack["properties"]["sku"] == "NW-THD-20"
    assert daypack["properties"]["offers"]["properties"]["price"] == "89.00"
    # the listing's items exist only in the fetch() response: network-json records
    deals = [r for r in by_page["/js/deals.html"] if r["format"] == "network-json"]
    offers = [r for r in deals if r["type"] == ["Offer"]]
    assert [o["source_element"] for o in offers] == ["$.offers[0]", "$.offers[1]", "$.offers[2]"]
    for offer in offers:
        network = offer["provenance"]["network"]
        assert network["url"] == crawl["base"] + "api/js-deals.json"
        assert network["status"] == 200 and network["content_type"].startswith("application/json")
    assert offers[0]["properties"]["itemOffered"]["properties"]["sku"] == "NW-SDJ-210"
    # the click revealed the spec sheet: the DOM's JSON-LD and the endpoint's JSON
    specs = by_page["/js/specs/lumen-400-headlamp.html"]
    revealed = [r for r in specs if r["format"] == "json-ld"]
    assert (
        revealed
        and revealed[0]["id"] == "https://northwind.example/products/lumen-400-headlamp#product"
    )
    assert len(revealed[0]["properties"]["additionalProperty"]) == 5
    assert any(r["format"] == "network-json" and r["type"] == ["Product"] for r in specs)
    # every record says how and why its page was fetched
    for path, reason in RENDERED.items():
        for record in by_page[path]:
            fetch = record["provenance"]["fetch"]
            assert (fetch["fetched_with"], fetch["fetch_reason"]) == ("browser", reason)


@pytest.mark.timeout(300)
def test_the_rendering_context_is_recorded(crawl, chromium):
    for path, reason in RENDERED.items():
        render = crawl["pages"][path]["render"]
        assert render["reason"] == reason
        assert render["browser"]["name"] == "chromium"
        assert re.match(r"\d+\.\d+", render["browser"]["version"])
        assert render["browser"]["executable"] == chromium
        assert render["viewport"] == {"width": 1280, "height": 800}
        assert (render["locale"], render["timezone"]) == ("en-US", "UTC")
        assert render["user_agent"].startswith("structcrawl/")
        assert render["wait"]["met"] is True and render["wait"]["condition"]
        assert 0 <= render["wait"]["waited_ms"] < render["wait"]["timeout_ms"]
        assert render["render_ms"] > 0
        assert render["gain"] > 0 and render["records_rendered"] > render["records_http"]
    specs = crawl["pages"]["/js/specs/lumen-400-headlamp.html"]["render"]
    assert specs["actions"] == [{"click": "button#show-specs", "ok": True}]
    assert specs["wait"]["condition"] == "selector:script#spec-data"
    assert specs["rule"]["site"] == "northwind"
    deals = crawl["pages"]["/js/deals.html"]["render"]
    assert deals["network_json"] == 1 and "empty-mount:#app" in deals["signals"]


@pytest.mark.timeout(300)
def test_escalations_and_mispredictions_are_counted(crawl):
    stats = crawl["stats"]
    assert stats["structcrawl/render/escalated/empty-mount"] == 3
    assert stats["structcrawl/render/escalated/learned"] == 1
    assert stats["structcrawl/render/escalated/rule"] == 1
    assert stats["structcrawl/render/mispredicted/http_needed_render"] == 3
    assert "structcrawl/render/mispredicted/rendered_without_gain" not in stats
    audited = stats["structcrawl/render/audit/pages"]
    assert stats["structcrawl/render/pages"] == 5 + audited
    assert stats["structcrawl/render/gained"] == 5  # audits are counted apart
    assert stats["structcrawl/render/audit/without_gain"] == audited
    assert "structcrawl/render/audit/learned_templates" not in stats
    assert "structcrawl/failure/browser" not in stats


@pytest.mark.timeout(300)
def test_restarts_and_the_page_cap(chromium, tmp_path_factory):
    result = _crawl(
        tmp_path_factory,
        "restart",
        "-s",
        "STRUCTCRAWL_RENDER_RESTART_AFTER=2",
        "-s",
        "STRUCTCRAWL_RENDER_MAX_PAGES=1",
        "-s",
        "STRUCTCRAWL_RENDER_AUDIT=False",
        start="js/",
    )
    assert result["code"] == 0
    rendered = [p for p in result["pages"].values() if p["fetched_with"] == "browser"]
    assert len(rendered) == 5 and all(p["fetch_error"] is None for p in rendered)
    assert result["stats"]["structcrawl/render/browser/restarts"] == 2
    log = (result["out"] / "crawl.log").read_text()
    assert "'playwright/page_count/max_concurrent': 1" in log
    assert "'playwright/browser_count': 3" in log


@pytest.mark.timeout(300)
def test_a_missing_browser_fails_the_crawl_but_not_the_plain_pages(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("STRUCTCRAWL_CHROMIUM", "/nonexistent/chromium")
    result = _crawl(tmp_path_factory, "nobrowser")
    assert result["code"] != 0
    failed = {path: p for path, p in result["pages"].items() if p["fetch_error"]}
    # the first app product fails, so the products it links to are never discovered
    assert set(failed) == {
        "/js/products/trailhead-daypack-20l.html",
        "/js/deals.html",
        "/js/specs/lumen-400-headlamp.html",
    }
    for page in failed.values():
        assert page["fetch_error"]["code"] == "browser-launch-failed"
        assert "/nonexistent/chromium" in page["fetch_error"]["message"]
        assert page["fetched_with"] == "browser"
    errors = [
        r for r in result["records"] if r["error"] and r["error"]["code"] == "browser-launch-failed"
    ]
    assert len(errors) == 3 and all(r["kind"] == "error" and r["format"] == "page" for r in errors)
    plain = [p for path, p in result["pages"].items() if path not in failed]
    assert len(plain) >= 40
    assert all(p["status"] == 200 and p["fetched_with"] == "http" for p in plain)
    assert result["stats"]["structcrawl/failure/browser"] == 3
    assert "the browser cannot start" in (result["out"] / "crawl.log").read_text()


@pytest.mark.timeout(300)
def test_a_page_whose_scripts_never_yield_is_abandoned(chromium, tmp_path):
    site = tmp_path / "site"
    (site / "x").mkdir(parents=True)
    (site / "index.html").write_text(
        '<a href="x/busy-page.html">busy</a> <a href="x/ok-page.html">ok</a>'
    )
    (site / "x" / "busy-page.html").write_text(
        '<html><body><div id="root"></div><script>addEventListener("load", function () {'
        " setTimeout(function () { while (true) {} }, 10); });</script></body></html>"
    )
    (site / "x" / "ok-page.html").write_text(
        '<html><body><div id="app"></div><script>addEventListener("load", function () {'
        ' var s = document.createElement("script"); s.type = "application/ld+json";'
        ' s.textContent = \'{"@type": "Thing", "name": "ok"}\'; document.head.appendChild(s);'
        " });</script></body></html>"
    )
    out = tmp_path / "out"
    with BackgroundServer(site) as server:
        code = run_crawl(
            server.url,
            out,
            "-s",
            "STRUCTCRAWL_RENDER_TIMEOUT=3",
            "-s",
            "STRUCTCRAWL_RENDER_WAIT_TIMEOUT=2",
            timeout=240,
        )
    pages = {p["final_url"].rsplit("/", 1)[1]: p for p in _read(out, "pages.jsonl")}
    assert code == 0
    busy = pages["busy-page.html"]
    assert busy["fetch_error"] == {
        "code": "browser-render-failed",
        "message": "render abandoned after 8 s",
    }
    assert pages["ok-page.html"]["fetch_error"] is None
    assert pages["ok-page.html"]["render"]["wait"]["met"] is True
    assert _stats(out)["structcrawl/render/abandoned"] == 1
