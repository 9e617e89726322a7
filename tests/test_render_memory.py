"""The browser's memory per page (structcrawl.render.memory): the decision on samples, the
watch that stops a renderer over a bound (on a real process under this one), and, in a crawl
with Chromium, memory bombs that end as ``too-large`` while an ordinary page beside them
still renders, the crawl's process tree under 1 GB (PSS)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from scrapy.settings import Settings

from bench.bench_browser_bombs import crawl as bombs_crawl
from bench.bench_browser_bombs import serve_bombs
from structcrawl.render.config import RenderConfig
from structcrawl.render.memory import MemoryWatch, Overrun, Sample, judge, read_renderers
from tests.test_security import _chromium

MB = 1024 * 1024


def test_judge_stops_each_page_over_its_bound_and_the_largest_while_all_are_over():
    samples = [Sample(1, 300 * MB), Sample(2, 200 * MB), Sample(3, 150 * MB), Sample(4, 40 * MB)]
    stopped = judge(samples, page_limit=256 * MB, total_limit=150 * MB)
    assert [(o.pid, o.bound) for o in stopped] == [(1, "page"), (2, "all"), (3, "all")]
    assert stopped[0].measured == 300 * MB and stopped[0].limit == 256 * MB
    assert [o.measured for o in stopped[1:]] == [390 * MB, 190 * MB]  # the others together
    assert "300 MB" in stopped[0].message() and "STRUCTCRAWL_BROWSER_PAGE_MEMORY" in (
        stopped[0].message()
    )
    assert "STRUCTCRAWL_BROWSER_MEMORY (150 MB)" in stopped[1].message()


def test_judge_leaves_ordinary_pages_and_unbounded_limits_alone():
    ordinary = [Sample(n, 100 * MB) for n in range(6)]  # 600 MB together, each under 128
    assert judge(ordinary, 256 * MB, 384 * MB) == []
    assert judge([Sample(1, 10 * 1024 * MB)], 0, 0) == []
    assert [o.bound for o in judge([Sample(1, 10 * 1024 * MB)], 0, 384 * MB)] == ["all"]


def _fake(anon: dict[int, int], pss: dict[int, int] | None = None, **kwargs):
    return MemoryWatch(
        root=1, find=lambda root, known: list(anon), anon=anon.get,
        pss=(pss or {}).get, **kwargs,
    )  # fmt: skip


def test_the_watch_stops_a_renderer_once_and_tells_which_page_crashed_of_it():
    killed: list[int] = []
    told: list[Overrun] = []
    watch = _fake(
        {7: 500 * MB, 8: 50 * MB}, page_limit=256 * MB, total_limit=0, kill=killed.append,
        on_stop=told.append,
    )  # fmt: skip
    started = time.monotonic()
    assert [o.pid for o in watch.check()] == [7]
    assert killed == [7] and [o.pid for o in told] == [7]
    assert watch.check() == []  # still dying: not stopped again
    assert killed == [7]
    overrun = watch.overrun_since(started)
    assert overrun is not None and overrun.pid == 7 and overrun.measured == 500 * MB
    assert watch.overrun_since(time.monotonic() + 1) is None  # a page started later
    assert watch.peak == 550 * MB and watch.page_peak == 500 * MB


def test_a_sample_is_the_anonymous_memory_now_plus_the_rest_of_the_pss_last_read():
    anon = {7: 100 * MB}
    watch = _fake(anon, {7: 130 * MB}, page_limit=256 * MB, total_limit=0)
    assert [s.pss for s in watch.sample()] == [100 * MB]  # PSS not read yet
    watch.read_pss()  # 30 MB of libraries and shared memory besides
    anon[7] = 220 * MB  # the page allocates: counted fully
    assert [s.pss for s in watch.sample()] == [250 * MB]
    pss = watch.pss
    watch.pss = lambda pid: None  # unreadable this time: the last read still holds
    watch.read_pss()
    watch.pss = pss
    anon[7] = 240 * MB
    assert [(o.pid, o.measured) for o in watch.check()] == [(7, 270 * MB)]
    anon[8] = 40 * MB  # a new renderer, not read yet: as much besides as the others
    assert {s.pid: s.pss for s in watch.sample()}[8] == 70 * MB


def test_a_stopped_renderer_not_gone_yet_still_counts_in_the_renderers_together():
    anon = {7: 300 * MB, 8: 150 * MB, 9: 100 * MB}
    killed: list[int] = []
    watch = _fake(anon, page_limit=256 * MB, total_limit=384 * MB, kill=killed.append)
    assert [(o.pid, o.bound) for o in watch.check()] == [(7, "page")]
    # 8 and 9 hold 250 MB, under 384, but 7 still holds 200 while it is torn down
    anon[7] = 200 * MB
    assert [(o.pid, o.bound, o.measured) for o in watch.check()] == [(8, "all", 450 * MB)]
    assert killed == [7, 8]
    del anon[7], anon[8]  # gone: 9 alone is not stopped
    assert watch.check() == []


def test_a_renderer_gone_before_the_kill_is_no_overrun():
    def gone(pid: int) -> None:
        raise ProcessLookupError(pid)

    watch = _fake({9: 2 * MB}, page_limit=MB, total_limit=0, kill=gone)
    assert watch.check() == [] and watch.overrun_since(0.0) is None


def _child(*args: str) -> subprocess.Popen[bytes]:
    # a process whose command line says what Chromium's say (sleeping, a few MB)
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", *args])


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps_rollup"), reason="Linux /proc")
def test_the_watch_finds_renderers_under_this_process_and_stops_one_over_the_bound():
    renderer, zygote, other = _child("--type=renderer"), _child("--type=zygote"), _child()
    try:
        time.sleep(0.3)
        known: dict[int, bool] = {}
        found = {s.pid: s.pss for s in read_renderers(os.getpid(), known)}
        assert set(found) == {renderer.pid} and found[renderer.pid] > 0
        assert known[renderer.pid] is True and known[other.pid] is False
        assert zygote.pid not in known  # it may still become a renderer: asked again
        watch = MemoryWatch(MB, 0, interval=0.02)
        watch.begin()
        assert renderer.wait(timeout=10) == -signal.SIGKILL
        watch.end()
        overrun = watch.overrun_since(0.0)
        assert overrun is not None and overrun.pid == renderer.pid and overrun.bound == "page"
        assert zygote.poll() is None and other.poll() is None  # only renderers are stopped
        watch.close()
    finally:
        for child in (renderer, zygote, other):
            child.kill()
            child.wait()


def test_the_bounds_are_settings():
    config = RenderConfig.from_settings(
        Settings({"STRUCTCRAWL_BROWSER_PAGE_MEMORY": 100 * MB, "STRUCTCRAWL_BROWSER_MEMORY": 0})
    )
    assert (config.page_memory, config.memory) == (100 * MB, 0)
    defaults = RenderConfig.from_settings(Settings())
    assert 0 < defaults.page_memory < defaults.memory < 1024 * MB


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_memory_bombs_end_as_too_large_and_an_ordinary_page_beside_them_renders(tmp_path):
    """A page whose script navigates to a 256 MiB gzip body (a few hundred kB on the wire:
    the egress proxy's byte count does not see it), one that builds a 200 MB DOM, and an
    ordinary page written by its script, crawled together with the default bounds."""
    _chromium()
    with serve_bombs() as site:
        pages, (_, pss), _ = bombs_crawl(site, ["gzip", "dom", "plain"], tmp_path / "out")
    log = (tmp_path / "out" / "crawl.log").read_text()
    ended = {p["url"].split("?to=")[1].split("&")[0]: p for p in pages}
    assert set(ended) == {"/gzip%3Fmb=256", "dom", "plain"}, log[-3000:]
    for bomb in ("/gzip%3Fmb=256", "dom"):
        page = ended[bomb]
        assert page["fetched_with"] == "browser"
        assert page["fetch_error"]["code"] == "too-large", log[-3000:]
        assert "STRUCTCRAWL_BROWSER_" in page["fetch_error"]["message"]
        assert " MB" in page["fetch_error"]["message"]
    plain = ended["plain"]
    assert plain["fetched_with"] == "browser" and not plain.get("fetch_error"), log[-3000:]
    # what its script wrote is there: the rendered page is larger than the shell served
    assert plain["body_size"] > int(plain["headers"]["Content-Length"][0])
    records = [json.loads(x) for x in (tmp_path / "out" / "records.jsonl").read_text().splitlines()]
    errors = {r["source_url"] for r in records if (r.get("error") or {}).get("code") == "too-large"}
    assert errors == {ended[bomb]["url"] for bomb in ("/gzip%3Fmb=256", "dom")}
    assert "browser memory:" in log  # told in the log too, with the renderer's pid
    # the crawl's whole process tree, summed PSS: 5.6 GB before the bound; issue 27's goal is
    # 1 GB. About 490 MB of the tree is not renderers (Python, the driver, the browser, GPU
    # and network processes), the renderers may hold 384 MiB together, and a renderer is
    # sampled every 0.02 s: 721-870 MB over 14 runs on a 2-core machine
    assert pss < 1024 * MB
