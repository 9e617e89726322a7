"""End to end with the real browser: the render audit finds JSON-LD that a page's script adds.

Three sites on 127.0.0.1 (three ports, so three sites), crawled in one run from their
sitemaps at the default settings: on one the JSON-LD of each product page is fetched by an
external script (``fetch``) and inserted, on one an external script writes it into the DOM on
load, and a control site serves the same pages with their JSON-LD in the HTML. None of the
pages looks like an application shell, so only the audit can send them to the browser.

Under ``CI=true`` a missing browser is a failure, never a skip.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer
from structcrawl.render.browser import locate_chromium
from tests.servers import require

pytestmark = pytest.mark.crawl

PAGES = 12
_PRODUCTS = [
    ("Trail Runner", "Shoes"),
    ("Summit Jacket", "Outerwear"),
    ("Canyon Tent", "Tents"),
    ("Ridge Pack", "Packs"),
]

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{name} | Northwind Outfitters</title>
<link rel="stylesheet" href="/site.css">{head}</head>
<body><header><nav><a href="/">Home</a> <a href="/c/{category}.html">{category}</a></nav></header>
<main><h1>{name}</h1><p class="price">USD {price}</p>
<p>The {name} is built for long days outside: tested on the ridge trails, repaired for free
for two years, shipped in recycled packaging. Sizes and colours in the table below.</p>
<table><tr><th>SKU</th><td>{sku}</td></tr><tr><th>Weight</th><td>{grams} g</td></tr></table>
<button id="add">Add to cart</button></main>
<footer><p>Northwind Outfitters, 12 Harbour Road</p></footer>
<script src="/analytics.js"></script>{tail}</body></html>
"""

_FETCH_JS = """(function () {
  var url = location.pathname.replace(/\\.html$/, '.ld.json');
  fetch(url).then(function (r) { return r.text(); }).then(function (text) {
    var s = document.createElement('script');
    s.type = 'application/ld+json';
    s.textContent = text;
    document.head.appendChild(s);
  });
})();
"""

_INSERT_JS = """window.addEventListener('load', function () {
  var data = document.getElementById('product-data');
  var s = document.createElement('script');
  s.type = 'application/ld+json';
  s.text = JSON.stringify({'@context': 'https://schema.org', '@type': 'Product',
    name: data.getAttribute('data-name'), sku: data.getAttribute('data-sku'),
    offers: {'@type': 'Offer', price: data.getAttribute('data-price'), priceCurrency: 'USD'}});
  document.head.appendChild(s);
});
"""


def _product(n: int) -> dict[str, str]:
    name, category = _PRODUCTS[n % len(_PRODUCTS)]
    return {
        "name": f"{name} {n}",
        "category": category,
        "price": f"{40 + n * 7}.00",
        "sku": f"NW-{n:04d}",
        "grams": str(300 + n * 11),
        "slug": f"{name.lower().replace(' ', '-')}-{n}",
    }


def _json_ld(p: dict[str, str]) -> str:
    return json.dumps(
        {
            "@context": "https://schema.org",
            "@type": "Product",
            "name": p["name"],
            "sku": p["sku"],
            "offers": {"@type": "Offer", "price": p["price"], "priceCurrency": "USD"},
        }
    )


def _site(root: Path, kind: str) -> Path:
    site = root / kind
    (site / "products").mkdir(parents=True)
    (site / "analytics.js").write_text("window.dataLayer = window.dataLayer || [];\n")
    (site / "site.css").write_text("body { font-family: sans-serif; }\n")
    (site / "ld.js").write_text(_FETCH_JS)
    (site / "insert.js").write_text(_INSERT_JS)
    for n in range(PAGES):
        p = _product(n)
        head = tail = ""
        if kind == "control":
            head = f'<script type="application/ld+json">{_json_ld(p)}</script>'
        elif kind == "fetch":
            tail = '<script src="/ld.js"></script>'
            (site / "products" / f"{p['slug']}.ld.json").write_text(_json_ld(p))
        else:
            tail = (
                f'<div id="product-data" hidden data-name="{p["name"]}" data-sku="{p["sku"]}" '
                f'data-price="{p["price"]}"></div><script src="/insert.js"></script>'
            )
        page = _PAGE.format(head=head, tail=tail, **p)
        (site / "products" / f"{p['slug']}.html").write_text(page)
    return site


