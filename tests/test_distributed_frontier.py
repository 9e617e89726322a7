"""The distributed crawl's frontier: the Bloom duplicate filter, the queue per host and the
politeness every worker shares (structcrawl.distributed.bloom, .frontier, .politeness)."""

from __future__ import annotations

import hashlib
import time

import pytest
import scrapy
from scrapy.utils.test import get_crawler

from structcrawl.distributed import CrawlKeys
from structcrawl.distributed.bloom import BloomDupeFilter, BloomSize, positions, sampled
from structcrawl.distributed.coordination import CLAIM_META
from structcrawl.distributed.frontier import HostFrontier, pack, unpack
from structcrawl.distributed.politeness import SLOT_META
from structcrawl.distributed.scheduler import DistributedScheduler
from tests import test_distributed_store as _store

redis_url, client = _store.redis_url, _store.client  # the Redis server fixtures, shared


class Stats(dict):
    def inc_value(self, key, count=1):
        self[key] = self.get(key, 0) + count


def fp(text: str) -> bytes:
    return hashlib.sha1(text.encode()).digest()


# -- the Bloom filter ------------------------------------------------------------------------


def test_sizing_follows_the_textbook_formula_and_splits_large_filters():
    size = BloomSize.of(1_000_000, 0.001)
    assert size.hashes == 10 and 14.3 < size.bits / 1e6 < 14.4  # 1.8 bytes per URL
    assert abs(size.expected_error(1_000_000) - 0.001) < 0.0001
    huge = BloomSize.of(1_000_000_000, 0.001)  # 1.8 GB: more than one Redis string holds
    assert huge.segments == 4 and huge.segment_bits < 2**32
    assert BloomSize.load(huge.dump()) == huge
    with pytest.raises(ValueError):
        BloomSize.of(10, 1.5)


def test_positions_are_spread_and_stable():
    size = BloomSize.of(1000, 0.01)
    segment, bits = positions(fp("a"), size)
    assert (segment, bits) == positions(fp("a"), size) and len(set(bits)) == size.hashes
    assert all(0 <= b < size.segment_bits for b in bits)
    assert sum(sampled(fp(str(i)), 64) for i in range(64_000)) in range(850, 1150)
    assert not sampled(fp("a"), 0)


def test_the_filter_refuses_what_it_saw_and_its_false_positives_stay_near_the_target(client):
    stats = Stats()
    size = BloomSize.of(5000, 0.01)
    bloom = BloomDupeFilter(client, "t:", size, sample=1, fingerprint=fp, stats=stats)
    assert [bloom.add(fp(f"u{i}")) for i in range(3)] == [1, 1, 1]
    assert bloom.add(fp("u1")) == 0  # seen: refused, never a false negative
    for i in range(3, 4500):
        bloom.add(fp(f"u{i}"))
    assert all(bloom.add(fp(f"u{i}")) == 0 for i in range(0, 4500, 37))
    # with every fingerprint sampled, each false positive is caught, counted, let through
    caught = [bloom.add(fp(f"new{i}")) for i in range(500)]
    assert caught.count(0) == 0 and caught.count(2) < 500 * 0.03
    memory = client.memory_usage("t:bloom:0")  # the bitmap, in the allocator's size class
    assert size.bits / 8 < memory < size.bits / 8 * 1.5


def test_the_first_workers_size_is_the_crawls(client, caplog):
    one = BloomDupeFilter(
        client, "s:", BloomSize.of(1000, 0.01), sample=0, fingerprint=fp, stats=Stats()
    )
    two = BloomDupeFilter(
        client, "s:", BloomSize.of(9000, 0.001), sample=0, fingerprint=fp, stats=Stats()
    )
    assert two.size == one.size and "sized by another worker" in caplog.text
    assert one.add(fp("x")) == 1 and two.add(fp("x")) == 0


# -- the queue per host ----------------------------------------------------------------------


def request_dict(url, **fields):
    spider = scrapy.Spider(name="x")
    return scrapy.Request(url, **fields).to_dict(spider=spider)


