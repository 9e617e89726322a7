"""``make demo``: serve the bundled demo site on 127.0.0.1, crawl it, write the feeds.

    python -m structcrawl.dev.demo --site fixtures/site --out output [--port 8765] [--rules DIR]

The demo site's rules (time zone, a selector rule, a click rule) live with the site, in
``<site>/rules/`` (``--rules`` names another directory), and are passed to the crawl as
``STRUCTCRAWL_RULES_DIR``: no packaged rules claim the local host the demo is served on.

Writes ``<out>/entities.jsonl`` and ``entities.csv`` (one line per deduplicated entity),
``<out>/items.jsonl`` (one line per typed item per page),
``<out>/records.jsonl`` (one line per record), ``<out>/pages.jsonl`` (one line per page), raw
bodies under ``<out>/bodies/``, the quality report under ``<out>/report/`` and the crawl log;
prints where they are and a summary. Exits non-zero when the crawl fails or accounts for no page.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import sys
from collections import Counter
from pathlib import Path

from structcrawl.crawl.child import run_child
from structcrawl.dev.devserver import BackgroundServer
from structcrawl.spiders import project_spider_modules

__all__ = ["add_arguments", "main", "run", "run_crawl", "summarize"]


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        # as the dev server binds (allow_reuse_address): the connections of a demo that just
        # ended (TIME_WAIT) do not take its port, so a second `make demo` crawls the same URLs
        # and reuses their rendered snapshots
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def run_crawl(
    start_url: str | None, out: Path, *extra: str, timeout: float = 600, spider: str = "site"
) -> int:
    """Run ``scrapy crawl SPIDER`` in a child process writing the records and pages feeds.

    ``extra`` are more ``scrapy crawl`` arguments (``-a sitemap=...``, ``-s NAME=value``)."""
    out.mkdir(parents=True, exist_ok=True)
    start = ["-a", f"start_urls={start_url}"] if start_url else []
    cmd = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        spider,
        *start,
        "-O",
        f"{out / 'records.jsonl'}:records",
        "-O",
        f"{out / 'pages.jsonl'}:pages",
        "-O",
        f"{out / 'entities.jsonl'}:entities",
        "-O",
        f"{out / 'entities.csv'}:entities-csv",
        "-O",
        f"{out / 'items.jsonl'}:items",
        "-s",
        f"STRUCTCRAWL_ENTITY_STORE={out / 'state' / 'entities.sqlite'}",
        "-s",  # entity fingerprints of the previous run in <out> (structcrawl.changes)
        f"STRUCTCRAWL_CHANGE_STORE={out / 'state' / 'changes.sqlite'}",
        "-s",
        f"STRUCTCRAWL_REPORT_DIR={out / 'report'}",
        "-s",
        f"STRUCTCRAWL_BODY_STORE={out / 'bodies'}",
        "-s",
        f"LOG_FILE={out / 'crawl.log'}",
        "-s",
        "LOG_LEVEL=INFO",
        *extra,
    ]
    return run_child(cmd, timeout=timeout).code  # ends with this process (structcrawl.crawl.child)


def _layered_product(items: list[dict[str, object]]) -> dict[str, object] | None:
    """The first product item assembled from the most layers, with its conflicts."""
    products = [i for i in items if i.get("type") == "Product" and i.get("role") == "primary"]
    if not products:
        return None

    def layers(item: dict[str, object]) -> list[str]:
        sources = item.get("sources")
        return sorted({str(s["layer"]) for s in sources}) if isinstance(sources, list) else []

    best = max(products, key=lambda i: len(layers(i)))
    conflicts = best.get("conflicts")
    return {
        "page": best.get("page_url"),
        "name": best.get("name"),
        "price": best.get("price"),
        "currency": best.get("currency"),
        "layers": layers(best),
        "conflicts": conflicts if isinstance(conflicts, dict) else {},
    }


def summarize(out: Path) -> dict[str, object]:
    records = [
        json.loads(line) for line in (out / "records.jsonl").read_text().splitlines() if line
    ]
    pages = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines() if line]
    entities_file = out / "entities.jsonl"
    entities = (
        [json.loads(line) for line in entities_file.read_text().splitlines() if line]
        if entities_file.exists()
        else []
    )
    items_file = out / "items.jsonl"
    items = (
        [json.loads(line) for line in items_file.read_text().splitlines() if line]
        if items_file.exists()
        else []
    )
    return {
        "pages": len(pages),
        "items": dict(Counter(i["type"] for i in items if i.get("role") == "primary")),
        "product_from_layers": _layered_product(items),
        "pages_by_payload": dict(Counter(p.get("payload_kind") or "none" for p in pages)),
        "pages_by_fetch": dict(Counter(p.get("fetched_with") or "http" for p in pages)),
        "entities": len(entities),
        "entities_with_conflicts": sum(1 for e in entities if e.get("conflicts")),
        "entities_invalid": sum(
            1 for e in entities if (e.get("validation") or {}).get("valid") is False
        ),
        "records": len(records),
        "records_by_format": dict(Counter(r["format"] for r in records if r["kind"] == "entity")),
        "errors": dict(Counter(r["error"]["code"] for r in records if r["kind"] == "error")),
        "skips": dict(Counter(r["error"]["code"] for r in records if r["kind"] == "skip")),
        "repairs": dict(Counter(x for r in records for x in r["repairs"])),
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--site", default="fixtures/site", help="folder of the demo site (default fixtures/site)"
    )
    parser.add_argument("--out", default="output", help="output folder (default output)")
    parser.add_argument(
        "--port", type=int, default=8765, help="port on 127.0.0.1 (default 8765; any if taken)"
    )
    parser.add_argument(
        "--rules", default=None, help="site rules directory (default: <site>/rules)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="crawl the bundled demo site")
    add_arguments(parser)
    return run(parser.parse_args(argv))


def _demo_spider() -> str:
    """The checkout's ``demo`` spider (top-level ``spiders/``), else the packaged ``site``."""
    return "demo" if project_spider_modules() else "site"


def run(args: argparse.Namespace) -> int:
    """Serve the demo site, crawl it, print where the output is (``structcrawl demo``)."""
    out = Path(args.out)
    rules = Path(args.rules) if args.rules else Path(args.site) / "rules"
    if (out / "bodies").exists():
        shutil.rmtree(out / "bodies")
    out.mkdir(parents=True, exist_ok=True)
    port = args.port if _port_free(args.port) else 0
    with BackgroundServer(args.site, port) as server:
        print(f"demo site: serving {args.site} at {server.url}")
        rules_dir = f"STRUCTCRAWL_RULES_DIR={rules.resolve()}"
        code = run_crawl(server.url, out, "-s", rules_dir, spider=_demo_spider())
    if code != 0:
        print(f"crawl failed (exit {code}); see {out / 'crawl.log'}", file=sys.stderr)
        return code
    summary = summarize(out)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    print(f"entities:     {(out / 'entities.jsonl').resolve()} (and entities.csv)")
    print(f"items:        {(out / 'items.jsonl').resolve()} (one line per typed item per page)")
    print(f"records feed: {(out / 'records.jsonl').resolve()}")
    print(f"pages feed:   {(out / 'pages.jsonl').resolve()}")
    print(f"raw bodies:   {(out / 'bodies').resolve()}")
    print(f"crawl log:    {(out / 'crawl.log').resolve()}")
    print(f"quality report: {(out / 'report' / 'report.html').resolve()}")
    if not summary["pages"]:
        print("the crawl accounted for no page", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
