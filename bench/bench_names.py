"""Memory of a crawl whose pages choose many distinct names (issue 27): ``--pages`` pages
(60), each a JSON-LD thing of its own type with ``--names`` property names of its own (20,000)
and a Microdata item with as many more, crawled by the full pipeline (every item pipeline,
the records, pages, entities and items feeds, the body, entity and change stores, the report,
the ledger), as ``tests/test_bounded.py`` does.

    python -m bench.bench_names [--pages 60] [--names 20000] [--set NAME=VALUE ...] [--keep DIR]

The pages are served on 127.0.0.1 (``/p/<i>.html``, listed by ``/sitemap.xml``); the crawl
runs ``scrapy crawl site -a sitemap=URL -a depth=0`` with 4 concurrent requests and no
browser. Peak RSS is the highest sum of RSS over the crawl's process tree, sampled every
0.1 s from /proc; ``crawl_peak_mb`` the crawl process's own peak RSS (``wait4``);
``memusage/max`` is Scrapy's figure from ``report.json`` (sampled once a minute: it misses the
end of the crawl, where the entities are emitted). ``--set`` adds a Scrapy setting (``--set STRUCTCRAWL_ENTITIES_ENABLED=False``
measures without the entity merge). Ends with one line::

    pages=60 names=20000 peak_rss_mb=N crawl_peak_mb=N memusage_max_mb=N stats_keys=N ...
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._proctree import TreeSampler

ROOT = Path(__file__).resolve().parents[1]


def page(i: int, names: int) -> bytes:
    """A page of its own type (``Thing<i>``), ``names`` JSON-LD properties and as many
    Microdata ones, every name its own (``p<i>x<j>``, ``m<i>x<j>``)."""
    props = ", ".join(f'"p{i}x{j}": "v"' for j in range(names))
    micro = "".join(f'<span itemprop="m{i}x{j}">v</span>' for j in range(names))
    return (
        '<html><head><script type="application/ld+json">{"@context": '
        f'"https://schema.org", "@type": "Thing{i}", {props}}}</script></head><body>'
        f'<div itemscope itemtype="https://schema.org/Thing">{micro}</div></body></html>'
    ).encode()


def serve(argv: list[str]) -> int:
    from bench import _pageserver

    pages, names, portfile = int(argv[0]), int(argv[1]), argv[2]
    return _pageserver.serve(pages, lambda i: ("text/html", page(i, names)), 0, portfile)


def _server(pages: int, names: int, tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    portfile = tmp / "port"
    portfile.unlink(missing_ok=True)  # a kept folder's last run
    cmd = [sys.executable, "-m", "bench.bench_names", "--serve", str(pages), str(names)]
    proc = subprocess.Popen([*cmd, str(portfile)], cwd=ROOT)
    deadline = time.monotonic() + 60
    while not (portfile.exists() and portfile.read_text()):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("page server did not start")
        time.sleep(0.1)
    return proc, f"http://127.0.0.1:{portfile.read_text()}/sitemap.xml"


def crawl(sitemap: str, out: Path, settings: list[str]) -> dict[str, float]:
    """Run the crawl; its figures (exits when the crawl fails)."""
    out.mkdir(parents=True, exist_ok=True)
    feeds = ("records", "pages", "entities", "items")
    cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"sitemap={sitemap}"]
    cmd += ["-a", "depth=0", "-s", "STRUCTCRAWL_RENDER_ENABLED=False"]
    cmd += ["-s", "CONCURRENT_REQUESTS=4", "-s", "LOG_LEVEL=INFO"]
    for feed in feeds:
        cmd += ["-O", f"{out / feed}.jsonl:{feed}"]
    for name, where in (
        ("ENTITY_STORE", "state/entities.sqlite"),
        ("CHANGE_STORE", "state/changes.sqlite"),
        ("REPORT_DIR", "report"),
        ("BODY_STORE", "bodies"),
    ):
        cmd += ["-s", f"STRUCTCRAWL_{name}={out / where}"]
    cmd += ["-s", f"LOG_FILE={out / 'crawl.log'}"]
    for setting in settings:
        cmd += ["-s", setting]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCRAPY_", "STRUCTCRAWL_"))}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    with TreeSampler(proc.pid) as sampler:
        _, status, usage = os.wait4(proc.pid, 0)  # the crawl process's own peak, exact
    code = proc.returncode = os.waitstatus_to_exitcode(status)
    log = out / "crawl.log"
    if code != 0:
        sys.exit(f"the crawl exited {code}; see {log}")
    report = out / "report" / "report.json"
    stats = json.loads(report.read_bytes())["stats"]
    return {
        "peak_rss_mb": sampler.peak / 2**20,
        "crawl_peak_mb": usage.ru_maxrss / 1024,
        "memusage_max_mb": stats.get("memusage/max", 0) / 2**20,
        "stats_keys": len(stats),
        "report_mb": report.stat().st_size / 2**20,
        "log_mb": log.stat().st_size / 2**20,
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:
        return serve(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--names", type=int, default=20000)
    parser.add_argument("--set", action="append", default=[], help="NAME=VALUE, a setting")
    parser.add_argument("--keep", help="keep the crawl's output in this folder")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-names-") as scratch:
        tmp = Path(args.keep or scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        server, sitemap = _server(args.pages, args.names, tmp)
        try:
            figures = crawl(sitemap, tmp / "out", args.set)
        finally:
            os.kill(server.pid, signal.SIGTERM)
            server.wait()
    line = " ".join(
        f"{k}={v:.0f}" if not isinstance(v, float) or v >= 10 else f"{k}={v:.3g}"
        for k, v in figures.items()
    )
    print(f"pages={args.pages} names={args.names} {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
