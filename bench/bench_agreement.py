"""Items and entities of one crawl agree (issue "One truth per thing"): the real product pages
(``../shared/corpus/products/``) served on 127.0.0.1, crawled by the command people run
(``structcrawl crawl --sitemap URL -o DIR --depth 0``); every primary Product item of
``items.jsonl`` must name a line of ``entities.jsonl`` (``entityKey``) whose ``offers.price``,
``offers.priceCurrency``, ``offers.availability`` and ``sku`` equal the item's ``price``,
``currency``, ``availability`` and ``sku``, or both lines show a conflict on that field.

    python -m bench.bench_agreement [--show]

Ends with one line: ``primary_products= agree= no_entity= price= currency= availability= sku=
items= items_named= entities=`` (the four field counts are disagreements).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.score_items import norm

ROOT = Path(__file__).resolve().parents[1]
FIELDS = (
    ("price", "offers.price"),
    ("currency", "offers.priceCurrency"),
    ("availability", "offers.availability"),
    ("sku", "sku"),
)


def comparable(field: str, value: Any) -> Any:
    """An item or entity value as the check compares it (one value of a list, a literal's or
    reference's text, a price as a decimal, an availability by its enum name)."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, dict):
        value = value.get("@value", value.get("@id"))
    if value is None:
        return None
    if field == "price":
        return norm("price", value)
    if field == "availability":
        return str(value).rsplit("/", 1)[-1]
    return str(value).strip()


def _at(entity: dict[str, Any], path: str) -> Any:
    value: Any = entity.get("properties") or {}
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def agreement(out: Path, show: bool = False) -> dict[str, int]:
    """Counts of the check described in the module doc, over one crawl's output folder."""
    entities = [json.loads(x) for x in (out / "entities.jsonl").read_text().splitlines() if x]
    items = [json.loads(x) for x in (out / "items.jsonl").read_text().splitlines() if x]
    lines = {e["key"]: e for e in entities}
    named = {k: e for e in entities for k in e.get("keys") or [e["key"]]}
    counts = {"primary_products": 0, "agree": 0, "no_entity": 0}
    counts.update({f: 0 for f, _ in FIELDS})
    for item in items:
        if item.get("type") != "Product" or item.get("role") != "primary":
            continue
        counts["primary_products"] += 1
        entity = lines.get(item.get("entityKey"))
        if entity is None:
            counts["no_entity"] += 1
            continue
        conflicted = {c.get("field") for c in entity.get("conflicts") or []}
        good = True
        for field, path in FIELDS:
            mine, theirs = comparable(field, item.get(field)), comparable(field, _at(entity, path))
            both = field in (item.get("conflicts") or {}) and path in conflicted
            if mine != theirs and not both:
                counts[field] += 1
                good = False
                if show:
                    print(f"{field}: item {mine!r}, entity {theirs!r}  {item.get('page_url')}")
        counts["agree"] += good
    counts["items"] = len(items)
    counts["items_named"] = sum(1 for i in items if i.get("entityKey") in named)
    counts["entities"] = len(entities)
    return counts


def _serve(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    portfile = tmp / "port"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.products_server", "--portfile", str(portfile)], cwd=ROOT
    )
    deadline = time.monotonic() + 60
    while not (portfile.exists() and portfile.read_text()):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("product pages server did not start")
        time.sleep(0.1)
    return proc, f"http://127.0.0.1:{portfile.read_text()}/sitemap.xml"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print each disagreement")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="structcrawl-agree-") as name:
        tmp = Path(name)
        server, sitemap = _serve(tmp)
        try:
            cmd = [
                str(Path(sys.executable).with_name("structcrawl")), "crawl", "--sitemap", sitemap,
                "-o", str(tmp / "out"), "--depth", "0", "-s", "AUTOTHROTTLE_ENABLED=False",
                "-s", "DOWNLOAD_DELAY=0", "-s", "ROBOTSTXT_OBEY=False",
            ]  # fmt: skip
            done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
            if done.returncode != 0:
                print(done.stderr[-2000:], file=sys.stderr)
                return done.returncode
            counts = agreement(tmp / "out", show=args.show)
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(" ".join(f"{k}={v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
