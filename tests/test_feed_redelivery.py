"""A resumed job (``JOBDIR``) re-delivers the remote page feeds an earlier run could not store
(moto on 127.0.0.1, a bucket that does not exist yet): the kept file's lines reach the feed,
the pages are not fetched again, and the ledger and the report of each run say where every
page is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from structcrawl.crawl.spools import SPOOL_DIR
from structcrawl.dev.devserver import BackgroundServer
from structcrawl.ledger.check import check_ledger, combine_runs
from structcrawl.ledger.uploads import UNDELIVERED_FILE
from tests.servers import moto_client, moto_s3
from tests.test_feed_faults import PAGES, _crawl, _kept_file, _ledger, _s3, _site, _spools, _urls

pytestmark = [pytest.mark.crawl, pytest.mark.timeout(300)]


def _object_urls(s3, key: str) -> list[str]:
    body = s3.get_object(Bucket="feeds", Key=key)["Body"].read().decode()
    return [json.loads(line)["url"] for line in body.splitlines() if line.strip()]


def _report(out: Path) -> dict:
    return json.loads((out / "report" / "report.json").read_text())


def test_a_resumed_job_redelivers_the_feed_its_stopped_run_could_not_store(tmp_path):
    """Run 1 stops after 40 items and cannot upload its pages feed (no bucket): its pages are
    kept. Run 2 (bucket made) continues the crawl and its feed of the same URI carries run
    1's kept lines first: the object holds every page once, none was fetched twice."""
    _site(tmp_path / "site")
    uri = "s3://feeds/crawl/pages.jsonl"
    out, rescue, job = tmp_path / "out", tmp_path / "rescue", tmp_path / "job"
    feeds = {
        str(out / "pages.jsonl"): {"format": "pages", "overwrite": False},  # local: appended
        uri: {"format": "pages"},
    }
    jobdir = ["-s", f"JOBDIR={job}"]
    with moto_s3(tmp_path) as endpoint, BackgroundServer(tmp_path / "site") as server:
        first = _crawl(server.url, out, rescue, *_s3(endpoint), *jobdir,
                       "-s", "CLOSESPIDER_ITEMCOUNT=40", feeds=feeds)  # fmt: skip
        assert first.returncode != 0
        kept = _kept_file(out, uri)
        assert kept.parent == job / SPOOL_DIR  # the job's own folder, from the start
        kept_urls = set(_urls(kept))
        first_ledger = _ledger(out)
        assert 40 <= len(kept_urls) < PAGES
        assert {line["url"] for line in first_ledger if line["problem"] == "kept"} == kept_urls
        assert (job / UNDELIVERED_FILE).exists()
        (out / "crawl.log").rename(out / "crawl.run-1.log")

        s3 = moto_client(endpoint)
        s3.create_bucket(Bucket="feeds")
        second = _crawl(server.url, out, rescue, *_s3(endpoint), *jobdir, feeds=feeds)
        assert second.returncode == 0, (out / "crawl.log").read_text()[-3000:]
        delivered = _object_urls(s3, "crawl/pages.jsonl")
    fetched = _urls(out / "pages.jsonl")  # both runs, appended: each page fetched once
    assert sorted(fetched) == sorted(set(fetched)) and len(fetched) == PAGES + 1
    assert sorted(delivered) == sorted(fetched)  # run 1's kept lines and run 2's, each once
    second_ledger = _ledger(out)
    again = {line["url"]: line for line in second_ledger if line.get("redelivered")}
    assert set(again) == kept_urls
    for line in again.values():
        assert line["problem"] is None and line["upload"] == [uri]
        assert line["redelivered"] == [str(kept)]
        assert line["outcome"] == ("no-records" if line["url"] == server.url else "records")
    report = _report(out)
    figures = report["ledger"]
    assert (figures["kept"], figures["unaccounted"]) == (0, 0)
    assert figures["accounted"] == len(second_ledger)
    assert figures["redelivered"] == len(kept_urls)
    assert report["stats"]["structcrawl/ledger/redelivered"] == len(kept_urls)
    assert not kept.exists() and not _spools(job / SPOOL_DIR)  # delivered: no copy left
    assert not (job / UNDELIVERED_FILE).exists()
    # the job's ledger (both runs) against what the remote feed holds: nothing missing
    pages = [{"url": url, "outcomes": ["x"]} for url in delivered]
    check = check_ledger(combine_runs([first_ledger, second_ledger]), pages)
    assert check.ok, check.problems[:5]
    assert check.accounted == PAGES + 1
    assert check.by_outcome == {"records": PAGES, "no-records": 1}


