"""Rendering only what needs it: escalation precision/recall, render speed, browser memory.

    python -m bench.bench_render [--corpus frameworks|generated|demo] [--products 40] [--keep DIR]

``frameworks`` (the default, :mod:`bench.render_corpus`) writes eight small sites built the
way React (CRA), Vue, Angular, SvelteKit, Next.js, Nuxt, a classic server-rendered shop and a
static documentation site ship their pages; a page needs the browser when its data is not in
the server HTML, a label that comes from how the page is built, not from the detector's
signals. On this corpus the detector alone (:func:`~structcrawl.render.routing.judge_response`
on every page, no crawl) is also measured, and its misclassifications are listed.

``generated`` writes a JS-heavy shop whose pages are shaped after the detector's own signals
(an empty ``#root``, a "enable JavaScript" ``noscript``, JSON-LD on the others) and whose URL
layout follows the label (``app/`` vs ``ssr/``), so its precision and recall are high by
construction: kept to compare with earlier runs, not as evidence. It serves on 127.0.0.1:
server-rendered product pages with JSON-LD (some with a hydrated ``#app`` mount,
analytics scripts, tracking-pixel ``noscript``), client-rendered product shells (empty
``#root``, JSON-LD inserted after load), listings filled from a ``fetch()`` of a JSON API, and
shells that only say "enable JavaScript" in a ``noscript``. Category pages link the products
in pages of ten, so the crawl proceeds in waves and the per-template learner can act.
``demo`` crawls fixtures/site instead (5 pages need rendering).

The crawl is the project's own (``scrapy crawl site`` at the default concurrency). Reported:
pages rendered vs pages needing it (precision and recall of escalation), escalation reasons,
render pages/s (rendered pages over the span from the first render's start to the last
one's end), and the browser's memory: the summed PSS of every chromium process under this
process, from ``/proc/<pid>/smaps_rollup``, sampled every 0.1 s (peak). Ends with one line:
``render_precision=N render_recall=N detector_precision=N detector_recall=N render_pps=N
browser_pss_mb=N`` (the detector figures are ``nan`` outside the ``frameworks`` corpus).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import threading
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

from bench.render_corpus import generate as generate_frameworks
from bench.starter_corpus import generate as generate_starters
from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer
from structcrawl.render.routing import judge_response

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "site"
DEMO_NEEDS = {
    "js/products/trailhead-daypack-20l.html",
    "js/products/ember-camp-mug.html",
    "js/products/drift-sleeping-pad.html",
    "js/deals.html",
    "js/specs/lumen-400-headlamp.html",
}

_APP_JS = """(function () {
  function ld(data) { var s = document.createElement("script"); s.type = "application/ld+json";
    s.textContent = JSON.stringify(data); document.head.appendChild(s); }
  function product(p) { ld({"@context": "https://schema.org", "@type": "Product", "name": p.name,
      "sku": p.sku, "offers": {"@type": "Offer", "price": p.price, "priceCurrency": "USD"}});
    var m = document.getElementById("root") || document.querySelector("main");
    m.innerHTML = ""; var h = document.createElement("h1"); h.textContent = p.name; m.appendChild(h); }
  function list(url) { fetch(url).then(function (r) { return r.json(); }).then(function (d) {
    var ul = document.createElement("ul"); d.items.forEach(function (i) {
      var li = document.createElement("li"); li.textContent = i.name + " " + i.offers.price; ul.appendChild(li); });
    document.getElementById("root").appendChild(ul); }); }
  window.addEventListener("load", function () { setTimeout(function () {
    if (window.P) { product(window.P); }
    if (document.body.dataset.api) { list(document.body.dataset.api); } }, 30); });
})();
"""


def _page(title: str, body: str, head: str = "", body_attrs: str = "") -> str:
    return (
        f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{title}</title>{head}"
        f"</head><body{body_attrs}><header><a href=/>Shop</a></header>{body}"
        "<footer>© bench shop</footer></body></html>"
    )


def generate(root: Path, products: int) -> set[str]:
    """Write the corpus; return the paths (relative) of the pages that need rendering."""
    needs: set[str] = set()
    (root / "static").mkdir(parents=True)
    (root / "static" / "app.js").write_text(_APP_JS)
    analytics = "<script>window.dataLayer = [{page: location.pathname}];</script>"
    pages: list[str] = []
    for i in range(products):
        name, sku, price = f"Item {i:03d}", f"B-{i:03d}", f"{10 + i}.00"
        ssr = f"ssr/product-{i:03d}.html"
        ld = json.dumps(
            {
                "@context": "https://schema.org",
                "@type": "Product",
                "name": name,
                "sku": sku,
                "offers": {"@type": "Offer", "price": price},
            }
        )
        mount = (
            f'<div id="app"><main><h1>{name}</h1><p>{price}</p></main></div>'
            if i % 3 == 0
            else f"<main><h1>{name}</h1><p>{price}</p></main>"
        )
        pixel = '<noscript><img src="/static/px.gif" alt=""></noscript>' if i % 4 == 0 else ""
        (root / ssr).parent.mkdir(parents=True, exist_ok=True)
        (root / ssr).write_text(
            _page(
                name, mount + pixel + analytics, f'<script type="application/ld+json">{ld}</script>'
            )
        )
        csr = f"app/product-{i:03d}.html"
        (root / csr).parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps({"name": name, "sku": sku, "price": price})
        (root / csr).write_text(
            _page(
                name,
                f'<div id="root"></div><script>window.P = {data};</script>'
                '<script src="/static/app.js"></script>',
            )
        )
        pages += [ssr, csr]
        needs.add(csr)
        if i % 4 == 0:
            spa = f"spa/page-{i:03d}.html"
            (root / spa).parent.mkdir(parents=True, exist_ok=True)
            (root / spa).write_text(
                _page(
                    name,
                    "<main><p>Loading…</p></main><noscript>Please "
                    "enable JavaScript to use this shop.</noscript>"
                    f"<script>window.P = {data};</script>"
                    '<script src="/static/app.js"></script>',
                )
            )
            pages.append(spa)
            needs.add(spa)
        if i % 5 == 0:
            listing = f"app/list-{i:03d}.html"
            api = root / "api" / f"list-{i:03d}.json"
            api.parent.mkdir(parents=True, exist_ok=True)
            items = [
                {
                    "@type": "Product",
                    "name": f"Item {j:03d}",
                    "offers": {"@type": "Offer", "price": f"{10 + j}.00"},
                }
                for j in range(i, min(i + 5, products))
            ]
            api.write_text(json.dumps({"items": items}))
            (root / listing).write_text(
                _page(
                    "List",
                    '<div id="root"></div><script src="/static/app.js"></script>',
                    body_attrs=f' data-api="/api/list-{i:03d}.json"',
                )
            )
            pages.append(listing)
            needs.add(listing)
    chunks = [pages[i : i + 10] for i in range(0, len(pages), 10)]
    for n, chunk in enumerate(chunks):
        links = "".join(f'<li><a href="/{p}">{p}</a></li>' for p in chunk)
        more = f'<a href="/cat/{n + 1}.html">more</a>' if n + 1 < len(chunks) else ""
        (root / "cat").mkdir(exist_ok=True)
        (root / "cat" / f"{n}.html").write_text(_page(f"Category {n}", f"<ul>{links}</ul>{more}"))
    (root / "index.html").write_text(_page("Bench shop", '<a href="/cat/0.html">All products</a>'))
    return needs


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def browser_pss_kb(root_pid: int) -> int:
    """Summed PSS of the chromium processes under ``root_pid``."""
    tree = _children()
    stack, total = list(tree.get(root_pid, [])), 0
    while stack:
        pid = stack.pop()
        stack.extend(tree.get(pid, []))
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            if "chrom" not in comm and "headless" not in comm:
                continue
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            continue
    return total


class Sampler(threading.Thread):
    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.samples: list[int] = []

    def run(self) -> None:
        while not self.stop.wait(0.1):
            pss = browser_pss_kb(os.getpid())
            if pss:
                self.samples.append(pss)


def detector_figures(site: Path, needs: set[str]) -> tuple[float, float]:
    """The detector alone on every HTML page of the corpus (as served, status 200): prints
    its misclassifications and returns ``(precision, recall)``."""
    flagged: set[str] = set()
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    for page in pages:
        verdict = judge_response(
            (site / page).read_bytes(), f"http://127.0.0.1/{page}", "text/html; charset=utf-8", 200
        )
        if verdict.js_only:
            flagged.add(page)
        if verdict.js_only != (page in needs):
            kind = "false positive" if verdict.js_only else "missed"
            print(f"  detector {kind}: {page} ({verdict.reason or ', '.join(verdict.signals)})")
    hits = len(flagged & needs)
    print(
        f"detector alone: {len(pages)} pages, {len(needs)} need the browser, "
        f"{len(flagged)} flagged, {hits} correctly"
    )
    return (hits / len(flagged) if flagged else 0.0), (hits / len(needs) if needs else 1.0)


def _time(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", choices=["starters", "frameworks", "generated", "demo"], default="starters"
    )
    parser.add_argument(
        "--products",
        type=int,
        default=40,
        help="products of the generated corpus (per site: a sixth of it)",
    )
    parser.add_argument("--keep", help="write the corpus and the crawl output here")
    args = parser.parse_args(argv)
    work = Path(args.keep or tempfile.mkdtemp(prefix="bench-render-"))
    if args.keep and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    rules: tuple[str, ...] = ()
    detector = (float("nan"), float("nan"))
    if args.corpus == "demo":
        site, needs = DEMO, set(DEMO_NEEDS)
        rules = ("-s", f"STRUCTCRAWL_RULES_DIR={DEMO / 'rules'}")  # its click rule, as make demo
    elif args.corpus == "starters":  # real starter shells, real server-rendered pages
        site = work / "site"
        needs = generate_starters(site)
        detector = detector_figures(site, needs)
        rules = ("-a", "depth=1")  # the index and the pages it links, not their links
    elif args.corpus == "frameworks":
        site = work / "site"
        needs = generate_frameworks(site, max(2, args.products // 6))
        detector = detector_figures(site, needs)
    else:  # generated: built from the detector's own signals (1.0/1.0 by construction)
        site = work / "site"
        needs = generate(site, args.products)
    out = work / "out"
    sampler = Sampler()
    with BackgroundServer(site) as server:
        sampler.start()
        started = time.monotonic()
        code = run_crawl(  # unthrottled: the benchmark measures rendering, not politeness
            server.url, out, *rules, "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0",
            "-s", "ROBOTSTXT_OBEY=False", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8", timeout=900,
        )  # fmt: skip
        elapsed = time.monotonic() - started
        sampler.stop.set()
        sampler.join()
        base = server.url
    pages = [json.loads(x) for x in (out / "pages.jsonl").read_text().splitlines()]
    html = [p for p in pages if p.get("payload_kind") in ("html", None)]
    # the render audit's samples are not routing decisions: counted apart
    audited = {p["final_url"][len(base) :] for p in pages if p["fetch_reason"] == "audit"}
    rendered = {
        p["final_url"][len(base) :]
        for p in pages
        if p["fetched_with"] == "browser" and p["fetch_reason"] != "audit"
    }
    hits = len(rendered & needs)
    precision = hits / len(rendered) if rendered else 0.0
    recall = hits / len(needs) if needs else 1.0
    spans = [
        (_time(p["retrieved_at"]) - (p["latency"] or 0), _time(p["retrieved_at"]))
        for p in pages
        if p["fetched_with"] == "browser" and p["latency"] is not None
    ]
    span = max(e for _, e in spans) - min(s for s, _ in spans) if spans else 0.0
    pps = len(spans) / span if span else 0.0
    pss_mb = max(sampler.samples, default=0) / 1024
    mean_mb = (sum(sampler.samples) / len(sampler.samples) / 1024) if sampler.samples else 0.0
    reasons = Counter(p["fetch_reason"] for p in pages if p["fetched_with"] == "browser")
    errors = Counter(p["fetch_error"]["code"] for p in pages if p["fetch_error"])
    waits = Counter(
        bool((p.get("render") or {}).get("wait", {}).get("met"))
        for p in pages
        if p["fetched_with"] == "browser"
    )
    render_ms = sorted(p["render"]["render_ms"] for p in pages if p.get("render"))
    print(
        f"corpus: {args.corpus} ({site}), crawl exit {code}, {len(pages)} pages "
        f"({len(html)} HTML) in {elapsed:.1f} s"
    )
    print(f"pages needing the browser: {len(needs)}; rendered: {len(rendered)}; both: {hits}")
    print(f"  rendered without needing it: {sorted(rendered - needs)}")
    print(f"  needing it, not rendered:     {sorted(needs - rendered)}")
    print(
        f"render audit: {len(audited)} pages sampled ({len(audited & needs)} needing it): "
        f"{sorted(audited)}"
    )
    print(
        f"escalation reasons: {dict(reasons)}; fetch errors: {dict(errors)}; "
        f"wait met: {waits.get(True, 0)}/{sum(waits.values())}"
    )
    if render_ms:
        print(
            f"render time per page: median {render_ms[len(render_ms) // 2]} ms, "
            f"max {render_ms[-1]} ms; render span {span:.2f} s"
        )
    print(
        f"browser PSS: peak {pss_mb:.0f} MB, mean {mean_mb:.0f} MB over {len(sampler.samples)} samples"
    )
    print(
        f"render_precision={precision:.3f} render_recall={recall:.3f} "
        f"detector_precision={detector[0]:.3f} detector_recall={detector[1]:.3f} "
        f"render_pps={pps:.2f} browser_pss_mb={pss_mb:.0f} audited={len(audited)}"
    )
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if code == 0 else code


if __name__ == "__main__":
    raise SystemExit(main())
