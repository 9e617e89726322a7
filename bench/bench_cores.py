"""Where the two cores go while one crawl of the large pages (or the shared ones) runs (issue 24):
each thread's CPU time read from ``/proc`` every quarter second, by role, beside the machine's
idle time.

    python -m bench.bench_cores [--crawl pipeline|cli] [--corpus large|small] [--pages 644]
        [-s NAME=VALUE ...]

The crawl is ``bench/bench_crawl.py``'s (the same command, settings and page server; ``-s``
goes to it), over the large pages or the shared ones (``--corpus small``: mostly articles,
where ``structcrawl crawl`` reads their main texts). The roles: the **crawl's thread** (the
main thread of the ``scrapy crawl`` process, where its event loop runs), its **other
threads** (the body store's compression and hashing, the pipes to the workers), the **page
workers** (``structcrawl.workers.serve``), the **cli's parent** (``structcrawl crawl``'s own
process, which waits for its child), the **browser** (the render audit's Chromium, when on),
the **page server**, and the machine's **idle** time (``/proc/stat``: idle and I/O wait, over
both cores).

Two figures a role: the cores it kept busy in the steady part of the crawl (from the first
page worker, or a tenth of the run where none starts, to nine tenths of it: the start's
imports and the end's entity emission left out), and its CPU ms a page over the whole run
(start included). Where the crawl's cores are full (idle near zero), the CPU a page is what
sets the pages/s (docs/speed.md). Ends with one line: ``cores_<role>= ... ms_<role>= ...
pps= cpu_ms= pages=``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from bench._proctree import Periodic
from bench.bench_crawl import _command, _run, _server
from bench.realpages import large_corpus_dir
from structcrawl.core.procfs import descendants

ROLES = ("crawl_thread", "crawl_others", "workers", "cli_parent", "browser", "server", "idle")
_TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def _cpu_ms(path: str) -> float | None:
    """User and system time of a process or thread (its ``stat``), in ms."""
    try:
        with open(path, "rb") as fh:
            text = fh.read()
        fields = text[text.rindex(b")") + 2 :].split()
        return (int(fields[11]) + int(fields[12])) * _TICK_MS
    except (OSError, ValueError, IndexError):  # gone meanwhile
        return None


def _idle_ms() -> float:
    with open("/proc/stat", "rb") as fh:
        fields = fh.readline().split()
    return (int(fields[4]) + int(fields[5])) * _TICK_MS


def _role(pid: int, server: int) -> str:
    if pid == server:
        return "server"
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "gone"
    if b"structcrawl.workers.serve" in cmdline:
        return "workers"
    if b"chrom" in cmdline or b"headless_shell" in cmdline:
        return "browser"
    if b"structcrawl.commandline" in cmdline:
        return "cli_parent"
    return "crawl"


class CoreSampler(Periodic):
    """Samples every thread of the bench's descendants (see the module doc) every
    ``interval`` seconds in a thread: ``samples`` is ``[(time, {role: cumulative ms})]``."""

    def __init__(self, server: int, interval: float = 0.25) -> None:
        super().__init__(interval)
        self.server = server
        self.samples: list[tuple[float, dict[str, float]]] = []
        self.first_worker: float | None = None
        self._last: dict[tuple[int, int], tuple[str, float]] = {}  # a thread's last reading

    def _sample(self) -> None:
        now = time.monotonic()
        for pid in descendants(os.getpid()):
            role = _role(pid, self.server)  # read each time: a child is its parent until its exec
            if role == "workers" and self.first_worker is None:
                self.first_worker = now
            try:
                tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
            except OSError:
                continue
            for tid in tids:
                spent = _cpu_ms(f"/proc/{pid}/task/{tid}/stat")
                if spent is None:
                    continue
                named = role
                if role == "crawl":
                    named = "crawl_thread" if tid == pid else "crawl_others"
                self._last[(pid, tid)] = (named, spent)
        totals = dict.fromkeys(ROLES, 0.0)
        for named, spent in self._last.values():  # threads that ended keep their time
            if named in totals:
                totals[named] += spent
        totals["idle"] = _idle_ms()
        self.samples.append((now, totals))

    def steady(self) -> tuple[float, float]:
        """The steady part's start and end (see the module doc)."""
        start, end = self.samples[0][0], self.samples[-1][0]
        tenth = (end - start) / 10
        return max(self.first_worker or 0.0, start + tenth), end - tenth

    def cores(self) -> dict[str, float]:
        """Each role's busy cores (CPU ms over wall ms) in the steady part."""
        begin, end = self.steady()
        inside = [s for s in self.samples if begin <= s[0] <= end]
        if len(inside) < 2:
            return dict.fromkeys(ROLES, float("nan"))
        (t0, first), (t1, last) = inside[0], inside[-1]
        wall = (t1 - t0) * 1000
        return {role: (last[role] - first[role]) / wall for role in ROLES}

    def spent(self) -> dict[str, float]:
        """Each role's CPU ms over the whole run (the machine's idle ms for ``idle``)."""
        first, last = self.samples[0][1], self.samples[-1][1]
        return {role: last[role] - first[role] for role in ROLES}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crawl", choices=("pipeline", "cli"), default="pipeline")
    parser.add_argument("--corpus", choices=("large", "small"), default="large")
    parser.add_argument("--pages", type=int, default=644)
    parser.add_argument("-s", dest="settings", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        corpus = large_corpus_dir() if args.corpus == "large" else None
        server, sitemap = _server(args.pages, folder, corpus)
        try:
            out = folder / "out"
            out.mkdir()
            cmd, cwd, env = _command(args.crawl, sitemap, out, extra=tuple(args.settings))
            stats = out / "cli" / "crawl.log" if args.crawl == "cli" else None
            with CoreSampler(server.pid) as sampler:
                pps, pages, _, _, cpu_ms = _run(cmd, cwd, env, out / "log.txt", stats)
        finally:
            server.terminate()
            server.wait()
    cores, spent = sampler.cores(), sampler.spent()
    print(f"{args.crawl}: {pps:.1f} pages/s, {cpu_ms:.1f} CPU ms a page, {pages} pages")
    print("| role | busy cores (steady part) | CPU ms a page (whole run) |")
    print("|---|---|---|")
    for role in ROLES:
        per_page = "" if role == "idle" else f"{spent[role] / pages:.1f}"
        print(f"| {role} | {cores[role]:.2f} | {per_page} |")
    figures = [f"cores_{role}={cores[role]:.2f}" for role in ROLES]
    figures += [f"ms_{role}={spent[role] / pages:.1f}" for role in ROLES if role != "idle"]
    print(" ".join([*figures, f"pps={pps:.1f}", f"cpu_ms={cpu_ms:.1f}", f"pages={pages}"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
