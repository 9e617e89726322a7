"""``kill -9`` of a crawl with an S3 feed (moto on 127.0.0.1): the feed's local spool file is
in a named place from the start, labelled with its feed, so the content the killed run never
uploaded is found; a resumed job (``JOBDIR``) re-delivers its committed lines, and every
page reaches the remote feed once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from structcrawl.crawl.spools import SPOOL_DIR, open_spool
from structcrawl.dev.devserver import BackgroundServer
from structcrawl.ledger.journal import JOURNAL_FILE, Journal, read_journal
from structcrawl.ledger.pages import Ledger
from structcrawl.ledger.uploads import UNDELIVERED_FILE
from tests.servers import moto_client, moto_s3
from tests.test_feed_faults import PAGES, _command, _crawl, _ledger, _s3, _site, _spools, _urls

pytestmark = [pytest.mark.crawl, pytest.mark.timeout(300)]

URI = "s3://feeds/crawl/pages.jsonl"


def _lines(folder: Path) -> int:
    """Complete lines in the spool files of ``folder`` (while the crawl writes them; a file
    renamed between the listing and its reading, a partial spool completed, is counted at its
    new name at the next look)."""
    count = 0
    for spool in folder.glob("structcrawl-spool-*") if folder.is_dir() else ():
        if spool.name.endswith(".json"):
            continue
        try:
            count += spool.read_bytes().count(b"\n")
        except FileNotFoundError:
            continue
    return count


def _killed(cmd: list[str], when) -> None:
    """Run ``cmd`` and SIGKILL it (by PID) once ``when()`` is true; fails if it ends first."""
    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "structcrawl.settings"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not when():
            assert proc.poll() is None, "the crawl ended before it could be killed"
            assert time.monotonic() < deadline, "the crawl never got there"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def _committed(job: Path) -> set[str]:
    done = set()
    for text in (job / JOURNAL_FILE).read_text().splitlines():
        try:
            line = json.loads(text)
        except ValueError:  # the line the kill cut
            continue
        if "acc" in line:
            done.add(line["acc"])
    return done


def _label(spool: Path) -> dict:
    return json.loads(spool.with_name(spool.name + ".feed.json").read_text())


def test_a_killed_crawl_s_spool_is_found_and_redelivered_by_the_resumed_job(tmp_path):
    _site(tmp_path / "site")
    out, rescue, job = tmp_path / "out", tmp_path / "rescue", tmp_path / "job"
    feeds = {str(out / "pages.jsonl"): {"format": "pages"}, URI: {"format": "pages"}}
    slow = ["-s", "DOWNLOAD_DELAY=0.05", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1"]
    args = ["-s", f"JOBDIR={job}", *slow]
    spools = job / SPOOL_DIR
    with moto_s3(tmp_path) as endpoint, BackgroundServer(tmp_path / "site") as server:
        s3 = moto_client(endpoint)
        s3.create_bucket(Bucket="feeds")
        cmd = _command(server.url, out, rescue, *_s3(endpoint), *args, feeds=feeds)
        _killed(cmd, lambda: _lines(spools) >= 30)
        (spool,) = _spools(spools)  # where it was from the start, and what it holds
        assert (_label(spool)["feed"], _label(spool)["format"]) == (URI, "pages")
        committed = _committed(job)
        assert 0 < len(committed) < PAGES
        (out / "crawl.log").rename(out / "crawl.run-1.log")

        again = _crawl(server.url, out, rescue, *_s3(endpoint), *args, feeds=feeds)
        assert again.returncode == 0, (out / "crawl.log").read_text()[-3000:]
        body = s3.get_object(Bucket="feeds", Key="crawl/pages.jsonl")["Body"].read().decode()
    delivered = [json.loads(line)["url"] for line in body.splitlines() if line.strip()]
    assert sorted(delivered) == sorted(set(delivered)) and len(delivered) == PAGES + 1
    local = _urls(out / "pages.jsonl")  # both runs, cut back to the last commit: each once
    assert sorted(local) == sorted(delivered)
    log = (out / "crawl.log").read_text()
    assert "killed before its uploads" in log and str(spool) in log  # found, and named
    ledger = _ledger(out)
    redelivered = {line["url"] for line in ledger if line.get("redelivered")}
    assert redelivered == committed  # the killed run's committed pages, not fetched again
    assert all(line["redelivered"] == [str(spool)] for line in ledger if line.get("redelivered"))
    assert all(line["problem"] is None for line in ledger)
    outcomes = {line["url"]: line["outcome"] for line in ledger}
    assert outcomes == {url: "no-records" if url == server.url else "records" for url in local}
    report = json.loads((out / "report" / "report.json").read_text())
    figures = report["ledger"]
    assert figures["redelivered"] == len(committed)
    assert (figures["kept"], figures["unaccounted"]) == (0, 0)
    assert not _spools(spools)  # stored: the spools and their labels are gone


def test_a_killed_crawl_without_jobdir_leaves_its_spool_labelled(tmp_path):
    """Without JOBDIR nothing resumes, but the spool in the rescue directory still says which
    feed it holds."""
    _site(tmp_path / "site")
    out, rescue = tmp_path / "out", tmp_path / "rescue"
    slow = ["-s", "DOWNLOAD_DELAY=0.05", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1"]
    with moto_s3(tmp_path) as endpoint, BackgroundServer(tmp_path / "site") as server:
        cmd = _command(server.url, out, rescue, "-O", f"{URI}:pages", *_s3(endpoint), *slow)
        _killed(cmd, lambda: _lines(rescue) >= 10)
    (spool,) = _spools(rescue)
    assert _label(spool)["feed"] == URI and spool.read_bytes().count(b"\n") >= 10


def test_a_run_killed_while_it_carries_a_kept_feed_loses_and_doubles_nothing(tmp_path):
    """Run 1 stops after 40 items and cannot store its feed (no bucket): its pages are kept.
    Run 2 (bucket made) carries those lines in its spool and is killed; run 3 finds that
    spool, which took the kept file's place, and the object holds every page once."""
    _site(tmp_path / "site")
    out, rescue, job = tmp_path / "out", tmp_path / "rescue", tmp_path / "job"
    feeds = {str(out / "pages.jsonl"): {"format": "pages"}, URI: {"format": "pages"}}
    slow = ["-s", "DOWNLOAD_DELAY=0.05", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1"]
    args = ["-s", f"JOBDIR={job}"]
    spools = job / SPOOL_DIR
    with moto_s3(tmp_path) as endpoint, BackgroundServer(tmp_path / "site") as server:
        first = _crawl(server.url, out, rescue, *_s3(endpoint), *args,
                       "-s", "CLOSESPIDER_ITEMCOUNT=40", feeds=feeds)  # fmt: skip
        assert first.returncode != 0
        (kept,) = _spools(spools)
        kept_urls = set(_urls(kept))
        (out / "crawl.log").rename(out / "crawl.run-1.log")
        s3 = moto_client(endpoint)
        s3.create_bucket(Bucket="feeds")
        size = kept.stat().st_size
        cmd = _command(server.url, out, rescue, *_s3(endpoint), *args, *slow, feeds=feeds)
        _killed(cmd, lambda: _lines(spools) >= len(kept_urls) * 2 + 10)
        carrier = [s for s in _spools(spools) if s != kept]
        assert len(carrier) == 1 and carrier[0].read_bytes()[:size] == kept.read_bytes()
        assert _label(carrier[0])["carries"] == [str(kept)]
        (out / "crawl.log").rename(out / "crawl.run-2.log")

        third = _crawl(server.url, out, rescue, *_s3(endpoint), *args, feeds=feeds)
        assert third.returncode == 0, (out / "crawl.log").read_text()[-3000:]
        body = s3.get_object(Bucket="feeds", Key="crawl/pages.jsonl")["Body"].read().decode()
    delivered = [json.loads(line)["url"] for line in body.splitlines() if line.strip()]
    assert sorted(delivered) == sorted(set(delivered)) and len(delivered) == PAGES + 1
    assert sorted(_urls(out / "pages.jsonl")) == sorted(delivered)  # each fetched once
    ledger = _ledger(out)
    assert kept_urls <= {line["url"] for line in ledger if line.get("redelivered")}
    assert all(line["problem"] is None for line in ledger)
    figures = json.loads((out / "report" / "report.json").read_text())["ledger"]
    assert (figures["kept"], figures["unaccounted"], figures["duplicate"]) == (0, 0, 0)
    assert not _spools(spools)


# -- the spools a killed run left, as plain objects ----------------------------------------------


def _orphan(folder: Path, urls: list[str]) -> Path:
    spool = open_spool(folder, URI, "pages")
    spool.write_text("".join(json.dumps({"url": u, "outcomes": ["entity:json-ld"]}) + "\n"
                             for u in urls))  # fmt: skip
    return spool


def test_a_resumed_run_cuts_a_killed_run_s_spool_once(tmp_path):
    """The spool is cut back to its committed size by the run that finds it; a run that finds
    it again (the first was killed too) does not cut it again (its commits are not that
    spool's); every committed page is accounted, to be re-delivered."""
    from scrapy.utils.test import get_crawler

    from structcrawl.ledger.redelivery import Redelivery

    job = tmp_path / "job"
    spool = _orphan(job / SPOOL_DIR, ["http://a/1", "http://a/2", "http://a/3"])
    committed = len(json.dumps({"url": "http://a/1", "outcomes": ["entity:json-ld"]})) + 1
    crawler = get_crawler(settings_dict={"JOBDIR": str(job)})
    first = Redelivery(crawler, str(job), {os.path.abspath(spool): committed})
    assert [line["url"] for line, gone in first.pages()] == ["http://a/1"]
    assert spool.stat().st_size == committed and _label(spool)["adopted"]
    again = Redelivery(get_crawler(settings_dict={"JOBDIR": str(job)}), str(job), {})
    lines = [line for line, gone in again.pages()]
    assert [(x["url"], x["outcome"], x["redelivered"]) for x in lines] == [
        ("http://a/1", "records", [str(spool)])
    ]
    assert spool.stat().st_size == committed  # not cut to nothing by a run that never wrote it
    # this run never uploaded it (no feed exporter here): nothing is redelivered, the spool
    # is kept and named for the next run
    finished = again.finish(Ledger(), tmp_path / "ledger.jsonl")
    assert finished.redelivered == 0 and spool.exists()
    undelivered = [json.loads(t) for t in (job / UNDELIVERED_FILE).read_text().splitlines()]
    assert [(x["feed"], x["spool"]) for x in undelivered] == [(URI, str(spool))]


def test_a_later_run_s_recovery_does_not_cut_an_earlier_run_s_kept_spool(tmp_path):
    """The journal's feeds are the last run's: a spool run 1 kept (its upload failed) is not
    among the files run 2's recovery cuts."""
    path = tmp_path / JOURNAL_FILE
    journal = Journal(path)
    journal.write({"run": 1, "feeds": {}})
    journal.write({"acc": "http://a/", "feeds": {"/job/structcrawl-spool/k1": 0}})
    journal.write({"closed": "finished"})
    journal.write({"run": 2, "feeds": {"/out/pages.jsonl": 10}})
    journal.write({"acc": "http://a/2", "feeds": {"/out/pages.jsonl": 20}})
    journal.close()
    state = read_journal(path)
    assert state.crashed and state.feeds == {"/out/pages.jsonl": 20}


def test_a_page_in_two_killed_spools_is_accounted_once_with_both_feeds(tmp_path):
    from scrapy.utils.test import get_crawler

    from structcrawl.ledger.redelivery import Redelivery

    job = tmp_path / "job"
    pages = _orphan(job / SPOOL_DIR, ["http://a/1"])
    records = open_spool(job / SPOOL_DIR, "s3://feeds/crawl/records.jsonl", "records")
    record = {"kind": "entity", "provenance": {"fetch": {"url": "http://a/1"}}}
    records.write_text((json.dumps(record) + "\n") * 2)  # two records of the page
    crawler = get_crawler(settings_dict={"JOBDIR": str(job)})
    committed = {os.path.abspath(p): p.stat().st_size for p in (pages, records)}
    (line,) = [line for line, gone in Redelivery(crawler, str(job), committed).pages()]
    assert (line["url"], line["outcome"], line["in_pages"]) == ("http://a/1", "records", True)
    assert sorted(line["upload"]) == sorted([URI, "s3://feeds/crawl/records.jsonl"])
    assert sorted(line["redelivered"]) == sorted([str(pages), str(records)])
