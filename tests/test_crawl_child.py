"""Killing ``structcrawl crawl`` ends its Scrapy child (structcrawl.crawl.child): by SIGTERM
(passed on) and by SIGKILL (the child's parent-death signal)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.faultserver import FaultServer
from tests.test_browser_kill import _descendants


def _scrapy_child(wrapper: subprocess.Popen[bytes], timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in _descendants(wrapper.pid):
            try:
                cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
            except OSError:
                continue
            if b"scrapy" in cmdline and b"crawl" in cmdline:
                return pid
        time.sleep(0.2)
    raise AssertionError("no scrapy child appeared")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.crawl
@pytest.mark.timeout(180)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["term", "kill"])
def test_killing_the_wrapper_ends_its_crawl(tmp_path, sig):
    with FaultServer() as site:
        urls = ",".join(f"{site.url}/drip/{n}?chunks=200&interval=0.5" for n in range(3))
        wrapper = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "structcrawl.commandline",
                "crawl",
                *urls.split(","),
                "-o",
                str(tmp_path),
                "-s",
                "STRUCTCRAWL_RENDER_ENABLED=False",
                "-s",
                "ROBOTSTXT_OBEY=False",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        child = None
        try:
            child = _scrapy_child(wrapper)
            time.sleep(2)  # the crawl is under way, its pages dripping in
            os.kill(wrapper.pid, sig)
            wrapper.wait(timeout=60)
            deadline = time.monotonic() + 60
            while _alive(child) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert not _alive(child), "the scrapy child outlived structcrawl crawl"
        finally:
            for pid in (wrapper.pid, child):
                if pid is not None and _alive(pid):
                    os.kill(pid, signal.SIGKILL)
