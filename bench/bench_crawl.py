"""Crawl throughput and memory: a bare Scrapy spider vs structcrawl's full pipeline, side by
side in one run, over the benchmark corpus served on 127.0.0.1.

    python -m bench.bench_crawl [--pages 2000,20000]

For each size: the bare spider (no extraction, JSONL of tiny items) and ``scrapy crawl site``
with every pipeline and the records + entities JSONL feeds, each in its own process (peak RSS
from wait4). Ends with one line for the largest size:
``bare_pps=N pipeline_pps=N ratio=N peak_rss_mb=N pages=N``.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_ELAPSED = re.compile(r"'elapsed_time_seconds': ([0-9.]+)")
_RESPONSES = re.compile(r"'response_received_count': (\d+)")


def _server(pages: int, tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    portfile = tmp / "port"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.corpus_server", "--pages", str(pages), "--portfile", str(portfile)]
    )
    deadline = time.monotonic() + 60
    while not (portfile.exists() and portfile.read_text()):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("corpus server did not start")
        time.sleep(0.1)
    return proc, f"http://127.0.0.1:{portfile.read_text()}"


def _run(cmd: list[str], log: Path) -> tuple[float, int, float]:
    """(pages/s, responses, peak RSS MB) of one crawl process."""
    with log.open("wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    text = log.read_text(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"{cmd[:5]} exited {code}; see {log}")
    elapsed = float(_ELAPSED.findall(text)[-1])
    responses = int(_RESPONSES.findall(text)[-1])
    return responses / elapsed, responses, usage.ru_maxrss / 1024


#: Both runs unthrottled, the same concurrency: the benchmark measures the pipeline, not the
#: polite defaults (docs/politeness.md). The bare run goes without structcrawl's add-on.
UNTHROTTLED = [
    "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "ROBOTSTXT_OBEY=False",
    "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8",
]  # fmt: skip


def measure(pages: int, tmp: Path) -> dict[str, float]:
    server, url = _server(pages, tmp)
    common = ["-s", "LOG_LEVEL=INFO", "-s", "TELNETCONSOLE_ENABLED=False", *UNTHROTTLED]
    try:
        bare = _run(
            [sys.executable, "-m", "scrapy", "runspider", "bench/bare_spider.py",
             "-a", f"sitemap={url}/sitemap.xml", "-O", str(tmp / "bare.jsonl"),
             "-s", "ADDONS={}", "-s", "ITEM_PIPELINES={}", "-s", "EXTENSIONS={}", *common],
            tmp / f"bare-{pages}.log",
        )
        full = _run(
            [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"sitemap={url}/sitemap.xml",
             "-a", "follow=/p/",
             "-O", f"{tmp / 'records.jsonl'}:records", "-O", f"{tmp / 'entities.jsonl'}:entities",
             "-s", f"STRUCTCRAWL_BODY_STORE={tmp / 'bodies'}",
             "-s", f"STRUCTCRAWL_ENTITY_STORE={tmp / 'entities.sqlite'}",
             "-s", f"STRUCTCRAWL_CHANGE_STORE={tmp / 'changes.sqlite'}",
             "-s", f"STRUCTCRAWL_REPORT_DIR={tmp / 'report'}", *common],
            tmp / f"pipeline-{pages}.log",
        )
    finally:
        os.kill(server.pid, signal.SIGTERM)
        server.wait()
    return {
        "pages": pages,
        "bare_pps": bare[0],
        "pipeline_pps": full[0],
        "ratio": full[0] / bare[0],
        "bare_rss_mb": bare[2],
        "peak_rss_mb": full[2],
        "responses": full[1],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default="2000,20000")
    args = parser.parse_args(argv)
    results = []
    for n in (int(x) for x in args.pages.split(",")):
        with tempfile.TemporaryDirectory(prefix="bench-crawl-") as tmp:
            r = measure(n, Path(tmp))
        results.append(r)
        print(
            f"{n:>6} pages: bare {r['bare_pps']:.1f} p/s ({r['bare_rss_mb']:.0f} MB)  "
            f"pipeline {r['pipeline_pps']:.1f} p/s ({r['peak_rss_mb']:.0f} MB peak)  "
            f"ratio {r['ratio']:.2f}",
            flush=True,
        )
    last = results[-1]
    print(
        f"bare_pps={last['bare_pps']:.1f} pipeline_pps={last['pipeline_pps']:.1f} "
        f"ratio={last['ratio']:.2f} peak_rss_mb={last['peak_rss_mb']:.0f} pages={last['pages']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