def test_a_carried_redelivery_that_fails_again_counts_nothing_as_redelivered(tmp_path):
    """Run 1 stops after 40 items, its pages feed not stored (no bucket); run 2 of the job
    carries those lines in its feed of the same URI, and that upload fails too (still no
    bucket): no page is ``redelivered`` or accounted, every page is kept in the file run 2's
    error names (run 1's lines among them), and the crawl fails. Run 3 (bucket made) stores
    them all, and only then are they ``redelivered``."""
    _site(tmp_path / "site")
    uri = "s3://feeds/crawl/pages.jsonl"
    out, rescue, job = tmp_path / "out", tmp_path / "rescue", tmp_path / "job"
    feeds = {uri: {"format": "pages"}}
    args = ["-s", f"JOBDIR={job}"]
    with moto_s3(tmp_path) as endpoint, BackgroundServer(tmp_path / "site") as server:
        first = _crawl(server.url, out, rescue, *_s3(endpoint), *args,
                       "-s", "CLOSESPIDER_ITEMCOUNT=40", feeds=feeds)  # fmt: skip
        assert first.returncode != 0
        first_urls = set(_urls(_kept_file(out, uri)))
        assert 40 <= len(first_urls) < PAGES
        (out / "crawl.log").rename(out / "crawl.run-1.log")

        second = _crawl(server.url, out, rescue, *_s3(endpoint), *args, feeds=feeds)
        assert second.returncode != 0
        kept = _kept_file(out, uri)  # run 2's own spool: run 1's lines first, then its own
        kept_urls = _urls(kept)
        assert sorted(kept_urls) == sorted(set(kept_urls)) and len(kept_urls) == PAGES + 1
        assert first_urls <= set(kept_urls)
        ledger = _ledger(out)
        assert {line["url"] for line in ledger} == set(kept_urls)
        for line in ledger:
            assert line["problem"] == "kept" and line["outcome"] == "unwritten:upload"
            assert str(kept) in line["message"]
            assert not line.get("redelivered")  # not re-delivered: it failed
        carried = {line["url"] for line in ledger if line.get("redelivery_failed")}
        assert carried == first_urls
        report = _report(out)
        figures = report["ledger"]
        assert (figures["redelivered"], figures["accounted"]) == (0, 0), figures
        assert (figures["kept"], figures["unaccounted"]) == (PAGES + 1, 0)
        assert report["stats"].get("structcrawl/ledger/redelivered", 0) == 0
        assert report["stats"].get("structcrawl/ledger/accounted", 0) == 0
        assert report["stats"]["structcrawl/failure/ledger/kept"] == PAGES + 1
        undelivered = [json.loads(t) for t in (job / UNDELIVERED_FILE).read_text().splitlines()]
        assert [obj["spool"] for obj in undelivered if "feed" in obj] == [str(kept)]
        assert {obj["page"]["url"] for obj in undelivered if "page" in obj} == set(kept_urls)
        assert _spools(job / SPOOL_DIR) == [kept]  # run 1's file: its lines are in run 2's

        s3 = moto_client(endpoint)
        s3.create_bucket(Bucket="feeds")
        third = _crawl(server.url, out, rescue, *_s3(endpoint), *args, feeds=feeds)
        assert third.returncode == 0, (out / "crawl.log").read_text()[-3000:]
        delivered = _object_urls(s3, "crawl/pages.jsonl")
    assert sorted(delivered) == sorted(kept_urls)
    figures = _report(out)["ledger"]
    assert (figures["redelivered"], figures["accounted"], figures["kept"]) == (
        PAGES + 1,
        PAGES + 1,
        0,
    )
    assert not kept.exists() and not (job / UNDELIVERED_FILE).exists()


