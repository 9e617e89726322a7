"""The Redis stores of distributed crawls, against a real redis-server on 127.0.0.1: entity
merge state (concurrent merges of one key from several processes and threads lose nothing),
change-detection state (the ChangeStore protocol), requests as JSON.

``redis_server`` (also used by the other ``test_distributed_*`` files) starts its own
redis-server on a free port, with no persistence, in its own directory, stopped by PID; under
``CI=true`` a missing redis-server is a failure.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
import scrapy
from scrapy.utils.request import request_from_dict

from structcrawl.changes import ChangeStore, ChangeTracker, fingerprint, open_change_store
from structcrawl.distributed import CrawlKeys, RedisChangeStore, RedisEntityStore, _serial
from structcrawl.entities import add_record, entity_view, new_state, precedence_ranks
from tests.servers import free_port, require

RANKS = precedence_ranks(["json-ld", "microdata", "rdfa"])


@contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """A redis-server of our own on 127.0.0.1; yields its URL (database 0)."""
    exe = shutil.which("redis-server")
    require(exe is not None, "redis-server is not installed (apt-get install redis-server)")
    assert exe is not None
    directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = (directory / "redis.log").open("wb")
    proc = subprocess.Popen(
        [
            exe,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
        ],
        stdout=log,
        stderr=log,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"redis-server did not start; see {directory}/redis.log"
                    ) from None
                time.sleep(0.05)
        client.close()
        yield url
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
        log.close()


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


def sighting(price, fmt="json-ld", page=1):
    return {
        "kind": "entity",
        "format": fmt,
        "type": ["Product"],
        "id": "https://s.example/p#x",
        "key": "id:https://s.example/p#x",
        "source_element": f"/html/script[{page}]",
        "properties": {"name": "X", "price": price},
        "provenance": {"fields": {}},
    }


def merge_into(store, key, record, page):
    def merge(states):
        created = 0
        if key not in states:
            states[key] = new_state(key)
            created = 1
        add_record(
            states[key], record, page_url=page, retrieved_at="2026-01-01T00:00:00Z", ranks=RANKS
        )
        return created

    return store.update(
        [key], merge, [(key, page, record["format"], record["source_element"], None)]
    )


# -- requests as JSON ------------------------------------------------------------------------


class _Spider(scrapy.Spider):
    name = "s"

    def parse(self, response):
        pass

    def failed(self, failure):
        pass


def test_requests_travel_as_json_not_pickle():
    spider = _Spider()
    request = scrapy.Request(
        "https://s.example/p?q=1",
        callback=spider.parse,
        errback=spider.failed,
        method="POST",
        body=b"\x00\xffdata",
        headers={"X-A": "1"},
        priority=3,
        meta={"depth": 2, "structcrawl_ledger": "https://s.example/p", "pair": (1, "b")},
        cb_kwargs={"n": 1},
    )
    data = _serial.dumps(request.to_dict(spider=spider))
    assert data.startswith(b"{") and b"\x80" not in data[:2]  # JSON, not a pickle
    back = request_from_dict(_serial.loads(data), spider=spider)
    assert (back.url, back.method, back.body, back.priority) == (
        request.url,
        "POST",
        b"\x00\xffdata",
        3,
    )
    assert back.headers.getlist("X-A") == [b"1"]
    assert back.meta == request.meta and back.cb_kwargs == {"n": 1}
    assert back.callback == spider.parse and back.errback == spider.failed
    with pytest.raises(TypeError):  # the scheduler then keeps the request on its own worker
        _serial.dumps(
            scrapy.Request("https://s.example/", meta={"page": object()}).to_dict(spider=spider)
        )
    assert _serial.loads(_serial.dumps({"$b": "not a tag"})) == {"$b": "not a tag"}


# -- the entity store ------------------------------------------------------------------------


def test_entity_store_merges_and_lists_entities(client):
    store = RedisEntityStore(client, CrawlKeys.of("t1"), expire=3600)
    key = "id:https://s.example/p#x"
    assert merge_into(store, key, sighting("10.00"), "https://s.example/a") == 1
    assert merge_into(store, key, sighting("10.0", fmt="microdata"), "https://s.example/b") == 0
    assert (
        merge_into(
            store,
            "id:other",
            {**sighting("5"), "key": "id:other", "id": "other"},
            "https://s.example/a",
        )
        == 1
    )
    assert len(store) == 2
    states = list(store.states())
    assert [s["key"] for s in states] == [key, "id:other"]  # in order of first merge
    view = entity_view(states[0])
    assert view["sightings"] == 2 and view["conflicts"] == []  # 10.00 == 10.0
    assert view["formats"] == ["json-ld", "microdata"]
    assert [s["url"] for s in store.sources(key)] == ["https://s.example/a", "https://s.example/b"]
    assert set(store.load([key, "id:none"])) == {key}
    ttl = client.pttl(CrawlKeys.of("t1").entity(key))
    assert 0 < ttl <= 3600 * 1000  # a crawl nobody finishes cleans up after itself


def _merge_many(url, key, count, barrier, results):
    client = redis.Redis.from_url(url)
    store = RedisEntityStore(client, CrawlKeys.of("race"))
    record = sighting("10.00")
    barrier.wait()
    for i in range(count):

        def merge(states, i=i):
            if key not in states:
                states[key] = new_state(key)
            add_record(
                states[key],
                record,
                page_url=f"https://s.example/{os.getpid()}/{i}",
                retrieved_at=None,
                ranks=RANKS,
            )
            time.sleep(0.0005)  # widen the read-modify-write window: other writers get in
            return 0

        store.update(
            [key], merge, [(key, f"https://s.example/{os.getpid()}/{i}", "json-ld", "", None)]
        )
    results.put(store.conflicts)
    client.close()


def test_concurrent_merges_of_one_key_from_two_processes_lose_nothing(client, redis_url):
    key = "id:https://s.example/p#x"
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [
        ctx.Process(target=_merge_many, args=(redis_url, key, 150, barrier, results))
        for _ in range(2)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    conflicts = results.get(timeout=5) + results.get(timeout=5)
    store = RedisEntityStore(client, CrawlKeys.of("race"))
    (state,) = store.states()
    assert state["sightings"] == 300  # every merge of both processes is in the state
    assert state["fields"]["price"][0]["count"] == 300
    assert len(store.sources(key)) == 300 and len(store) == 1
    assert conflicts > 0  # the processes really did collide, and the collisions were retried


def test_concurrent_merges_from_threads_and_what_a_plain_load_save_would_lose(client):
    key = "id:https://s.example/p#x"
    stores = [
        RedisEntityStore(redis.Redis(connection_pool=client.connection_pool), CrawlKeys.of("th"))
        for _ in range(3)
    ]
    start = threading.Barrier(3)

    def work(store):
        start.wait()
        for i in range(60):

            def merge(states, i=i):
                states.setdefault(key, new_state(key))
                add_record(
                    states[key], sighting("1"), page_url=f"u{i}", retrieved_at=None, ranks=RANKS
                )
                time.sleep(0.0005)

            store.update([key], merge, [])

    threads = [threading.Thread(target=work, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert next(stores[0].states())["sightings"] == 180
    assert sum(s.conflicts for s in stores) > 0

    # the same race without the transaction (load, merge, save) loses sightings
    naive = RedisEntityStore(client, CrawlKeys.of("naive"))
    start = threading.Barrier(3)

    def plain(_):
        start.wait()
        for i in range(30):
            states = naive.load([key])
            states.setdefault(key, new_state(key))
            add_record(states[key], sighting("1"), page_url=f"u{i}", retrieved_at=None, ranks=RANKS)
            time.sleep(0.002)
            naive.save(states, [])

    threads = [threading.Thread(target=plain, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert next(naive.states())["sightings"] < 90


# -- the change store ------------------------------------------------------------------------


def fp(key, value=1):
    return fingerprint({"key": key, "properties": {"v": value}})


def run(url, fingerprints, *, drop_unseen=True, scope="site:a"):
    store = open_change_store(url, scope)
    store.begin()
    store.save(fingerprints)
    unseen = sorted(f.key for f in store.unseen())
    store.commit(drop_unseen=drop_unseen)
    store.close()
    return unseen


def test_change_store_follows_the_protocol(client, redis_url):
    store = open_change_store(redis_url, "site:a")
    assert isinstance(store, RedisChangeStore) and isinstance(store, ChangeStore)
    store.close()
    assert run(redis_url, [fp("a"), fp("b")]) == []
    store = RedisChangeStore.from_url(redis_url, "site:a")
    assert len(store) == 2
    assert store.load(["a", "b", "x"]) == {"a": fp("a"), "b": fp("b")}
    store.close()
    assert client.ttl("structcrawl:changes:site:a") == -1  # committed state never expires


def test_change_store_staging_unseen_drop_and_scopes(client, redis_url):
    run(redis_url, [fp("a", 1)])
    store = RedisChangeStore.from_url(redis_url, "site:a")
    store.begin()
    store.save([fp("a", 2), fp("b", 2)])
    assert store.load(["a", "b"]) == {"a": fp("a", 1)}  # still the previous run
    assert 0 < client.ttl(store.staged)  # an abandoned run's staging expires
    store.close()  # never commits
    assert run(redis_url, [fp("a", 3)]) == []
    assert RedisChangeStore.from_url(redis_url, "site:a").load(["a", "b"]) == {"a": fp("a", 3)}

    run(redis_url, [fp("a"), fp("b"), fp("c")])
    assert run(redis_url, [fp("a")], drop_unseen=False) == ["b", "c"]  # kept
    assert run(redis_url, [fp("a"), fp("b")], drop_unseen=True) == ["c"]  # dropped
    assert run(redis_url, [fp("a"), fp("b")]) == []
    assert run(redis_url, [], drop_unseen=True) == ["a", "b"]
    assert len(RedisChangeStore.from_url(redis_url, "site:a")) == 0

    run(redis_url, [fp("x")], scope="site:b")
    assert run(redis_url, [fp("y")], scope="site:c") == []
    assert RedisChangeStore.from_url(redis_url, "site:b").load(["x", "y"]) == {"x": fp("x")}


def test_change_tracker_runs_on_redis(client, redis_url):
    first = ChangeTracker(RedisChangeStore.from_url(redis_url, "s"))
    assert [
        c.status
        for c in first.observe(
            [{"key": "a", "properties": {"v": 1}}, {"key": "b", "properties": {"v": 1}}]
        )
    ] == ["new", "new"]
    assert list(first.gone(report=True)) == []
    first.commit()
    second = ChangeTracker(RedisChangeStore.from_url(redis_url, "s"))
    assert [
        (c.status, c.fields) for c in second.observe([{"key": "a", "properties": {"v": 2}}])
    ] == [("changed", ("v",))]
    assert [(f.key, c.status) for f, c in second.gone(report=True)] == [("b", "gone")]
    second.commit()
    assert RedisChangeStore.from_url(redis_url, "s").load(["a", "b"]).keys() == {"a"}


def test_large_change_runs(client, redis_url):
    many = [fp(f"k{i}", i) for i in range(1300)]
    assert run(redis_url, many) == []
    assert run(redis_url, many[:1000], drop_unseen=False) == sorted(
        f"k{i}" for i in range(1000, 1300)
    )
    assert len(RedisChangeStore.from_url(redis_url, "site:a")) == 1300


_NOT_DISTRIBUTED = """
import sys
import structcrawl.distributed as distributed
from scrapy.utils.test import get_crawler
from structcrawl.changes import open_change_store

assert distributed.shared_entity_store(get_crawler(settings_dict={})) is None
print("redis" in sys.modules)
store = open_change_store("redis://127.0.0.1:1/0", "scope")  # no command sent: no connection
print(type(store).__name__, "redis" in sys.modules, distributed.RedisEntityStore.__name__)
"""


def test_a_crawl_that_is_not_distributed_does_not_import_redis():
    """The add-on every crawl loads imports the Redis client only where it is used: a shared
    store, a ``redis://`` change store, a name of the package asked for."""
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _NOT_DISTRIBUTED], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "RedisChangeStore", "True", "RedisEntityStore"]
