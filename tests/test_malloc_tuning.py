"""The C allocator tuned for large pages (``STRUCTCRAWL_MMAP_THRESHOLD``): large blocks freed
are given back to the system at once, in the crawl and in its worker processes."""

from __future__ import annotations

import asyncio
import platform
import subprocess
import sys
from pathlib import Path

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from structcrawl.core.allocator import MMAP_THRESHOLD_ENV, set_mmap_threshold
from structcrawl.crawl.malloctune import MallocTuning
from structcrawl.crawl.pipelines.pagework import PageWorkPipeline
from tests.servers import require

# A process that once freed an 8 MB block (glibc then serves blocks up to 8 MB from its heap),
# then holds forty 1 MB blocks (a page's body, text, buffers) and a small one after them, and
# frees the forty: the RSS it keeps, in MB.
_KEPT = """
import sys
from structcrawl.core.allocator import set_mmap_threshold
if sys.argv[1] != "0":
    assert set_mmap_threshold(int(sys.argv[1]))
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024
big = bytearray(8 << 20)
del big
before = rss()
blocks = [bytearray(1 << 20) for _ in range(40)]
pin = bytearray(4096)  # from the heap, after the forty (not Python's small-object arenas)
del blocks
print(rss() - before)
"""


def _kept(threshold: int) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _KEPT, str(threshold)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(out.stdout)


@pytest.mark.timeout(120)
def test_large_blocks_are_given_back_with_a_fixed_threshold():
    require(Path("/proc/self/status").exists(), "reading a process's memory needs /proc")
    require(platform.libc_ver()[0] == "glibc", "the C library is no glibc")
    assert _kept(0) >= 30  # glibc's own policy: the heap keeps the forty blocks
    assert _kept(131072) <= 5  # each was a mapping of its own, given back


def test_off_at_zero():
    with pytest.raises(NotConfigured):
        MallocTuning.from_crawler(get_crawler(settings_dict={"STRUCTCRAWL_MMAP_THRESHOLD": 0}))
    assert set_mmap_threshold(0) is False


@pytest.mark.timeout(60)
def test_the_page_workers_start_with_the_crawls_threshold():
    require(Path("/proc/self/environ").exists(), "reading a process's environment needs /proc")
    crawler = get_crawler(settings_dict={"STRUCTCRAWL_MMAP_THRESHOLD": 262144})
    pipeline = PageWorkPipeline.from_crawler(crawler)

    async def started() -> bytes:
        pool = pipeline.workers._workers()
        try:
            await pool.ask("structcrawl.workers.page:read_page", ["u", None, True, False], b"x")
            (worker,) = pool.workers
            return Path(f"/proc/{worker.proc.pid}/environ").read_bytes()
        finally:
            pipeline.workers.engine_stopped()

    assert f"{MMAP_THRESHOLD_ENV}=262144".encode() in asyncio.run(started()).split(b"\0")
