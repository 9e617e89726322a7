"""End to end: a worker of a distributed crawl of the demo site is killed with SIGKILL mid-crawl
(issue 15). The requests it had claimed are leases in Redis: a survivor puts them back in the
queue once its heartbeat has expired, and the crawl completes. Every URL that a single-worker
crawl of the same site lists in its pages feed is in one of the workers' pages feeds (the killed
worker's finished pages are in its own feed: feeds flush each line); a few may appear twice.

Runs with two workers (one killed) and with three (one killed), each worker with its own feeds
and stores, against a redis-server and the demo site (``structcrawl.dev.devserver``), both
child processes on 127.0.0.1 stopped by PID. The killed worker's Chromium processes are killed
by PID too. Under ``CI=true`` a missing redis-server or Chromium fails the test.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from structcrawl.dev.devserver import BackgroundServer
from structcrawl.ledger.pages import read_jsonl
from structcrawl.render.browser import locate_chromium
from tests.servers import require
from tests.test_browser_kill import _descendants
from tests.test_distributed_store import redis_server

pytestmark = pytest.mark.crawl

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "fixtures" / "site"
RULES = SITE / "rules"  # the demo's site rules (time zone, selector and click rules)
TIMEOUT = 240
KILL_AFTER = 5  # lines in the victim's pages feed
MAX_TWICE = 4


def command(site: str, out: Path, *settings: str) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    args = [
        sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start_urls={site}",
        "-O", f"{out / 'pages.jsonl'}:pages", "-O", f"{out / 'records.jsonl'}:records",
    ]  # fmt: skip
    values = {
        "STRUCTCRAWL_BODY_STORE": out / "bodies",
        "STRUCTCRAWL_ENTITY_STORE": out / "entities.sqlite",
        "STRUCTCRAWL_CHANGE_STORE": out / "changes.sqlite",
        "STRUCTCRAWL_REPORT_DIR": out / "report",
        "DOWNLOAD_DELAY": "0.3",
        "CONCURRENT_REQUESTS_PER_DOMAIN": "2",
        "LOG_FILE": out / "crawl.log",
        "LOG_LEVEL": "INFO",
    }
    if RULES.is_dir():
        values["STRUCTCRAWL_RULES_DIR"] = RULES
    for name, value in values.items():
        args += ["-s", f"{name}={value}"]
    for setting in settings:
        args += ["-s", setting]
    return args


def feed(out: Path) -> list[str]:
    """URLs of the pages feed (a torn last line, from a killed worker, left out)."""
    path = out / "pages.jsonl"
    return [p["url"] for p in read_jsonl(path)] if path.exists() else []


def kill_tree(pid: int) -> None:
    """SIGKILL a worker and the processes under it (its Chromium), by PID."""
    for child in [pid, *_descendants(pid)]:
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def chromium() -> None:
    problem = locate_chromium(None).problem()
    require(problem is None, f"the demo crawl renders pages in Chromium: {problem}")
    require(Path("/proc/self/stat").exists(), "finding the browser's processes needs /proc")


@pytest.fixture(scope="module")
def site(chromium):
    with BackgroundServer(SITE) as server:
        yield server.url


@pytest.fixture(scope="module")
def reference(site, tmp_path_factory) -> set[str]:
    out = tmp_path_factory.mktemp("single")
    code = subprocess.run(command(site, out), cwd=ROOT, timeout=TIMEOUT, check=False).returncode
    assert code == 0, (out / "crawl.log").read_text()[-3000:]
    urls = feed(out)
    assert len(urls) == len(set(urls)) >= 25
    return set(urls)


def crawl_killing_one(site: str, tmp: Path, workers: int) -> dict:
    """``workers`` workers on one Redis; the first to write KILL_AFTER pages is killed."""
    outs = [tmp / f"w{i}" for i in range(workers)]
    with redis_server(tmp / "redis") as url:
        shared = (
            f"STRUCTCRAWL_REDIS_URL={url}", f"STRUCTCRAWL_CRAWL_ID=kill-{uuid.uuid4().hex[:8]}",
            "STRUCTCRAWL_REDIS_WORKER_TIMEOUT=5",
        )  # fmt: skip
        procs = [
            subprocess.Popen(command(site, out, *shared), cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=(out / "stderr.txt").open("wb"))
            for out in outs
        ]  # fmt: skip
        victim, seen_at_kill = -1, 0
        try:
            deadline = time.monotonic() + TIMEOUT
            while victim < 0:
                assert time.monotonic() < deadline, "the crawl did not get going"
                assert all(p.poll() is None for p in procs), "a worker ended before the kill"
                counts = [len(feed(out)) for out in outs]
                if max(counts) >= KILL_AFTER:
                    victim = counts.index(max(counts))
                    seen_at_kill = len({u for out in outs for u in feed(out)})
                    kill_tree(procs[victim].pid)
                    procs[victim].wait()
                time.sleep(0.1)
            codes = [p.wait(timeout=TIMEOUT) if i != victim else None for i, p in enumerate(procs)]
        finally:
            for proc in procs:
                if proc.poll() is None:
                    kill_tree(proc.pid)
                    proc.wait()
    return {"outs": outs, "codes": codes, "victim": victim, "pid": procs[victim].pid,
            "seen_at_kill": seen_at_kill}  # fmt: skip


def check(run: dict, reference: set[str]) -> Counter[str]:
    outs, victim = run["outs"], run["victim"]
    survivors = [out for i, out in enumerate(outs) if i != victim]
    for out, code in zip(survivors, [c for c in run["codes"] if c is not None], strict=True):
        assert code == 0, (out / "crawl.log").read_text()[-4000:]
    assert run["seen_at_kill"] < len(reference)  # killed mid-crawl
    urls = Counter(u for out in outs for u in feed(out))
    missing = reference - set(urls)
    assert not missing, f"lost with the killed worker: {sorted(missing)}"
    twice = {u: n for u, n in urls.items() if n > 1}
    assert sum(n - 1 for n in twice.values()) <= MAX_TWICE, twice
    logs = "\n".join((out / "crawl.log").read_text() for out in survivors)
    named = re.findall(r"worker (\S+) stopped sending heartbeats.*; (\d+) requests it had", logs)
    assert [w.split(":")[1] for w, _ in named] == [str(run["pid"])], named
    assert f"'structcrawl/distributed/requeued': {named[0][1]}" in logs
    assert "'structcrawl/distributed/dead_workers': 1" in logs
    assert "'structcrawl/failure/distributed/workers'" not in logs
    return urls


@pytest.mark.timeout(600)
@pytest.mark.parametrize("workers", [2, 3])
def test_a_killed_worker_loses_no_page(site, reference, tmp_path, workers):
    run = crawl_killing_one(site, tmp_path, workers)
    urls = check(run, reference)
    victim_pages = feed(run["outs"][run["victim"]])
    print(
        f"kill_test workers={workers} single={len(reference)} union={len(set(urls))} "
        f"twice={sum(n - 1 for n in urls.values())} victim_pages={len(victim_pages)} "
        f"seen_at_kill={run['seen_at_kill']}"
    )
    assert victim_pages  # its finished pages stayed in its feed file
