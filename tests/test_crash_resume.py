"""Crash and resume: a crawl with ``JOBDIR`` killed with SIGKILL (mid-way, twice in a row, or
while it writes its entities) and started again with the same job directory ends with every
page once in the pages feed, every record once, no entity twice and no entity sighting merged
twice, and no page that was written before the kill is fetched again.

The site is the benchmark corpus (bench/corpus_server.py: heavy pages, links to the next
pages, a sitemap) served on 127.0.0.1 by a child process of this module that logs every
request it answers; crawls are ``scrapy crawl site`` processes, killed by PID. The journal
the resume relies on is tested as plain functions first (structcrawl/ledger/journal.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from itemadapter import ItemAdapter

from structcrawl.crawl.addon import ITEM_PIPELINES
from structcrawl.ledger.journal import (
    JOURNAL_FILE,
    Journal,
    cut_feeds,
    read_journal,
    read_jsonl_lenient,
)

ROOT = Path(__file__).resolve().parents[1]
PAGES = 60

# -- the journal, as plain functions -----------------------------------------------------------


def test_the_journal_replays_pending_requests_and_the_last_commit(tmp_path):
    path = tmp_path / JOURNAL_FILE
    journal = Journal(path)
    journal.write({"run": 1, "feeds": {"/o/pages.jsonl": 0}})
    for url, fp in (("http://a/", "aa00"), ("http://a/1", "bb00"), ("http://a/2", "cc00")):
        journal.write({"req": url, "fp": fp, "cb": "parse", "depth": 1, "prio": 0})
    journal.write({"drop": "http://a/2"})  # refused by the duplicate filter
    journal.write({"acc": "http://a/", "feeds": {"/o/pages.jsonl": 500}})
    journal.close()
    with path.open("ab") as fh:
        fh.write(b'{"acc": "http://a/1", "fe')  # the kill cut this line
    state = read_journal(path)
    assert (state.runs, state.crashed, state.accounted, state.torn) == (1, True, 1, 1)
    assert list(state.pending) == ["http://a/1"]
    assert state.pending["http://a/1"][0]["depth"] == 1
    assert state.feeds == {"/o/pages.jsonl": 500}
    assert state.knows("cc00") and not state.knows("dd00")
    again = Journal(path)  # reopening cuts the torn line before appending
    again.write({"closed": "finished"})
    again.close()
    state = read_journal(path)
    assert (state.crashed, state.torn, list(state.pending)) == (False, 0, ["http://a/1"])


def test_feeds_are_cut_back_to_their_committed_size(tmp_path):
    pages = tmp_path / "pages.jsonl"
    pages.write_bytes(b'{"url": "a"}\n{"url": "b"}\n{"url": "c", "sta')
    shorter = tmp_path / "records.jsonl"
    shorter.write_bytes(b"{}\n")
    cut = cut_feeds({str(pages): 13, str(shorter): 10, str(tmp_path / "absent"): 0})
    assert cut == {str(pages): 30}
    assert pages.read_bytes() == b'{"url": "a"}\n'
    assert shorter.read_bytes() == b"{}\n"


def test_a_torn_feed_line_is_dropped_by_the_lenient_reader(tmp_path):
    feed = tmp_path / "pages.jsonl"
    feed.write_text('{"url": "a"}\n\n{"url": "b"}\n{"url": "c", "sta')
    assert read_jsonl_lenient(feed) == ([{"url": "a"}, {"url": "b"}], 1)


# -- real crawls -------------------------------------------------------------------------------


def _serve(pages: int, portfile: str, logfile: str) -> None:
    """The corpus site on 127.0.0.1, logging each request path (``python -m`` this module)."""
    from http.server import ThreadingHTTPServer

    from bench.corpus_server import build_pool, make_handler

    base = make_handler(pages, build_pool())
    log = open(logfile, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 (lives with the server)

    class Logged(base):  # type: ignore[misc, valid-type]
        def do_GET(self) -> None:
            log.write(self.path + "\n")
            super().do_GET()

    class Quiet(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a killed crawler resets its connections

    server = Quiet(("127.0.0.1", 0), Logged)
    Path(portfile + ".tmp").write_text(str(server.server_address[1]))
    os.replace(portfile + ".tmp", portfile)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    server.serve_forever()


class Site:
    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.log = tmp / "access.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def __enter__(self) -> Site:
        portfile = self.tmp / "port"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.test_crash_resume",
                str(PAGES),
                str(portfile),
                str(self.log),
            ],
            cwd=ROOT,
        )
        deadline = time.monotonic() + 30
        while not portfile.exists():
            assert self.proc.poll() is None and time.monotonic() < deadline, "no site server"
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{portfile.read_text()}"
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)

    def fetched(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


class SlowEntities:
    """An item pipeline that makes writing entities take long enough to be interrupted."""

    def process_item(self, item: Any) -> Any:
        if "conflicts" in ItemAdapter(item).field_names():
            time.sleep(0.02)
        return item


def _command(site: Site, out: Path, run: int, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "scrapy", "crawl", "site",
        "-a", f"start_urls={site.url}/p/0.html", "-a", f"sitemap={site.url}/sitemap.xml",
        "-a", "follow=/p/",
        # -o appends: the feeds of all the runs of the job together are its output
        "-o", f"{out / 'pages.jsonl'}:pages", "-o", f"{out / 'records.jsonl'}:records",
        "-o", f"{out / 'entities.jsonl'}:entities",
        "-s", f"JOBDIR={out / 'job'}",
        "-s", f"STRUCTCRAWL_BODY_STORE={out / 'bodies'}",
        "-s", f"STRUCTCRAWL_CHANGE_STORE={out / 'changes.sqlite'}",
        "-s", f"STRUCTCRAWL_REPORT_DIR={out / 'report'}",
        "-s", f"LOG_FILE={out / f'crawl-{run}.log'}", "-s", "LOG_LEVEL=INFO",
        "-s", "STRUCTCRAWL_RENDER_ENABLED=False",
        *extra,
    ]  # fmt: skip


def _lines(path: Path) -> int:
    """Complete lines in a file."""
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _run(site: Site, out: Path, run: int, *extra: str, kill_when: Any = None) -> int | None:
    """One run of the job: to the end (its exit code), or SIGKILLed by PID as soon as
    ``kill_when(out)`` is true (None)."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(_command(site, out, run, *extra), cwd=ROOT)
    try:
        deadline = time.monotonic() + 150
        while proc.poll() is None:
            assert time.monotonic() < deadline, f"run {run} did not finish"
            if kill_when is not None and kill_when(out):
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                return None
            time.sleep(0.01)
        return proc.returncode
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