_STATE = (
    '{"product": {"@context": "https://schema.org", "@type": "Product", "name": "Ridge Pack 40", '
    '"sku": "NW-RP-40", "offers": {"@type": "Offer", "price": "129.00", "priceCurrency": "USD"}}}'
)
_SHELL = (
    '<!doctype html><html><head><title>Ridge Pack 40</title></head><body><div id="root"></div>'
    f'<script>window.__INITIAL_STATE__ = {_STATE};</script><script src="/app.js"></script>'
    "</body></html>"
)
_SERVED = (
    "<!doctype html><html><head><title>Ridge Pack 40</title></head><body><main><h1>Ridge Pack 40"
    "</h1><p>A forty litre pack for long weekends, with a frame sheet and a rain cover.</p>"
    f"</main><script>window.__INITIAL_STATE__ = {_STATE};</script></body></html>"
)


def _app_site(root: Path) -> Path:
    """Application state that exists only as a JavaScript assignment: an app shell (an empty
    mount point) and a server-rendered page (only the audit renders it)."""
    site = root / "app"
    (site / "p").mkdir(parents=True)
    (site / "app.js").write_text(
        "document.getElementById('root').textContent = window.__INITIAL_STATE__.product.name;\n"
    )
    (site / "p" / "shell-40.html").write_text(_SHELL)
    (site / "p" / "served-40.html").write_text(_SERVED)
    return site


def _sitemap(site: Path, base: str) -> None:
    if site.name == "app":
        paths = ["p/shell-40.html", "p/served-40.html"]
    else:
        paths = [f"products/{_product(n)['slug']}.html" for n in range(PAGES)]
    urls = "".join(f"<url><loc>{base}{path}</loc></url>" for path in paths)
    (site / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?><urlset '
        f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    )


def _read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture(scope="module")
def chromium() -> None:
    problem = locate_chromium(None).problem()
    require(problem is None, f"the audit tests render pages in Chromium: {problem}")


@pytest.fixture(scope="module")
def crawl(chromium, tmp_path_factory):
    root = tmp_path_factory.mktemp("audit-sites")
    out = tmp_path_factory.mktemp("audit-out")
    sites = {kind: _site(root, kind) for kind in ("fetch", "insert", "control")}
    sites["app"] = _app_site(root)
    servers = {kind: BackgroundServer(site).start() for kind, site in sites.items()}
    try:
        bases = {kind: server.url for kind, server in servers.items()}
        for kind, site in sites.items():
            _sitemap(site, bases[kind])
        sitemaps = ",".join(f"{bases[k]}sitemap.xml" for k in sites)
        code = run_crawl(
            None,
            out,
            "-a",
            f"sitemap={sitemaps}",
            "-a",
            "depth=0",
            "-s",
            "AUTOTHROTTLE_ENABLED=False",
            "-s",
            "DOWNLOAD_DELAY=0",
            timeout=280,
        )
    finally:
        for server in servers.values():
            server.stop()
    log = (out / "crawl.log").read_text()
    stats = {k: int(v) for k, v in re.findall(r"'(structcrawl/[^']+)': (\d+)", log)}
    return {
        "code": code,
        "log": log,
        "bases": bases,
        "pages": _read(out / "pages.jsonl"),
        "records": _read(out / "records.jsonl"),
        "stats": stats,
        "report": json.loads((out / "report" / "report.json").read_text()),
    }


def _site_of(crawl: dict, url: str) -> str:
    return next(kind for kind, base in crawl["bases"].items() if url.startswith(base))


@pytest.mark.timeout(300)
def test_the_crawl_succeeds(crawl):
    assert crawl["code"] == 0, crawl["log"][-3000:]


