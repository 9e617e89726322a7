"""Load test: one large crawl (20,000 pages by default) of the benchmark corpus served on
127.0.0.1, with the full pipeline (every item pipeline, the records, pages and entities feeds,
the body store, the quality report, the page ledger), watching the crawl's memory.

    python -m bench.bench_load [--pages 20000] [--jobdir] [--keep DIR]

The crawl runs in its own process (``scrapy crawl site`` over the site's sitemap); its
resident memory (``VmRSS``) is sampled twice a second together with the number of lines in
the pages feed, and its peak comes from ``wait4``. At the end the page ledger is checked
against the pages feed (every requested URL exactly once, every page in the feed). Prints the
RSS samples at 10 %, 20 %, ... of the pages, then one machine-readable line::

    pages=20000 pps=N peak_rss_mb=N rss_2k_mb=N rss_end_mb=N ledger_ok=1

``rss_2k_mb`` is the RSS when the pages feed reached 2,000 lines (10 % for smaller runs),
``rss_end_mb`` the last sample before the crawl ended (the entities are written by then).
``--jobdir`` runs the crawl as a resumable job (JOBDIR: disk queue and the job journal).
Exits 1 when the crawl fails, logs an error (even after its stats) or the ledger check fails.
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

from structcrawl.ledger.check import check_ledger
from structcrawl.ledger.pages import read_jsonl

_ELAPSED = re.compile(r"'elapsed_time_seconds': ([0-9.]+)")


def _server(pages: int, tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    portfile = tmp / "port"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.corpus_server", "--pages", str(pages),
         "--portfile", str(portfile)]
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not (portfile.exists() and portfile.read_text()):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("corpus server did not start")
        time.sleep(0.1)
    return proc, f"http://127.0.0.1:{portfile.read_text()}"


def _rss_mb(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    return int(match.group(1)) / 1024 if match else None


class _LineCounter:
    """Complete lines of a growing file, reading only what was appended."""

    def __init__(self, path: Path):
        self.path, self.offset, self.lines = path, 0, 0

    def count(self) -> int:
        try:
            with self.path.open("rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return self.lines
        self.offset += len(chunk)
        self.lines += chunk.count(b"\n")
        return self.lines


def crawl(pages: int, tmp: Path, jobdir: bool) -> dict[str, object]:
    server, url = _server(pages, tmp)
    out = tmp / "out"
    out.mkdir()
    cmd = [
        sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"sitemap={url}/sitemap.xml",
        "-a", "follow=/p/",
        "-O", f"{out / 'records.jsonl'}:records", "-O", f"{out / 'pages.jsonl'}:pages",
        "-O", f"{out / 'entities.jsonl'}:entities",
        "-s", f"STRUCTCRAWL_BODY_STORE={out / 'bodies'}",
        "-s", f"STRUCTCRAWL_ENTITY_STORE={out / 'state' / 'entities.sqlite'}",
        "-s", f"STRUCTCRAWL_CHANGE_STORE={out / 'state' / 'changes.sqlite'}",
        "-s", f"STRUCTCRAWL_REPORT_DIR={out / 'report'}",
        "-s", f"LOG_FILE={out / 'crawl.log'}", "-s", "LOG_LEVEL=INFO",
        # the load test measures memory and throughput, not the polite defaults
        "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0", "-s", "ROBOTSTXT_OBEY=False",
        "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8",
    ]  # fmt: skip
    if jobdir:
        cmd = ["-o" if c == "-O" else c for c in cmd]  # a job appends to its feeds
        cmd += ["-s", f"JOBDIR={out / 'job'}", "-s", "STRUCTCRAWL_ENTITY_STORE="]
    samples: list[tuple[float, int, float]] = []  # (seconds, pages written, RSS MB)
    counter = _LineCounter(out / "pages.jsonl")
    started = time.monotonic()
    try:
        proc = subprocess.Popen(cmd)
        status, usage = 0, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            rss = _rss_mb(proc.pid)
            if rss is not None:
                samples.append((time.monotonic() - started, counter.count(), rss))
            time.sleep(0.5)
        proc.returncode = os.waitstatus_to_exitcode(status)
    finally:
        os.kill(server.pid, signal.SIGTERM)
        server.wait()
    log = (out / "crawl.log").read_text(errors="replace")
    elapsed = float(_ELAPSED.findall(log)[-1]) if _ELAPSED.search(log) else float("nan")
    written = read_jsonl(out / "pages.jsonl")
    check = check_ledger(read_jsonl(out / "report" / "ledger.jsonl"), written)
    mark = max(min(2000, pages // 10), 1)
    at_mark = next((rss for _, n, rss in samples if n >= mark), float("nan"))
    return {
        "pages": len(written),
        "pps": len(written) / elapsed,
        "elapsed": elapsed,
        "peak_rss_mb": usage.ru_maxrss / 1024 if usage is not None else float("nan"),
        "rss_mark": mark,
        "rss_2k_mb": at_mark,
        "rss_end_mb": samples[-1][2] if samples else float("nan"),
        "samples": samples,
        "exit_code": proc.returncode,
        # anything logged as an error, even after the stats (the exit code misses those)
        "log_errors": len(re.findall(r"\] (?:ERROR|CRITICAL):|^Traceback", log, re.M)),
        "ledger_ok": check.ok and check.requested == pages + 1 and len(written) == pages,
        "ledger_problems": check.problems[:10],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20000)
    parser.add_argument("--jobdir", action="store_true", help="run as a resumable job")
    parser.add_argument("--keep", help="keep the crawl's output in this directory")
    args = parser.parse_args(argv)
    if args.keep:
        tmp = Path(args.keep)
        tmp.mkdir(parents=True, exist_ok=True)
        result = crawl(args.pages, tmp, args.jobdir)
    else:
        with tempfile.TemporaryDirectory(prefix="bench-load-") as name:
            result = crawl(args.pages, Path(name), args.jobdir)
    samples = result["samples"]
    assert isinstance(samples, list)
    print(f"{'pages':>7} {'seconds':>8} {'rss_mb':>7}")
    for tenth in range(1, 11):
        want = args.pages * tenth // 10
        row = next((s for s in samples if s[1] >= want), samples[-1] if samples else None)
        if row is not None:
            print(f"{row[1]:>7} {row[0]:>8.0f} {row[2]:>7.0f}")
    print(
        f"exit code {result['exit_code']}, {result['log_errors']} errors logged, "
        f"{result['elapsed']:.0f} s of crawl, "
        f"RSS at {result['rss_mark']} pages {result['rss_2k_mb']:.0f} MB",
        *result["ledger_problems"],  # type: ignore[misc]
        sep="\n  ",
    )
    ok = bool(result["ledger_ok"]) and result["exit_code"] == 0 and not result["log_errors"]
    print(
        f"pages={result['pages']} pps={result['pps']:.1f} "
        f"peak_rss_mb={result['peak_rss_mb']:.0f} rss_2k_mb={result['rss_2k_mb']:.0f} "
        f"rss_end_mb={result['rss_end_mb']:.0f} ledger_ok={int(ok)}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
