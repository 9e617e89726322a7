"""The browser's memory per page (issue 27's Done-when: "the browser memory bombs end as
``too-large`` records with the crawl's process tree under 1 GB"). Pages rendered in Chromium
(application shells) whose script navigates to a 256 MiB gzip body (a few hundred kB on the
wire), to a 500 MB body without Content-Length, or builds a 200 MB DOM, all at once (4
concurrent requests), served by a small HTTP server in this process.

    python -m bench.bench_browser_bombs [--bombs gzip,big,dom,gzip] [--set NAME=VALUE] [--keep DIR]

``--bombs`` may also name ``plain``: an ordinary application shell (a script that writes a
heading and a few paragraphs), the yardstick of what Chromium takes for a page at all.

Sampled every 0.1 s over the crawl's process tree: peak RSS is the highest sum of RSS
(Chromium's processes share pages, so the sum overstates what the machine lost), peak PSS the
highest sum of PSS (shared pages divided among the processes that map them: what the tree
really holds). It can take several GB: run it alone. Ends with one line::

    pages=4 too_large=N render_failed=N other=N peak_rss_mb=N peak_pss_mb=N seconds=N
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from bench._proctree import TreeSampler

MB = 1024 * 1024
_SHELL = (
    '<html><head><title>shell</title></head><body><div id="root"></div>'
    "<script>%s</script></body></html>"
)
_GO = 'window.location = "%s";'
_PLAIN = (  # an ordinary page written by its script
    'var root = document.getElementById("root"); var h = document.createElement("h1");'
    ' h.textContent = "Rendered by script"; root.appendChild(h);'
    ' for (var i = 0; i < 20; i++) { var p = document.createElement("p");'
    ' p.textContent = "Paragraph " + i; root.appendChild(p); }'
)
_DOM = (  # 200 paragraphs of 1 MB of text
    'var s = "x".repeat(1 << 20); for (var i = 0; i < %d; i++) {'
    ' var p = document.createElement("p"); p.textContent = s + i;'
    ' document.getElementById("root").appendChild(p); }'
)


class _Bombs(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def _head(self, **headers: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        size = int(query.get("mb", "1")) * MB
        try:
            if parts.path == "/shell":  # an application shell: rendered in the browser
                to = query["to"]
                script = (
                    _DOM % (size // MB) if to == "dom" else _PLAIN if to == "plain" else _GO % to
                )
                body = (_SHELL % script).encode()
                self._head(Content_Length=str(len(body)))
                self.wfile.write(body)
            elif parts.path == "/gzip":  # a few hundred kB that inflate to ``mb``
                self._head(Content_Encoding="gzip")
                squeeze = zlib.compressobj(1, zlib.DEFLATED, 31)
                self.wfile.write(squeeze.compress(b"<html><body><p>"))
                for _ in range(size // MB):
                    self.wfile.write(squeeze.compress(b"a" * MB))
                self.wfile.write(squeeze.flush())
            elif parts.path == "/big":  # ``mb`` without Content-Length
                self._head()
                for _ in range(size // MB):
                    self.wfile.write(b"a" * MB)
            else:
                self.send_error(404)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


@contextmanager
def serve_bombs() -> Iterator[str]:
    """The bomb pages on 127.0.0.1 (a thread of this process); yields the site's URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Bombs)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


_STARTS = {
    "gzip": "/shell?to=/gzip%3Fmb=256",
    "big": "/shell?to=/big%3Fmb=500",
    "dom": "/shell?to=dom&mb=200",
    "plain": "/shell?to=plain",
}


def crawl(
    site: str,
    bombs: list[str],
    out: Path,
    extra: tuple[str, ...] = (),
    breakdown: dict[str, int] | None = None,
) -> tuple[list[dict], tuple[int, int], float]:
    """Crawl the bombs' pages; their page lines, the process tree's peak summed RSS and
    peak summed PSS (bytes), seconds; ``breakdown``, if given, gets the PSS by kind of
    process at the peak."""
    starts = [f"{site}{_STARTS[bomb]}&n={n}" for n, bomb in enumerate(bombs)]
    cmd = [
        sys.executable, "-m", "scrapy", "crawl", "site",
        "-a", "start_urls=" + ",".join(starts), "-a", "depth=0",
        "-O", f"{out / 'pages.jsonl'}:pages", "-O", f"{out / 'records.jsonl'}:records",
        "-s", f"STRUCTCRAWL_REPORT_DIR={out / 'report'}",
        "-s", "STRUCTCRAWL_BODY_STORE_ENABLED=False", "-s", "STRUCTCRAWL_CHANGES_ENABLED=False",
        "-s", "ROBOTSTXT_OBEY=False", "-s", "AUTOTHROTTLE_ENABLED=False",
        "-s", "CONCURRENT_REQUESTS=4", "-s", f"LOG_FILE={out / 'crawl.log'}",
        *[arg for setting in extra for arg in ("-s", setting)],
    ]  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "structcrawl.settings"}
    started = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with TreeSampler(proc.pid, detail=breakdown is not None) as sampler:
        proc.wait(timeout=600)
    seconds = time.monotonic() - started
    path = out / "pages.jsonl"
    pages = [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []
    if breakdown is not None:
        breakdown.update(sampler.at_peak)
        breakdown.update({f"{k} processes": v for k, v in sampler.count_at_peak.items()})
        breakdown["other chromium"] = sampler.others
    return pages, (sampler.peak, sampler.peak_pss), seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bombs", default="gzip,big,dom,gzip", help="pages, comma-separated")
    parser.add_argument("--keep", type=Path, help="write the crawl's output here")
    parser.add_argument("--set", action="append", default=[], help="a Scrapy setting NAME=VALUE")
    parser.add_argument(
        "--by-kind", action="store_true", help="also the PSS by kind of process at the peak"
    )
    args = parser.parse_args(argv)
    bombs = [b for b in args.bombs.split(",") if b]
    breakdown: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp, serve_bombs() as site:
        pages, (peak, pss), seconds = crawl(
            site, bombs, args.keep or Path(tmp) / "out", tuple(args.set), breakdown
        )
    others = breakdown.pop("other chromium", 0)
    if others:
        print(f"({others} Chromium processes outside the crawl ran meanwhile: PSS reads low)")
    codes = [(p.get("fetch_error") or {}).get("code") for p in pages]
    too_large, failed = codes.count("too-large"), codes.count("browser-render-failed")
    print(
        f"pages={len(bombs)} too_large={too_large} render_failed={failed} "
        f"other={len(bombs) - too_large - failed} peak_rss_mb={peak / MB:.0f} "
        f"peak_pss_mb={pss / MB:.0f} seconds={seconds:.0f}"
    )
    if args.by_kind:
        ranked = sorted(
            ((k, v) for k, v in breakdown.items() if not k.endswith(" processes")),
            key=lambda kv: -kv[1],
        )
        print(
            "at the peak (PSS, MB, processes): "
            + ", ".join(f"{k} {v / MB:.0f} ({breakdown[k + ' processes']})" for k, v in ranked)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
