"""The Done-when figures of ``make bench-frontier`` (issue 26) on a small frontier: the bench
itself (``bench/bench_frontier.py``: its own redis-server and generated site on 127.0.0.1,
four worker processes, two killed with SIGKILL and replaced), 20,000 URLs on 200 hosts for
40 s. The full run (1,000,000 URLs) is measured in docs/scale.md; this one keeps its
guarantees from regressing: a compact filter near its target rate, no URL lost, a page
fetched twice only for the claims of a worker found dead (every killed one, and one stalled
past its heartbeat on a loaded machine: it is taken for dead too), each such worker holding
no more than its pages in flight (downloading, or downloaded and not yet through its
pipelines), and no host fetched faster than its delay allows, all
workers together. Under ``CI=true`` a missing redis-server fails.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import require

pytestmark = pytest.mark.crawl

ROOT = Path(__file__).resolve().parents[1]
KILLS = 2
CONCURRENT_REQUESTS = 2  # the bench's default per worker: pages in flight a kill can cost


@pytest.mark.timeout(400)
def test_the_frontier_under_churn_loses_nothing_and_stays_polite():
    require(shutil.which("redis-server") is not None, "the churn bench needs redis-server")
    args = [
        *("--urls", "20000", "--hosts", "200", "--run", "40", "--kills", str(KILLS)),
        *("--probe", "20000", "--compare", "2000", "--delay", "2"),
        *("--concurrency", str(CONCURRENT_REQUESTS)),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "bench.bench_frontier", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=360,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    print(done.stdout)
    final = dict(pair.split("=") for pair in done.stdout.strip().splitlines()[-1].split())
    fetched = re.search(r"fetched (\d+) URLs \((\d+) fetches\)", done.stdout)
    assert fetched, done.stdout
    urls, fetches = int(fetched[1]), int(fetched[2])
    assert urls > 500  # the workers did crawl
    assert float(final["filter_bytes_per_url"]) <= 2.5
    assert float(final["false_positive_rate"]) <= 0.001  # 0.05% target: ~10 of 20,000
    assert int(final["kills"]) == KILLS and final["lost"] == "0"
    dead, requeued = int(final["dead_workers"]), int(final["requeued"])
    assert dead >= KILLS  # every killed worker was found dead
    assert fetches - urls <= requeued  # a page fetched again only as a dead worker's claim
    # a dead worker's claims are its pages in flight (a claim ends when its page is done): at
    # most CONCURRENT_REQUESTS downloading (the engine takes no request past it), plus those
    # downloaded and still in its spider and pipelines, and those done but not yet released
    # (the release runs on the next reactor turn). Scrapy bounds the second by bytes
    # (SCRAPER_SLOT_MAX_ACTIVE_SIZE), not by count, so no tighter bound holds for certain: the
    # factor 4 is a budget for them (measured: 2 to 2.5 claims per dead worker,
    # docs/scale.md), which a leak of claims (a backlog) exceeds
    assert requeued <= dead * 4 * CONCURRENT_REQUESTS
    assert float(final["max_host_rate"]) <= float(final["allowed_host_rate"])