def test_entries_are_compact_and_read_back_unchanged():
    plain = request_dict("https://a.example/p/1", meta={"depth": 2}, priority=-2)
    entry = pack(plain)
    assert entry.relative == b'/p/1 {"m":{"depth":2},"p":-2}' and not entry.front
    assert unpack(entry.relative, entry.origin) == plain
    assert unpack(entry.full, "") == plain
    post = request_dict(
        "http://b.example:8080/f?x=1",
        method="POST",
        body=b"k=v",
        headers={"X-A": "1"},
        priority=3,
        dont_filter=True,
    )
    entry = pack(post)
    assert entry.host == "b.example" and entry.origin == "http://b.example:8080" and entry.front
    assert unpack(entry.relative, entry.origin) == post


def frontier(client, crawl="f", delay=0.0, concurrency=1):
    keys = CrawlKeys.of(crawl)
    return HostFrontier(client, keys, delay, concurrency, expire=3600), keys


def claim(front, keys, worker="w1"):
    return front.claim(
        [keys.worker(worker), keys.workers, keys.claims(worker)], [60_000, worker, 3_600_000]
    )


def test_hosts_take_turns_and_one_large_site_does_not_starve_the_others(client):
    front, keys = frontier(client)
    for i in range(50):
        front.share(request_dict(f"https://big.example/{i}"))
    front.share(request_dict("https://small.example/1"))
    front.share(request_dict("https://tiny.example/1"))
    assert front.queue_size() == 52
    first = claim(front, keys)
    assert not isinstance(first, float)
    claims = keys.claims("w1")
    front.release_slot(claims, first[0])
    seen = [front.decode(first[1], first[2])["url"]]
    for _ in range(2):
        got = claim(front, keys)
        assert not isinstance(got, float)
        seen.append(front.decode(got[1], got[2])["url"])
        front.release_slot(claims, got[0])
    assert {url.split("/")[2] for url in seen} == {"big.example", "small.example", "tiny.example"}
    assert front.queue_size() == 49 and client.llen(keys.base + "q:big.example") == 49


def test_a_hosts_delay_and_its_slots_hold_for_every_worker(client):
    front, keys = frontier(client, delay=0.3, concurrency=1)
    for i in range(3):
        front.share(request_dict(f"https://a.example/{i}"))
    got = claim(front, keys, "w1")
    assert not isinstance(got, float)
    assert claim(front, keys, "w2") == -1.0  # the one slot is taken: no other worker fetches
    front.release_slot(keys.claims("w1"), got[0])
    wait = claim(front, keys, "w2")
    assert isinstance(wait, float) and 0.2 < wait <= 0.3  # the delay runs from the end
    # a retry kept by w1 waits its turn like the others
    assert front.take_slot(keys.claims("w1"), "a.example", "t1", 3_600_000) > 0
    time.sleep(wait + 0.02)
    again = claim(front, keys, "w2")
    assert not isinstance(again, float)
    front.pause("a.example", 1.0)  # Retry-After
    front.release_slot(keys.claims("w2"), again[0])
    assert claim(front, keys, "w1") > 0.9


def test_a_dead_workers_claims_go_back_to_their_host_and_free_its_slots(client):
    front, keys = frontier(client, concurrency=1)
    front.share(request_dict("https://a.example/1"))
    front.share(request_dict("https://a.example/2"))
    got = claim(front, keys, "dead")
    assert not isinstance(got, float)
    assert front.take_slot(keys.claims("dead"), "b.example", "t1", 3_600_000) == 0
    assert client.hgetall(keys.claims("dead")) == {
        got[0]: b"1",
        b"!b.example t1": b"1",
        b"#a.example": b"1",  # the slots of each host it holds
        b"#b.example": b"1",
    }
    requeue = front.script("return requeue(KEYS[2])")
    assert requeue(keys=[keys.queued, keys.claims("dead")], args=front.tail) == 1
    assert client.hget(keys.base + "inflight", "a.example") is None
    assert client.hget(keys.base + "inflight", "b.example") is None
    assert front.queue_size() == 2
    back = claim(front, keys, "alive")
    assert not isinstance(back, float) and back[1] == got[1]  # first again, in front


def urls(front, keys, worker, count):
    """The URLs of up to ``count`` claims by ``worker`` (a wait ends the list)."""
    out = []
    for _ in range(count):
        got = claim(front, keys, worker)
        if isinstance(got, float):
            break
        out.append(front.decode(got[1], got[2])["url"])
    return out