@pytest.mark.timeout(300)
def test_script_sites_end_with_their_json_ld(crawl):
    with_ld: dict[str, set[str]] = {kind: set() for kind in crawl["bases"]}
    for record in crawl["records"]:
        if record.get("kind") == "entity" and record["type"] == ["Product"]:
            if record["format"] in ("json-ld", "network-json"):
                with_ld[_site_of(crawl, record["source_url"])].add(record["source_url"])
    assert len(with_ld["control"]) == PAGES
    # every product page of both script sites, learned from the audit or audited itself
    assert len(with_ld["fetch"]) >= PAGES - 1, sorted(with_ld["fetch"])
    assert len(with_ld["insert"]) >= PAGES - 1, sorted(with_ld["insert"])


@pytest.mark.timeout(300)
def test_control_pages_are_mostly_not_rendered(crawl):
    control = [p for p in crawl["pages"] if _site_of(crawl, p["url"]) == "control"]
    rendered = [p for p in control if p["fetched_with"] == "browser"]
    assert len(control) == PAGES
    assert 1 <= len(rendered) <= 4
    assert {p["fetch_reason"] for p in rendered} == {"audit"}
    for page in rendered:
        assert page["render"]["audit"]["gain"] == 0


@pytest.mark.timeout(300)
def test_the_audit_learns_the_script_sites_templates(crawl):
    stats = crawl["stats"]
    # both script sites whole (their audits gained), and the app site's template (its
    # shell escalated once, its server-rendered page gained once)
    assert stats["structcrawl/render/audit/learned_sites"] == 2
    assert stats["structcrawl/render/audit/learned_templates"] == 1
    assert stats["structcrawl/render/audit/gained"] >= 4
    assert stats["structcrawl/render/audit/without_gain"] >= 1
    script_pages = [p for p in crawl["pages"] if _site_of(crawl, p["url"]) in ("fetch", "insert")]
    rendered = {p["url"] for p in script_pages if p["fetched_with"] == "browser"}
    assert len(rendered) == 2 * PAGES  # every product page: audited, learned or fetched again
    reasons = {p["fetch_reason"] for p in script_pages if p["fetched_with"] == "browser"}
    assert reasons <= {"audit", "learned"}
    # the pages fetched over HTTP before their template was learned were fetched again
    over_http = [p for p in script_pages if p["fetched_with"] == "http"]
    assert len(over_http) <= stats.get("structcrawl/render/audit/rerendered", 0)


@pytest.mark.timeout(300)
def test_the_report_shows_the_audit(crawl):
    audit = crawl["report"]["render"]["audit"]
    stats = crawl["stats"]
    assert audit["pages"] == stats["structcrawl/render/audit/pages"] >= 6
    assert audit["learned_sites"] == 2
    assert audit["learned_templates"] == 1
    assert audit["rerendered"] == stats.get("structcrawl/render/audit/rerendered", 0)
    assert 0 < audit["browser_seconds"] <= 120


@pytest.mark.timeout(300)
def test_app_state_assigned_in_javascript_is_read_in_the_browser(crawl):
    base = crawl["bases"]["app"]
    pages = {p["url"][len(base) :]: p for p in crawl["pages"] if p["url"].startswith(base)}
    assert pages["p/shell-40.html"]["fetch_reason"] == "empty-mount"
    assert pages["p/served-40.html"]["fetch_reason"] == "audit"  # only the audit renders it
    for path, page in pages.items():
        assert page["render"]["app_state"] == [{"global": "__INITIAL_STATE__", "read": True}]
        records = [r for r in crawl["records"] if r["source_url"] == base + path]
        (product,) = [r for r in records if r["type"] == ["Product"]]
        assert product["source_element"] == "window.__INITIAL_STATE__#$.product", path
        assert product["properties"]["sku"] == "NW-RP-40"
        assert product["properties"]["offers"]["properties"]["price"] == "129.00"
    assert pages["p/served-40.html"]["render"]["audit"]["gain"] >= 1
