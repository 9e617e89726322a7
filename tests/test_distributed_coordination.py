"""Coordination of distributed workers against a real redis-server: who waits, who emits (one
worker, exactly), dead workers do not block, late workers do nothing, Redis outages fail
loudly; the add-on's settings; the distributed page ledger."""

from __future__ import annotations

import threading
import time

import pytest
import redis
import scrapy
from scrapy.exceptions import DontCloseSpider
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.health import crawl_failures
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pipelines.entities import INTERNAL_META
from structcrawl.distributed import (
    Coordinator,
    CrawlKeys,
    DistributedAddon,
    DistributedConfig,
    coordinator_for,
)
from structcrawl.distributed.coordination import CLAIM_META
from structcrawl.distributed.ledger import DistributedPageLedger
from structcrawl.distributed.scheduler import DistributedScheduler
from structcrawl.ledger.extension import LedgerConfig
from tests.servers import free_port
from tests.test_distributed_store import redis_server


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def client(redis_url):
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    yield client
    client.close()


class Site(scrapy.Spider):
    name = "site"

    def parse(self, response):
        pass


def worker(url, crawl="c1", **settings):
    crawler = get_crawler(
        Site,
        settings_dict={
            "STRUCTCRAWL_REDIS_URL": url,
            "STRUCTCRAWL_CRAWL_ID": crawl,
            "STRUCTCRAWL_REDIS_HEARTBEAT": 0.1,
            "STRUCTCRAWL_REDIS_WORKER_TIMEOUT": 0.5,
            "STRUCTCRAWL_REDIS_QUEUE": "priority",  # these tests read the queue's sorted set
            **settings,
        },
    )
    crawler.spider = Site()
    coordinator = Coordinator.from_crawler(crawler)
    assert coordinator_for(crawler) is coordinator  # one per crawler, shared
    coordinator.register()
    return coordinator


def idle(coordinator):
    """What spider_idle does: DontCloseSpider while the crawl goes on."""
    try:
        coordinator.spider_idle()
    except DontCloseSpider:
        return "wait"
    return coordinator.outcome


def test_workers_wait_for_each_other_and_exactly_one_emits(client, redis_url):
    a, b = worker(redis_url), worker(redis_url)
    assert idle(a) == "wait"  # b is busy (registered, not idle yet)
    b.share(b"request", 0)
    assert idle(b) == "wait"  # a request is queued
    assert b.claim()[0] == b"request" and b.status == "busy"  # atomically busy again
    assert idle(a) == "wait"
    assert idle(b) == "emit"  # everything idle, queue empty: b is elected
    assert idle(a) == "done" and a.emitter == b.worker_id
    assert b.may_emit() is True and a.may_emit() is False
    assert client.get(CrawlKeys.of("c1").emitter) == b.worker_id.encode()
    assert a.stats.get_value("structcrawl/distributed/waits") >= 2


