"""A render-routing corpus written from how real sites are built, not from the detector.

:func:`generate` writes eight small sites under one folder, each the way its framework or CMS
ships pages, and returns the pages whose data is **not in the server's HTML**. That label comes
from how each page is built (where the product's name and price are put), never from the
signals :mod:`structcrawl.render.routing` looks for:

* the data is in the server HTML when the product's name and price are in the HTML as text,
  as JSON-LD / Microdata, or as a JSON data block (``<script type="application/json">``);
  such a page needs no browser, whatever scripts or ``<noscript>`` notices it also carries;
* the data is not in the server HTML when only JavaScript puts it there: fetched from an API
  after load (XHR/fetch), or held in a JavaScript assignment (``window.__STATE__ = {...}``),
  which an extractor that never runs page JavaScript cannot read.

The sites (``/<site>/...``, each with an index page linking its pages):

``react``    Create React App: ``<div id="root">`` and CRA's noscript notice; the product is
             fetched from ``/react/api/<slug>.json``. All client-rendered.
``vue``      Vue CLI SPA: ``<div id="app">`` and Vue's "doesn't work properly without
             JavaScript" notice, product fetched; the blog is server-rendered static HTML.
``angular``  Angular CLI: ``<app-root>`` (empty, or holding a "Loading..." spinner), data in
             ``window.__STATE__`` or fetched. All client-rendered.
``svelte``   SvelteKit: SPA-mode pages (an empty ``<div style="display: contents">`` and an
             inline module that starts the app, data fetched) and prerendered pages (the same
             wrapper holding the rendered product).
``next``     Next.js: server-rendered product pages (``__NEXT_DATA__`` holding the product,
             the markup rendered) and client-only account/search pages (``__NEXT_DATA__`` with
             empty ``pageProps``, data fetched).
``nuxt``     Nuxt 3: SSR pages (rendered markup plus the ``__NUXT_DATA__`` payload) and
             ``ssr: false`` pages (empty ``#__nuxt``, a payload holding only config).
``classic``  A server-rendered shop (jQuery, a tag manager, inline analytics, a
             "please enable JavaScript" ``<noscript>``, some pages with JSON-LD, some without
             any structured data), plus category grids and a store finder whose items arrive
             by XHR only.
``static``   Plain documentation pages: text, no scripts.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["generate"]

_RENDER_JS = """(function () {
  function show(p) {
    var s = document.createElement("script"); s.type = "application/ld+json";
    s.textContent = JSON.stringify({"@context": "https://schema.org", "@type": "Product",
      "name": p.name, "sku": p.sku, "offers": {"@type": "Offer", "price": p.price,
      "priceCurrency": "EUR"}});
    document.head.appendChild(s);
    var m = document.querySelector(window.MOUNT || "#root");
    var h = document.createElement("h1"); h.textContent = p.name;
    var q = document.createElement("p"); q.textContent = p.price + " EUR";
    m.appendChild(h); m.appendChild(q);
  }
  function list(items) {
    var m = document.querySelector(window.MOUNT || "#root");
    var ul = document.createElement("ul");
    items.forEach(function (i) { var li = document.createElement("li");
      li.textContent = i.name + " " + i.price; ul.appendChild(li); });
    m.appendChild(ul);
  }
  window.addEventListener("load", function () {
    if (window.__STATE__) { show(window.__STATE__.product); return; }
    var url = window.DATA_URL; if (!url) { return; }
    fetch(url).then(function (r) { return r.json(); }).then(function (d) {
      if (d.items) { list(d.items); } else { show(d); } });
  });
})();
"""

_GTM = (
    "<script>(function(w,d,s,l,i){w[l]=w[l]||[];w[l].push({'gtm.start':new Date().getTime(),"
    "event:'gtm.js'});})(window,document,'script','dataLayer','GTM-XXXX');</script>"
)
_ANALYTICS = (
    "<script>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push("
    "arguments);} gtag('js', new Date()); gtag('config', 'G-BENCH');</script>"
)
_JQUERY = '<script src="/static/jquery.min.js"></script>'


def _doc(title: str, body: str, head: str = "", body_attrs: str = "") -> str:
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f'<meta name="viewport" content="width=device-width,initial-scale=1">{head}</head>'
        f"<body{body_attrs}>{body}</body></html>"
    )


def _product(i: int) -> dict[str, str]:
    return {"name": f"Trail Kettle {i:03d}", "sku": f"TK-{i:03d}", "price": f"{19 + i}.90"}


def _jsonld(p: dict[str, str]) -> str:
    data = {
        "@context": "https://schema.org",
        "@type": "Product",
        "name": p["name"],
        "sku": p["sku"],
        "offers": {"@type": "Offer", "price": p["price"], "priceCurrency": "EUR"},
    }
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def _rendered(p: dict[str, str]) -> str:
    return (
        f'<main class="product"><h1>{p["name"]}</h1><p class="price">{p["price"]} EUR</p>'
        "<p>Enamelled steel, 1.2 litres, works on every hob including induction. Ships in two "
        "working days; free returns within thirty days.</p></main>"
    )


def _client(mount: str, data: str, extra_head: str = "") -> str:
    """Head scripts of a client-rendered page: where to mount and where the data is."""
    return f"<script>window.MOUNT = {json.dumps(mount)}; {data}</script>{extra_head}"


class _Site:
    def __init__(self, root: Path, name: str) -> None:
        self.root, self.name, self.pages, self.needs = root, name, [], set()

    def write(self, rel: str, html: str, *, needs_browser: bool) -> None:
        if "." not in rel.rsplit("/", 1)[-1]:
            rel += ".html"  # the bench's static server types a file by its extension
        path = self.root / self.name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8")
        page = f"{self.name}/{rel}"
        self.pages.append(page)
        if needs_browser:
            self.needs.add(page)

    def api(self, rel: str, data: object) -> str:
        path = self.root / self.name / "api" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data), encoding="utf-8")
        return f"/{self.name}/api/{rel}"

    def index(self) -> None:
        links = "".join(f'<li><a href="/{p}">{p}</a></li>' for p in self.pages)
        (self.root / self.name / "index.html").write_text(
            _doc(self.name, f"<h1>{self.name}</h1><ul>{links}</ul>"), encoding="utf-8"
        )


_APP = '<script src="/static/render.js" defer></script>'


def _react(site: _Site, n: int) -> None:
    notice = "<noscript>You need to enable JavaScript to run this app.</noscript>"
    for i in range(n):
        url = site.api(f"p-{i}.json", _product(i))
        head = _client("#root", f"window.DATA_URL = {json.dumps(url)};", _APP)
        site.write(
            f"p/{i}", _doc("Shop", f'{notice}<div id="root"></div>', head), needs_browser=True
        )


def _vue(site: _Site, n: int) -> None:
    notice = (
        "<noscript><strong>We're sorry but shop doesn't work properly without JavaScript "
        "enabled. Please enable it to continue.</strong></noscript>"
    )
    for i in range(n):
        url = site.api(f"p-{i}.json", _product(i))
        head = _client("#app", f"window.DATA_URL = {json.dumps(url)};", _APP)
        site.write(
            f"product/{i}.html",
            _doc("shop", f'{notice}<div id="app"></div>', head),
            needs_browser=True,
        )
    for i in range(max(2, n // 2)):
        body = (
            f"<header><a href='/vue/'>Shop blog</a></header><article><h1>Brewing notes {i}</h1>"
            "<p>Bring the water to just under a boil and let it rest a minute before pouring; "
            "a kettle with a thick base keeps the temperature steady.</p></article>"
        )
        site.write(f"blog/{i}.html", _doc(f"Notes {i}", body), needs_browser=False)


def _angular(site: _Site, n: int) -> None:
    for i in range(n):
        p = _product(i)
        if i % 2:
            data = f"window.__STATE__ = {json.dumps({'product': p})};"
            root = "<app-root></app-root>"
        else:
            data = f"window.DATA_URL = {json.dumps(site.api(f'p-{i}.json', p))};"
            root = '<app-root><div class="spinner">Loading...</div></app-root>'
        head = _client("app-root", data, '<script src="/static/render.js" type="module"></script>')
        site.write(
            f"items/{i}", _doc("Shop", root, head, ' class="mat-typography"'), needs_browser=True
        )


def _svelte(site: _Site, n: int) -> None:
    start = '<script type="module">import("/static/render.js");</script>'
    for i in range(n):
        p = _product(i)
        if i % 2:
            url = site.api(f"p-{i}.json", p)
            head = _client("div[style]", f"window.DATA_URL = {json.dumps(url)};")
            body = f'<div style="display: contents">{start}</div>'
            site.write(
                f"products/{i}",
                _doc("Shop", body, head, ' data-sveltekit-preload-data="hover"'),
                needs_browser=True,
            )
        else:
            body = f'<div style="display: contents">{_rendered(p)}{start}</div>'
            site.write(
                f"products/{i}",
                _doc(p["name"], body, _jsonld(p), ' data-sveltekit-preload-data="hover"'),
                needs_browser=False,
            )


def _next(site: _Site, n: int) -> None:
    chunks = (
        '<script src="/static/render.js" defer></script>'
        '<script src="/_next/static/chunks/webpack.js" defer></script>'
    )
    for i in range(n):
        p = _product(i)
        state = {
            "props": {"pageProps": {"product": p}},
            "page": "/p/[slug]",
            "query": {"slug": p["sku"].lower()},
            "buildId": "bench",
            "isFallback": False,
        }
        next_data = (
            f'<script id="__NEXT_DATA__" type="application/json">{json.dumps(state)}</script>'
        )
        site.write(
            f"p/{p['sku'].lower()}",
            _doc(p["name"], f'<div id="__next">{_rendered(p)}</div>{next_data}{chunks}'),
            needs_browser=False,
        )
    for i in range(max(2, n // 2)):
        url = site.api(f"orders-{i}.json", {"items": [_product(j) for j in range(i, i + 3)]})
        state = {
            "props": {"pageProps": {}},
            "page": "/account/orders",
            "query": {},
            "buildId": "bench",
            "nextExport": True,
            "autoExport": True,
        }
        next_data = (
            f'<script id="__NEXT_DATA__" type="application/json">{json.dumps(state)}</script>'
        )
        head = _client("#__next", f"window.DATA_URL = {json.dumps(url)};")
        site.write(
            f"account/orders-{i}",
            _doc("Orders", f'<div id="__next"></div>{next_data}{chunks}', head),
            needs_browser=True,
        )


def _nuxt(site: _Site, n: int) -> None:
    entry = '<script type="module" src="/static/render.js" crossorigin></script>'
    for i in range(n):
        p = _product(i)
        if i % 2 == 0:
            payload = json.dumps([{"data": 1, "state": 2}, {"product": 3}, {}, p])
            body = (
                f'<div id="__nuxt">{_rendered(p)}</div><script type="application/json" '
                f'id="__NUXT_DATA__" data-ssr="true">{payload}</script>'
            )
            site.write(f"shop/{i}", _doc(p["name"], body, entry), needs_browser=False)
        else:
            url = site.api(f"p-{i}.json", p)
            payload = json.dumps([{"config": 1}, {"public": 2, "app": 3}, {}, {"baseURL": "/"}])
            body = (
                f'<div id="__nuxt"></div><script type="application/json" id="__NUXT_DATA__" '
                f'data-ssr="false">{payload}</script>'
            )
            head = _client("#__nuxt", f"window.DATA_URL = {json.dumps(url)};", entry)
            site.write(f"shop/{i}", _doc("Shop", body, head), needs_browser=True)


def _classic(site: _Site, n: int) -> None:
    notice = (
        "<noscript><p class='notice'>Please enable JavaScript in your browser for the "
        "best experience on our site.</p></noscript>"
    )
    nav = "<nav><a href='/classic/'>Home</a> <a href='/classic/stores.html'>Stores</a></nav>"
    head = _GTM + _ANALYTICS + _JQUERY
    for i in range(n):
        p = _product(i)
        layer = _jsonld(p) if i % 2 == 0 else ""
        inline = (
            "<script>$(function(){ $('.gallery').slick({dots:true}); "
            "window.dataLayer.push({ecommerce:{detail:{}}}); });</script>"
        )
        body = f"{nav}{notice}{_rendered(p)}<div class='gallery'></div>{inline}"
        site.write(f"product.php/{i}", _doc(p["name"], body, head + layer), needs_browser=False)
    for c in range(max(2, n // 3)):
        url = site.api(f"grid-{c}.json", {"items": [_product(j) for j in range(c, c + 6)]})
        grid = (
            f"{nav}<h1>Kettles, page {c + 1}</h1><p>All our kettles, from compact travel "
            "models to large family ones, sorted by popularity.</p>"
            '<div class="product-grid"></div>' + notice
        )
        page_head = head + _client(".product-grid", f"window.DATA_URL = {json.dumps(url)};", _APP)
        site.write(f"category.php/{c}", _doc("Kettles", grid, page_head), needs_browser=True)
    url = site.api(
        "stores.json", {"items": [{"name": f"Store {k}", "price": ""} for k in range(4)]}
    )
    finder = (
        f"{nav}<h1>Find a store</h1><div id='map' class='map'></div><ul class='store-list'></ul>"
    )
    page_head = head + _client(".store-list", f"window.DATA_URL = {json.dumps(url)};", _APP)
    site.write("stores.html", _doc("Stores", finder, page_head), needs_browser=True)


def _static(site: _Site, n: int) -> None:
    for i in range(n):
        body = (
            f"<h1>Care guide {i}</h1><p>Descale the kettle once a month with a mix of "
            "water and citric acid; rinse twice before the next use.</p><ul><li>Do not "
            "overfill</li><li>Dry the base</li></ul>"
        )
        site.write(f"guide/{i}.html", _doc(f"Guide {i}", body), needs_browser=False)


_SITES = {
    "react": _react,
    "vue": _vue,
    "angular": _angular,
    "svelte": _svelte,
    "next": _next,
    "nuxt": _nuxt,
    "classic": _classic,
    "static": _static,
}


def generate(root: Path, per_site: int = 6) -> set[str]:
    """Write the corpus under ``root``; return the pages (paths relative to ``root``, without
    a leading slash) whose data is not in their server HTML. The site indexes and the front
    page (``index.html``) are plain HTML that needs no browser."""
    (root / "static").mkdir(parents=True, exist_ok=True)
    (root / "static" / "render.js").write_text(_RENDER_JS, encoding="utf-8")
    (root / "static" / "jquery.min.js").write_text(
        "window.$ = window.jQuery = function (f) { if (typeof f === 'function') { f(); } "
        "return {slick: function () {}}; };",
        encoding="utf-8",
    )
    (root / "_next" / "static" / "chunks").mkdir(parents=True, exist_ok=True)
    (root / "_next" / "static" / "chunks" / "webpack.js").write_text("/* chunk */", "utf-8")
    needs: set[str] = set()
    for name, build in _SITES.items():
        site = _Site(root, name)
        build(site, per_site)
        site.index()
        needs |= site.needs
    links = "".join(f'<li><a href="/{name}/index.html">{name}</a></li>' for name in _SITES)
    (root / "index.html").write_text(_doc("Sites", f"<ul>{links}</ul>"), encoding="utf-8")
    return needs