def _committed(out: Path) -> set[str]:
    """URLs whose outcome the journal committed so far."""
    path = out / "job" / JOURNAL_FILE
    done = set()
    for line in path.read_text().splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if "acc" in value:
            done.add(value["acc"])
    return done


def _feeds(out: Path) -> dict[str, list[dict[str, Any]]]:
    feeds = {}
    for name in ("pages", "records", "entities"):
        lines, torn = read_jsonl_lenient(out / f"{name}.jsonl")
        assert torn == 0, f"{name}.jsonl holds a line that is not JSON"
        feeds[name] = lines
    return feeds


def _stats(log: Path) -> dict[str, int]:
    import re

    return {k: int(v) for k, v in re.findall(r"'(structcrawl/[^']+)': (\d+)", log.read_text())}


def _record_key(record: dict[str, Any]) -> tuple[Any, ...]:
    return (record["source_url"], record["format"], record["kind"], record["source_element"])


def _sources(entity: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted((s["url"], s["format"], s["source_element"]) for s in entity["sources"])


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """One site for the module (entity keys derived per site include its port)."""
    with Site(tmp_path_factory.mktemp("site")) as running:
        yield running


@pytest.fixture(scope="module")
def reference(site, tmp_path_factory):
    """The output of the same job, never interrupted."""
    out = tmp_path_factory.mktemp("reference") / "out"
    code = _run(site, out, 1)
    assert code == 0, (out / "crawl-1.log").read_text()[-3000:]
    feeds = _feeds(out)
    assert len(feeds["pages"]) == PAGES
    return feeds


def _assert_same_output(out: Path, ref: dict[str, list[dict[str, Any]]]) -> None:
    feeds = _feeds(out)
    pages = Counter(p["url"] for p in feeds["pages"])
    assert pages == Counter(p["url"] for p in ref["pages"])
    assert set(pages.values()) == {1}, "a page is in the pages feed twice"
    records = Counter(_record_key(r) for r in feeds["records"])
    assert records == Counter(_record_key(r) for r in ref["records"])
    keys = Counter(e["key"] for e in feeds["entities"])
    assert set(keys.values()) == {1}, "an entity is in the entities feed twice"
    assert set(keys) == {e["key"] for e in ref["entities"]}
    ref_entities = {e["key"]: e for e in ref["entities"]}
    for entity in feeds["entities"]:
        before = ref_entities[entity["key"]]
        # each sighting merged once: the pages fetched again after a kill are not merged twice
        assert entity["sightings"] == before["sightings"], entity["key"]
        assert _sources(entity) == _sources(before), entity["key"]


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_a_crawl_killed_twice_resumes_with_every_page_once(site, reference, tmp_path):
    out = tmp_path / "out"
    pages = out / "pages.jsonl"
    assert _run(site, out, 1, kill_when=lambda o: _lines(pages) >= 15) is None
    committed = _committed(out)
    fetched_before = len(site.fetched())
    # the resumed run is killed too, before it finishes
    assert _run(site, out, 2, kill_when=lambda o: _lines(pages) >= 35) is None
    committed_2 = _committed(out)
    fetched_before_2 = len(site.fetched())
    code = _run(site, out, 3)
    fetched = site.fetched()
    base = site.url
    assert code == 0, (out / "crawl-3.log").read_text()[-3000:]
    assert 0 < len(committed) < len(committed_2) < PAGES + 1
    _assert_same_output(out, reference)
    # nothing written before a kill is fetched again (robots.txt is read by every run)
    again = {base + path for path in fetched[fetched_before:] if path != "/robots.txt"}
    assert not again & committed
    again_2 = {base + path for path in fetched[fetched_before_2:] if path != "/robots.txt"}
    assert not again_2 & committed_2
    stats = _stats(out / "crawl-3.log")
    assert stats["structcrawl/ledger/recovered/pending"] == stats["structcrawl/ledger/resumed"] > 0
    assert not any(k.startswith("structcrawl/failure/") for k in stats)
    # the last run's ledger accounts for what it was left with, and for nothing else
    ledger = [json.loads(x) for x in (out / "report" / "ledger.jsonl").read_text().splitlines()]
    assert len(ledger) == stats["structcrawl/ledger/resumed"] + stats.get(
        "structcrawl/ledger/requested", 0
    )
    assert all(line["problem"] is None for line in ledger)


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_a_crawl_killed_while_writing_entities_writes_each_entity_once(site, reference, tmp_path):
    out = tmp_path / "out"
    pipelines = json.dumps({**ITEM_PIPELINES, "tests.test_crash_resume.SlowEntities": 900})
    entities = out / "entities.jsonl"
    killed = _run(
        site, out, 1, "-s", f"ITEM_PIPELINES={pipelines}",
        kill_when=lambda o: entities.exists() and entities.stat().st_size > 0,
    )  # fmt: skip
    assert killed is None, "the crawl ended before it could be killed"
    fetched_before = len(site.fetched())
    code = _run(site, out, 2)
    fetched = site.fetched()
    assert code == 0, (out / "crawl-2.log").read_text()[-3000:]
    _assert_same_output(out, reference)
    # every page was written before the kill: the resumed run only writes the entities
    assert [path for path in fetched[fetched_before:] if path != "/robots.txt"] == []
    stats = _stats(out / "crawl-2.log")
    assert stats["structcrawl/ledger/recovered/feed_bytes_cut"] > 0  # the entities written
    assert "structcrawl/ledger/resumed" not in stats


if __name__ == "__main__":
    _serve(int(sys.argv[1]), sys.argv[2], sys.argv[3])