def test_a_redelivery_that_fails_keeps_the_pages_until_one_succeeds(tmp_path):
    """A finished run whose ``%(time)s`` feed was not stored; the next run of the job fails
    to re-deliver it too (still no bucket): the pages stay kept, in the same named file; the
    run after stores it at its own URI, and says the pages are in the feed."""
    _site(tmp_path / "site")
    template = "s3://feeds/crawl/pages-%(time)s.jsonl"
    out, rescue, job = tmp_path / "out", tmp_path / "rescue", tmp_path / "job"
    feeds = {template: {"format": "pages"}}
    args = ["-s", f"JOBDIR={job}"]
    with moto_s3(tmp_path) as endpoint, BackgroundServer(tmp_path / "site") as server:
        first = _crawl(server.url, out, rescue, *_s3(endpoint), *args, feeds=feeds)
        assert first.returncode != 0
        log = (out / "crawl.log").read_text()
        uri = log.split(" was not stored (")[0].rsplit(" ", 1)[-1]
        assert uri.startswith("s3://feeds/crawl/pages-") and uri != template
        kept = _kept_file(out, uri)
        every = set(_urls(kept))
        assert len(every) == PAGES + 1

        second = _crawl(server.url, out, rescue, *_s3(endpoint), *args, feeds=feeds)
        assert second.returncode != 0
        assert _kept_file(out, uri) == kept and set(_urls(kept)) == every  # kept, as it was
        ledger = _ledger(out)
        assert {line["url"] for line in ledger} == every
        assert all(line["problem"] == "kept" and str(kept) in line["message"] for line in ledger)
        figures = _report(out)["ledger"]
        assert (figures["kept"], figures["accounted"], figures["unaccounted"]) == (PAGES + 1, 0, 0)

        s3 = moto_client(endpoint)
        s3.create_bucket(Bucket="feeds")
        third = _crawl(server.url, out, rescue, *_s3(endpoint), *args, feeds=feeds)
        assert third.returncode == 0, (out / "crawl.log").read_text()[-3000:]
        key = uri.removeprefix("s3://feeds/")
        delivered = _object_urls(s3, key)
    assert sorted(delivered) == sorted(every)
    ledger = _ledger(out)
    assert {line["url"] for line in ledger} == every
    assert all(line["problem"] is None and line["upload"] == [uri] for line in ledger)
    figures = _report(out)["ledger"]
    assert (figures["accounted"], figures["kept"], figures["redelivered"]) == (
        PAGES + 1,
        0,
        PAGES + 1,
    )
    assert not kept.exists() and not (job / UNDELIVERED_FILE).exists()
    assert not _spools(job / SPOOL_DIR)  # the empty feeds of runs 2 and 3 are stored too


def test_a_kept_file_that_is_gone_makes_its_pages_unaccounted(tmp_path):
    """The kept file of a feed that was not stored is deleted before the job is resumed: its
    pages are lost, and the resumed run says so (``unaccounted``, the file named), failing."""
    _site(tmp_path / "site")
    uri = "s3://feeds/crawl/pages.jsonl"
    out, rescue, job = tmp_path / "out", tmp_path / "rescue", tmp_path / "job"
    feeds = {uri: {"format": "pages"}}
    with moto_s3(tmp_path) as endpoint, BackgroundServer(tmp_path / "site") as server:
        args = [*_s3(endpoint), "-s", f"JOBDIR={job}"]
        first = _crawl(server.url, out, rescue, *args, feeds=feeds)
        assert first.returncode != 0
        kept = _kept_file(out, uri)
        every = set(_urls(kept))
        kept.unlink()
        moto_client(endpoint).create_bucket(Bucket="feeds")
        second = _crawl(server.url, out, rescue, *args, feeds=feeds)
    assert second.returncode != 0
    ledger = _ledger(out)
    assert {line["url"] for line in ledger} == every
    for line in ledger:
        assert line["problem"] == "unaccounted" and line["outcome"] == "unwritten:upload"
        assert str(kept) in line["message"] and "gone" in line["message"]
    report = _report(out)
    assert report["ledger"]["unaccounted"] == PAGES + 1 and report["ledger"]["accounted"] == 0
    assert report["stats"]["structcrawl/failure/ledger/unaccounted"] == PAGES + 1
    assert not (job / UNDELIVERED_FILE).exists()  # nothing left to re-deliver