def test_one_emitter_when_many_go_idle_at_once(client, redis_url):
    workers = [worker(redis_url, crawl="race") for _ in range(8)]
    go = threading.Barrier(len(workers))
    outcomes = []

    def finish(w):
        go.wait()
        for _ in range(100):
            state = idle(w)
            if state != "wait":
                outcomes.append(state)
                return
            time.sleep(0.01)

    threads = [threading.Thread(target=finish, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(outcomes) == ["done"] * 7 + ["emit"]


def test_a_dead_worker_does_not_block_the_others_and_its_claims_are_requeued(client, redis_url):
    # Expectation changed on purpose (issue 15): a dead worker's claimed requests are put back
    # in the queue, so its death no longer makes the crawl a failure.
    alive, dead = worker(redis_url, crawl="dead"), worker(redis_url, crawl="dead")
    dead.share(b"r1", 1)
    dead.share(b"r2", 2)
    assert dead.claim()[0] == b"r1" and dead.claim()[0] == b"r2"  # two leases, then the worker dies
    keys = CrawlKeys.of("dead")
    assert client.hgetall(keys.claims(dead.worker_id)) == {b"r1": b"1", b"r2": b"2"}
    assert idle(alive) == "wait"  # dead is "busy" until its status expires (0.5 s, no heartbeat)
    time.sleep(0.7)
    assert idle(alive) == "wait"  # its two claims are back in the queue
    assert client.zrange(keys.queue, 0, -1, withscores=True) == [(b"r1", 1.0), (b"r2", 2.0)]
    assert not client.exists(keys.claims(dead.worker_id))
    assert client.hgetall(keys.dead_workers) == {dead.worker_id.encode(): b"2"}
    assert alive.stats.get_value("structcrawl/distributed/requeued") == 2
    assert alive.stats.get_value("structcrawl/distributed/dead_workers") == 1
    assert idle(alive) == "wait"  # swept once only: nothing requeued twice
    assert client.zcard(keys.queue) == 2
    assert alive.claim()[0] == b"r1" and alive.claim()[0] == b"r2"
    assert idle(alive) == "emit"
    assert client.hgetall(keys.failed_workers) == {}
    assert alive.stats.get_value("structcrawl/failure/distributed/workers") is None
    assert not crawl_failures(alive.stats.get_stats())  # nothing was lost: the crawl is whole


def test_the_heartbeat_sweeps_dead_workers_while_the_queue_is_busy(client, redis_url):
    alive, dead = worker(redis_url, crawl="sweep"), worker(redis_url, crawl="sweep")
    for data in (b"a", b"b", b"c"):
        alive.share(data, 0)
    assert dead.claim()[0] == b"a"
    time.sleep(0.7)
    alive.heartbeat()  # no idle check needed: the sweep runs at every beat
    keys = CrawlKeys.of("sweep")
    assert sorted(client.zrange(keys.queue, 0, -1)) == [b"a", b"b", b"c"]
    assert alive.stats.get_value("structcrawl/distributed/requeued") == 1
    alive.heartbeat()
    assert alive.stats.get_value("structcrawl/distributed/requeued") == 1


def test_finished_pages_release_their_leases_and_idle_frees_the_rest(
    client, redis_url, monkeypatch
):
    from twisted.python.failure import Failure

    a = worker(redis_url, crawl="lease")
    scheduled = []  # no reactor runs here: the test calls release() as the next loop would
    monkeypatch.setattr(a.leases._release_soon, "schedule", lambda: scheduled.append(1))
    keys = CrawlKeys.of("lease")
    for data in (b"p1", b"p2", b"p3"):
        a.share(data, 0)
    requests = []
    for _ in range(3):
        request = scrapy.Request("https://s.example/")
        a.leases.take(request.meta, a.claim()[0])
        requests.append(request)
    a.page_finished({}, scrapy.http.Response("https://s.example/", request=requests[0]))
    failure = Failure(ValueError("x"))
    failure.request = requests[1]
    a.item_error({}, failure, failure)
    a.page_finished({}, scrapy.http.Response("https://s.example/", request=requests[0]))  # again
    assert scheduled and client.hlen(keys.claims(a.worker_id)) == 3  # not before the signal ends
    a.leases.release()  # what the reactor does right after the signal
    assert client.hkeys(keys.claims(a.worker_id)) == [b"p3"]
    assert list(a.leases.held.values()) == [b"p3"]
    assert idle(a) == "emit"  # idle: nothing in flight
    assert not client.exists(keys.claims(a.worker_id)) and a.leases.held == {}


def test_a_worker_closing_early_hands_its_claims_back(client, redis_url):
    a, b = worker(redis_url, crawl="back"), worker(redis_url, crawl="back")
    a.share(b"x", 5)
    assert b.claim()[0] == b"x"
    b.spider_closed("shutdown")
    assert client.zrange(CrawlKeys.of("back").queue, 0, -1, withscores=True) == [(b"x", 5.0)]
    assert b.stats.get_value("structcrawl/distributed/handed_back") == 1


def test_heartbeat_keeps_a_worker_alive_and_notices_being_presumed_dead(client, redis_url):
    a, b = worker(redis_url, crawl="beat"), worker(redis_url, crawl="beat")
    for _ in range(8):  # 0.8 s > the 0.5 s timeout, but b keeps beating
        time.sleep(0.1)
        b.heartbeat()
    assert idle(a) == "wait"
    client.delete(CrawlKeys.of("beat").worker(b.worker_id))  # as if b had been stuck too long
    b.heartbeat()
    assert b.stats.get_value("structcrawl/failure/distributed/presumed_dead") == 1
    assert client.get(CrawlKeys.of("beat").worker(b.worker_id)) == b"busy"  # back in


def test_a_worker_whose_keys_the_elected_one_removed_is_not_presumed_dead(client, redis_url):
    a, b = worker(redis_url, crawl="end"), worker(redis_url, crawl="end")
    assert idle(b) == "wait"
    assert idle(a) == "emit"
    a.spider_closed("finished")  # removes every key of the crawl, b's status too
    b.heartbeat()  # before b's own idle check has seen the end
    assert b.stats.get_value("structcrawl/failure/distributed/presumed_dead") is None
    assert idle(b) == "done"


def test_failures_of_other_workers_reach_the_elected_one(client, redis_url):
    a, b = worker(redis_url, crawl="fail"), worker(redis_url, crawl="fail")
    b.stats.set_value("log_count/ERROR", 2)
    assert idle(b) == "wait"
    assert idle(a) == "emit"
    assert a.stats.get_value("structcrawl/failure/distributed/workers") == 1
    assert b"log_count/ERROR" in client.hget(CrawlKeys.of("fail").failed_workers, b.worker_id)


def test_a_worker_starting_after_the_end_does_nothing(client, redis_url):
    a = worker(redis_url, crawl="late")
    assert idle(a) == "emit"
    late = worker(redis_url, crawl="late")
    assert late.finished_before_start and late.outcome == "done" and late.emitter == a.worker_id
    assert late.share(b"x", 0) is False  # nothing can be queued into a finished crawl
    assert idle(late) == "done"


def test_the_elected_worker_removes_the_crawl_state_when_it_finishes(client, redis_url):
    a = worker(redis_url, crawl="gone")
    keys = CrawlKeys.of("gone")
    client.sadd(keys.dupefilter, "fp")
    client.set(keys.entity("id:x"), "{}")
    client.set("structcrawl:gone-2:requests", "another crawl")  # a crawl id sharing a prefix
    assert idle(a) == "emit"
    a.spider_closed("finished")
    assert sorted(client.keys("structcrawl:gone*")) == [
        b"structcrawl:gone-2:requests",
        keys.emitter.encode(),
    ]
    assert 0 < client.ttl(keys.emitter) <= DEFAULTS["STRUCTCRAWL_REDIS_EXPIRE"].default


def test_a_worker_closing_early_is_recorded(client, redis_url):
    a, b = worker(redis_url, crawl="early"), worker(redis_url, crawl="early")
    b.spider_closed("shutdown")
    assert idle(a) == "emit"  # b left: nobody to wait for
    assert a.stats.get_value("structcrawl/failure/distributed/workers") == 1


# -- the scheduler ---------------------------------------------------------------------------


def scheduler_for(url, crawl="s1", monkeypatch=None):
    crawler = get_crawler(
        Site, settings_dict={"STRUCTCRAWL_REDIS_URL": url, "STRUCTCRAWL_CRAWL_ID": crawl}
    )
    crawler.spider = spider = Site()
    scheduler = DistributedScheduler.from_crawler(crawler)
    monkeypatch.setattr(scheduler.coordinator, "start_heartbeat", lambda: None)
    scheduler.open(spider)
    return scheduler, spider


def test_scheduler_shares_new_requests_and_keeps_claimed_ones(client, redis_url, monkeypatch):
    one, spider = scheduler_for(redis_url, monkeypatch=monkeypatch)
    two, _ = scheduler_for(redis_url, monkeypatch=monkeypatch)
    assert one.enqueue_request(scrapy.Request("https://s.example/a", callback=spider.parse))
    assert not two.enqueue_request(scrapy.Request("https://s.example/a"))  # shared dupefilter
    assert two.has_pending_requests() and len(two) == 1
    got = two.next_request()
    assert got.url == "https://s.example/a" and got.meta[CLAIM_META] == two.coordinator.worker_id
    assert got.callback.__name__ == "parse"
    retry = got.replace(dont_filter=True)  # a retry carries the claim: it stays on `two`
    assert two.enqueue_request(retry) and client.zcard(CrawlKeys.of("s1").queue) == 0
    assert two.next_request() is retry
    internal = scrapy.Request("data:,x", dont_filter=True, meta={INTERNAL_META: True})
    assert one.enqueue_request(internal) and one.next_request() is internal
    odd = scrapy.Request("https://s.example/odd", meta={"obj": object()})
    assert one.enqueue_request(odd) and one.next_request() is odd  # JSON cannot carry it
    assert one.stats.get_value("structcrawl/distributed/kept_local") == 1
    assert one.next_request() is None and not one.has_pending_requests()


def test_losing_redis_fails_loudly_and_drops_nothing_silently(tmp_path, monkeypatch, caplog):
    with redis_server(tmp_path / "redis") as url:
        scheduler, spider = scheduler_for(url, crawl="outage", monkeypatch=monkeypatch)
        assert scheduler.enqueue_request(scrapy.Request("https://s.example/a"))
    # the server is gone
    assert scheduler.next_request() is None
    coordinator = scheduler.coordinator
    assert coordinator.failed and scheduler.stats.get_value("structcrawl/failure/redis") >= 1
    assert scheduler.enqueue_request(scrapy.Request("https://s.example/b"))
    scheduler.close("redis-unavailable")
    assert "https://s.example/b" in caplog.text and "not crawled" in caplog.text
    assert crawl_failures(scheduler.stats.get_stats())  # scrapy crawl exits 1


def test_an_unreachable_server_stops_the_crawl_at_start():
    crawler = get_crawler(
        Site,
        settings_dict={
            "STRUCTCRAWL_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
            "STRUCTCRAWL_CRAWL_ID": "x",
        },
    )
    crawler.spider = Site()
    with pytest.raises(redis.ConnectionError):
        DistributedScheduler.from_crawler(crawler)


# -- the page ledger per worker --------------------------------------------------------------


def test_ledger_counts_a_url_on_the_worker_that_fetched_it(tmp_path, redis_url, monkeypatch):
    scheduler, spider = scheduler_for(redis_url, crawl="ledger", monkeypatch=monkeypatch)
    crawler = scheduler.crawler
    crawler.spider = spider
    ledger = DistributedPageLedger(
        crawler, LedgerConfig(True, str(tmp_path / "ledger.jsonl"), None)
    )
    ledger.spider_opened()
    request = scrapy.Request("https://s.example/p")
    ledger.request_scheduled(request)  # scheduled here, not yet requested by anyone
    assert crawler.stats.get_value("structcrawl/ledger/requested") is None
    other = scrapy.Request("https://s.example/p")
    ledger.request_dropped(other)  # another worker's duplicate
    assert crawler.stats.get_value("structcrawl/ledger/filtered/dupefilter") == 1
    scheduler.enqueue_request(request)
    claimed = scheduler.next_request()  # claimed here: requested here
    assert crawler.stats.get_value("structcrawl/ledger/requested") == 1
    ledger.item_scraped(PageItem(url=claimed.url, final_url=claimed.url, status=200, records=[]))
    ledger.spider_closed("finished")
    assert crawler.stats.get_value("structcrawl/ledger/accounted") == 1
    assert not any(k.startswith("structcrawl/failure/") for k in crawler.stats.get_stats())


# -- settings --------------------------------------------------------------------------------


def project_settings(**extra):
    from structcrawl import settings as module
    from structcrawl.crawl.addon import Addon

    settings = Settings()
    settings.setmodule(module, priority="project")
    settings.setdict(extra, priority="cmdline")
    Addon().update_settings(
        settings
    )  # as the crawler applies ADDONS (it includes DistributedAddon)
    return settings


def test_addon_changes_nothing_without_a_redis_url():
    settings = project_settings()
    DistributedAddon().update_settings(settings)
    assert settings["SCHEDULER"] == "scrapy.core.scheduler.Scheduler"
    assert settings["EXTENSIONS"]["structcrawl.ledger.extension.PageLedger"] == 400


def test_addon_makes_a_worker_of_a_distributed_crawl():
    settings = project_settings(
        STRUCTCRAWL_REDIS_URL="redis://127.0.0.1:1/0", STRUCTCRAWL_CRAWL_ID="c"
    )
    DistributedAddon().update_settings(settings)
    assert settings["SCHEDULER"] == "structcrawl.distributed.scheduler.DistributedScheduler"
    assert (
        settings.getbool("SCHEDULER_PERSIST")
        and settings.getint("SCHEDULER_IDLE_BEFORE_CLOSE") == 0
    )
    assert settings["DUPEFILTER_CLASS"] == "scrapy_redis.dupefilter.RFPDupeFilter"
    extensions = settings["EXTENSIONS"]
    assert extensions["structcrawl.ledger.extension.PageLedger"] is None
    assert extensions["structcrawl.distributed.ledger.DistributedPageLedger"] == 400
    assert "structcrawl.distributed.coordination.Coordinator" in extensions
    assert settings["STRUCTCRAWL_CHANGE_STORE"] == "redis://127.0.0.1:1/0"
    mine = project_settings(
        STRUCTCRAWL_REDIS_URL="redis://127.0.0.1:1/0", STRUCTCRAWL_CHANGE_STORE="/srv/c.sqlite"
    )
    DistributedAddon().update_settings(mine)
    assert mine["STRUCTCRAWL_CHANGE_STORE"] == "/srv/c.sqlite"  # yours wins


def test_crawl_ids():
    config = DistributedConfig.from_settings(Settings({"STRUCTCRAWL_REDIS_URL": "redis://h/0"}))
    with pytest.raises(ValueError, match="STRUCTCRAWL_CRAWL_ID"):
        config.resolve_crawl_id(Site())
    spider = Site(_job="demo-site-20261201T0615Z")  # scrapyd's job id, e.g. from a schedule
    assert config.resolve_crawl_id(spider) == "demo-site-20261201T0615Z"
    bad = DistributedConfig.from_settings(Settings({"STRUCTCRAWL_CRAWL_ID": "a:b*"}))
    with pytest.raises(ValueError, match="letters"):
        bad.resolve_crawl_id(None)
    with pytest.raises(ValueError, match="3 heartbeats"):
        DistributedConfig.from_settings(Settings({"STRUCTCRAWL_REDIS_WORKER_TIMEOUT": 1}))