def test_each_live_worker_holds_at_most_its_share_of_a_hosts_slots(client):
    front, keys = frontier(client, concurrency=4)
    for i in range(20):
        front.share(request_dict(f"https://a.example/{i}"))
    front.share(request_dict("https://b.example/1"))
    client.sadd(keys.workers, "w1", "w2")  # two live workers: two of a.example's four each
    first = urls(front, keys, "w1", 5)
    # hosts take turns; at its share of a.example, w1 has nothing more to take
    assert first == ["https://a.example/0", "https://b.example/1", "https://a.example/1"]
    assert claim(front, keys, "w1") == -1.0  # its own slots given back will wake it
    front.share(request_dict("https://b.example/2"))
    front.pause("b.example", 0.2)  # b is due after a, which w1 may not take
    wait = claim(front, keys, "w1")
    assert isinstance(wait, float) and 0 < wait <= 0.2
    time.sleep(wait + 0.02)
    assert urls(front, keys, "w1", 2) == ["https://b.example/2"]  # past a, at its share
    assert front.take_slot(keys.claims("w1"), "a.example", "t1", 3_600_000) == -1
    assert urls(front, keys, "w2", 5) == ["https://a.example/2", "https://a.example/3"]
    assert client.hget(keys.base + "inflight", "a.example") == b"4"
    assert client.hget(keys.claims("w1"), "#a.example") == b"2"
    fields = [f for f in client.hkeys(keys.claims("w1")) if f.startswith(b"a.example ")]
    front.release_slot(keys.claims("w1"), fields[0])  # w1 gives one back: it may take one again
    assert client.hget(keys.claims("w1"), "#a.example") == b"1"
    assert claim(front, keys, "w2") == -1.0
    assert urls(front, keys, "w1", 5) == ["https://a.example/4"]
    # w2 dies: when it is reaped, its slots and its share go to the one left
    client.srem(keys.workers, "w2")
    requeue = front.script("return requeue(KEYS[2])")
    assert requeue(keys=[keys.queued, keys.claims("w2")], args=front.tail) == 2
    assert sorted(urls(front, keys, "w1", 5)) == ["https://a.example/2", "https://a.example/3"]
    assert client.hget(keys.base + "inflight", "a.example") == b"4"


def test_the_scheduler_filters_with_bloom_and_shares_politeness(client, redis_url, monkeypatch):
    crawler = get_crawler(
        scrapy.Spider,
        settings_dict={
            "STRUCTCRAWL_REDIS_URL": redis_url,
            "STRUCTCRAWL_CRAWL_ID": "sch",
            "DOWNLOAD_DELAY": 5,
            "STRUCTCRAWL_REDIS_EXPECTED_URLS": 1000,
        },
    )
    crawler.spider = spider = scrapy.Spider(name="x")
    scheduler = DistributedScheduler.from_crawler(crawler)
    monkeypatch.setattr(scheduler.coordinator, "start_heartbeat", lambda: None)
    wakes = []
    monkeypatch.setattr(scheduler.coordinator, "wake_in", wakes.append)
    scheduler.open(spider)
    assert isinstance(scheduler.df, BloomDupeFilter)
    assert scheduler.enqueue_request(scrapy.Request("https://a.example/1"))
    assert not scheduler.enqueue_request(scrapy.Request("https://a.example/1"))
    assert scheduler.enqueue_request(scrapy.Request("https://a.example/2"))
    first = scheduler.next_request()
    assert first.url == "https://a.example/1" and first.meta[SLOT_META].startswith(b"a.example ")
    assert scheduler.next_request() is None  # the host's one slot is taken
    scheduler.polite.left_downloader(first)
    assert scheduler.next_request() is None  # then its delay runs
    assert 4 < wakes[-1] <= 5  # and the engine is woken when it ends
    retry = first.replace(dont_filter=True)
    assert retry.meta[CLAIM_META] and scheduler.enqueue_request(retry)
    assert scheduler.next_request() is None and len(scheduler.local) == 1  # the retry waits too
    keys = CrawlKeys.of("sch")
    assert float(client.hget(keys.base + "next", "a.example")) > time.time() * 1000 + 4000
    scheduler.coordinator.spider_closed("shutdown")
