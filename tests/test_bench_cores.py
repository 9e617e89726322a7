"""The core sampler of ``bench/bench_cores.py``: a process's threads read from /proc by role."""

from __future__ import annotations

import subprocess
import sys

from bench.bench_cores import CoreSampler

_BUSY = "import time\nend = time.monotonic() + 1.5\nwhile time.monotonic() < end:\n    pass\n"


def test_a_busy_process_reads_as_about_one_core_and_its_cpu_time() -> None:
    child = subprocess.Popen([sys.executable, "-c", _BUSY])
    with CoreSampler(server=-1, interval=0.05) as sampler:
        assert child.wait(timeout=30) == 0
    spent, cores = sampler.spent(), sampler.cores()
    # a process that is neither a worker, a browser nor the cli's parent is the crawl; its
    # one thread is the crawl's thread, counted after it ended (its last reading kept)
    assert 900 < spent["crawl_thread"] < 2500, spent
    assert spent["workers"] == spent["crawl_others"] == spent["server"] == 0
    assert 0.4 < cores["crawl_thread"] < 1.2, cores  # a busy machine lends it less
    assert len(sampler.samples) >= 10
