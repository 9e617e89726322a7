"""Churn simulation of the distributed frontier (``make bench-frontier``; docs/scale.md).

On 127.0.0.1 only: its own redis-server (no persistence), the generated site of
``bench/_frontier_site.py`` (thousands of hosts by name: ``h<i>.frontier.test`` resolves to
127.0.0.1 in the workers, ``bench/_localresolver.py``, and nowhere else).

1. **Seed** the frontier with ``--urls`` URLs (``--hosts`` hosts), straight into Redis through
   the Bloom filter and the host queue the workers use (the same code, pipelined).
2. **Measure** the Redis memory of the filter and of the queue per URL, the filter's
   false-positive rate on ``--probe`` URLs it never saw (at full load: the worst case), and,
   on ``--compare`` URLs, scrapy-redis's set and the former priority queue for comparison.
3. **Churn**: ``--workers`` workers (``scrapy runspider bench/spiders/frontier_spider.py``)
   fetch for ``--run`` seconds with ``DOWNLOAD_DELAY=--delay`` and one request per host at a
   time, shared; ``--kills`` times one of them is killed with SIGKILL and a new one started;
   then all are stopped with SIGINT (they hand their claims back). Redis memory is sampled
   every second.
4. **Account** from the site's log of arrivals: ``lost`` = seeded URLs neither fetched nor
   still queued or claimed; ``duplicates`` = fetches of a URL fetched before, over fetches;
   ``max_host_rate`` = the highest rate any host saw (1 / the shortest gap between two of its
   fetches, all workers together) against ``allowed_host_rate`` (1 / ``--delay``).

Ends with ``urls= filter_bytes_per_url= queue_bytes_per_url= false_positive_rate= workers=
kills= lost= duplicates= dead_workers= requeued= max_host_rate= allowed_host_rate=``.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import redis
from scrapy import Request
from scrapy.utils.request import fingerprint

from bench._frontier_redis import Memory, frontier_memory, redis_server, remaining
from structcrawl.distributed import _serial
from structcrawl.distributed.bloom import BloomDupeFilter, BloomSize
from structcrawl.distributed.config import CrawlKeys
from structcrawl.distributed.frontier import HostFrontier

ROOT = Path(__file__).resolve().parent.parent
SPIDER = ROOT / "bench" / "spiders" / "frontier_spider.py"
CRAWL = "frontier-bench"


class _Stats(dict[str, int]):
    def inc_value(self, key: str, count: int = 1) -> None:
        self[key] = self.get(key, 0) + count


def _url(host: int, page: int, port: int) -> str:
    return f"http://h{host}.frontier.test:{port}/p/{page}"


def _bloom(client: redis.Redis, base: str, urls: int, rate: float) -> BloomDupeFilter:
    size = BloomSize.of(urls, rate)
    return BloomDupeFilter(client, base, size, sample=1024, fingerprint=fingerprint, stats=_Stats())


def fast_fingerprint(url: str) -> bytes:
    """Scrapy's default fingerprint of ``GET url`` for a URL already canonical (checked
    against ``scrapy.utils.request.fingerprint`` on a sample by :func:`seed`)."""
    data = {"method": "GET", "url": url, "body": "", "headers": {}}
    return hashlib.sha1(json.dumps(data, sort_keys=True).encode()).digest()  # noqa: S324


def seed(client: redis.Redis, args: Any, port: int) -> tuple[set[str], int]:
    """Seed every URL, hosts interleaved, through the filter and the host queue the workers
    use (batches of 2,000 per call); returns the admitted URLs and how many distinct seeds
    the filter refused (false positives while filling)."""
    keys = CrawlKeys.of(CRAWL)
    bloom = _bloom(client, keys.base, args.urls, args.error_rate)
    frontier = HostFrontier(client, keys, args.delay, 1, expire=86400)
    template = Request("http://h0.frontier.test/").to_dict()
    pages = args.urls // args.hosts
    rng = random.Random(1)
    for _ in range(200):  # the shortcut gives Scrapy's fingerprints
        url = _url(rng.randrange(args.hosts), rng.randrange(pages), port)
        assert fast_fingerprint(url) == fingerprint(Request(url)), url
    admitted: set[str] = set()
    refused = 0
    urls = (_url(host, page, port) for page in range(pages) for host in range(args.hosts))
    while batch := list(itertools.islice(urls, 2000)):
        outcomes = bloom.add_many([fast_fingerprint(url) for url in batch])
        new = [url for url, outcome in zip(batch, outcomes, strict=True) if outcome]
        refused += len(batch) - len(new)
        admitted.update(new)
        frontier.share_many([{**template, "url": url} for url in new])
    return admitted, refused


def probe(client: redis.Redis, args: Any, port: int) -> float:
    """False-positive rate of the full filter on URLs it never saw."""
    bloom = _bloom(client, CrawlKeys.of(CRAWL).base, args.urls, args.error_rate)
    hits = 0
    for start in range(0, args.probe, 5000):
        pipe = client.pipeline(transaction=False)
        for i in range(start, min(start + 5000, args.probe)):
            bloom.contains(fast_fingerprint(_url(i % args.hosts, 10**6 + i, port)), pipe)
        hits += sum(int(x) for x in pipe.execute())
    return hits / args.probe


def compare(client: redis.Redis, args: Any, port: int) -> tuple[float, float]:
    """Bytes per URL of scrapy-redis's fingerprint set and of the former priority queue."""
    keys = CrawlKeys.of("frontier-compare")
    pipe = client.pipeline(transaction=False)
    for i in range(args.compare):
        request = Request(_url(i % args.hosts, i // args.hosts, port))
        pipe.sadd(keys.dupefilter, fingerprint(request).hex())
        pipe.zadd(keys.queue, {_serial.dumps(request.to_dict()): -request.priority})
        if len(pipe) >= 10000:
            pipe.execute()
    pipe.execute()
    out = (
        client.memory_usage(keys.dupefilter, samples=0) / args.compare,
        client.memory_usage(keys.queue, samples=0) / args.compare,
    )
    client.delete(keys.dupefilter, keys.queue)
    return out


def _worker(args: Any, url: str, tmp: Path, n: int) -> subprocess.Popen[bytes]:
    settings = {
        "STRUCTCRAWL_REDIS_URL": url,
        "STRUCTCRAWL_CRAWL_ID": CRAWL,
        "STRUCTCRAWL_REDIS_QUEUE": "hosts",
        "STRUCTCRAWL_REDIS_HEARTBEAT": "0.5",
        "STRUCTCRAWL_REDIS_WORKER_TIMEOUT": "2",
        "STRUCTCRAWL_REDIS_EXPECTED_URLS": str(args.urls),
        "STRUCTCRAWL_REDIS_BLOOM_ERROR_RATE": str(args.error_rate),
        "DOWNLOAD_DELAY": str(args.delay),
        "CONCURRENT_REQUESTS": str(args.concurrency),
        "CONCURRENT_REQUESTS_PER_DOMAIN": "1",
        "TWISTED_DNS_RESOLVER": "bench._localresolver.LocalResolver",  # process-wide: here
        "LOG_LEVEL": "INFO",
        "LOG_FILE": str(tmp / f"worker-{n}.log"),
    }
    cmd = [sys.executable, "-m", "scrapy", "runspider", str(SPIDER)]
    for name, value in settings.items():
        cmd += ["-s", f"{name}={value}"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        cmd, cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def churn(args: Any, url: str, tmp: Path, client: redis.Redis) -> int:
    """Run the workers, kill and restart some; returns the kills. The run's clock starts
    when the first request is claimed (a worker takes seconds to start)."""
    started = 0
    workers = []
    for _ in range(args.workers):
        workers.append(_worker(args, url, tmp, started))
        started += 1
    claims = CrawlKeys.of(CRAWL).claims_prefix + "*"
    deadline = time.monotonic() + 120
    while not any(client.scan_iter(match=claims)) and time.monotonic() < deadline:
        time.sleep(0.2)
    rng = random.Random(26)
    kills = 0
    step = args.run / (args.kills + 1)
    for _ in range(args.kills):
        time.sleep(step)
        victim = rng.randrange(len(workers))
        os.kill(workers[victim].pid, signal.SIGKILL)
        workers[victim].wait()
        kills += 1
        workers[victim] = _worker(args, url, tmp, started)
        started += 1
    time.sleep(step)
    for proc in workers:
        os.kill(proc.pid, signal.SIGINT)
    for proc in workers:
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
    return kills


def rates(log: list[tuple[float, str, str]]) -> float:
    """The highest rate a host saw: 1 / the shortest gap between two of its fetches."""
    times: dict[str, list[float]] = defaultdict(list)
    for when, host, _ in log:
        times[host].append(when)
    shortest = float("inf")
    for series in times.values():
        series.sort()
        for a, b in zip(series, series[1:], strict=False):
            shortest = min(shortest, b - a)
    return 0.0 if shortest == float("inf") else 1 / max(shortest, 1e-6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--hosts", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--run", type=float, default=120.0, help="seconds of fetching")
    parser.add_argument("--delay", type=float, default=20.0, help="DOWNLOAD_DELAY per host")
    parser.add_argument("--concurrency", type=int, default=2, help="CONCURRENT_REQUESTS")
    parser.add_argument("--error-rate", type=float, default=0.0005)
    parser.add_argument("--probe", type=int, default=200_000)
    parser.add_argument("--compare", type=int, default=100_000)
    parser.add_argument("--keep", action="store_true", help="keep the logs (printed)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-frontier-"))
    try:
        with redis_server(tmp / "redis") as url:
            run(args, url, tmp)
    finally:
        if args.keep:
            print(f"logs kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def run(args: Any, url: str, tmp: Path) -> None:
    client = redis.Redis.from_url(url)
    site = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench._frontier_site",
            str(args.hosts),
            str(args.urls // args.hosts),
            str(tmp / "port"),
            str(tmp / "site.log"),
        ],
        cwd=ROOT,
    )
    try:
        while not (tmp / "port").exists() or not (tmp / "port").read_text():
            time.sleep(0.05)
        port = int((tmp / "port").read_text())
        memory = Memory(client)
        t0 = time.monotonic()
        admitted, seed_fp = seed(client, args, port)
        print(
            f"seeded {len(admitted)} URLs in {time.monotonic() - t0:.0f} s "
            f"({seed_fp} distinct seeds refused while filling)",
            flush=True,
        )
        keys = CrawlKeys.of(CRAWL)
        bloom = _bloom(client, keys.base, args.urls, args.error_rate)
        filter_bytes = sum(client.memory_usage(k, samples=0) or 0 for k in bloom.keys)
        queue_bytes = frontier_memory(client, keys)
        fp_rate = probe(client, args, port)
        set_bytes, zset_bytes = compare(client, args, port)
        print(
            f"per URL: bloom {filter_bytes / args.urls:.2f} B, scrapy-redis set "
            f"{set_bytes:.1f} B; host queue {queue_bytes / len(admitted):.1f} B, priority "
            f"queue {zset_bytes:.1f} B; used_memory {memory.per_url(len(admitted)):.1f} B",
            flush=True,
        )
        memory.start()
        t1 = time.monotonic()
        kills = churn(args, url, tmp, client)
        memory.stop()
        os.kill(site.pid, signal.SIGTERM)
        site.wait(timeout=60)
        log = [
            (float(w), h, p)
            for w, h, p in (line.split() for line in (tmp / "site.log").read_text().splitlines())
        ]
        fetched = Counter(f"{h} {p}" for _, h, p in log)
        left = remaining(client, keys)
        seeded = {f"{u.split('/')[2].split('.')[0]} {u.rsplit('/', 1)[1]}" for u in admitted}
        lost = len(seeded - set(fetched) - left)
        dups = sum(n - 1 for n in fetched.values())
        dead = {k: int(v) for k, v in client.hgetall(keys.dead_workers).items()}
        fastest = rates(log)
        print(
            f"fetched {len(fetched)} URLs ({len(log)} fetches) on "
            f"{len({h for _, h, _ in log})} hosts in {time.monotonic() - t1:.0f} s; "
            f"{len(left)} left in the frontier; redis used_memory peak "
            f"{memory.peak / 2**20:.0f} MiB over {len(memory.samples)} samples; shortest gap "
            f"between two fetches of a host {1 / fastest if fastest else 0:.3f} s",
            flush=True,
        )
    finally:
        if site.poll() is None:
            os.kill(site.pid, signal.SIGTERM)
            site.wait(timeout=60)
        client.close()
    print(
        f"urls={args.urls} filter_bytes_per_url={filter_bytes / args.urls:.2f} "
        f"queue_bytes_per_url={queue_bytes / len(admitted):.1f} "
        f"false_positive_rate={fp_rate:.5f} workers={args.workers} kills={kills} lost={lost} "
        f"duplicates={dups / max(len(log), 1):.5f} dead_workers={len(dead)} "
        f"requeued={sum(dead.values())} max_host_rate={fastest:.5f} "
        f"allowed_host_rate={1 / args.delay:.5f}"
    )


if __name__ == "__main__":
    threading.current_thread().name = "bench-frontier"
    main()
