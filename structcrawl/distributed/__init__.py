"""One crawl across several machines through one Redis server (docs/distributed.md).

Set ``STRUCTCRAWL_REDIS_URL`` and ``STRUCTCRAWL_CRAWL_ID`` and run the same ``scrapy crawl``
command on every worker: :class:`DistributedAddon` then shares, in Redis,

* the request queue and the duplicate filter (scrapy-redis; :mod:`.scheduler`), so each URL
  is fetched once by one of the workers;
* the entity merge state (:class:`RedisEntityStore`: atomic read-merge-write per entity), so
  sightings from every worker meet under one key;
* the change-detection state between runs (:class:`RedisChangeStore`);
* who is still working (:class:`Coordinator`): workers stay open while the queue has requests
  or another worker is busy, and when everything is idle exactly one of them is elected to
  emit the entities.

Modules: :mod:`.config` (settings and key names, pure), :mod:`._serial` (requests as JSON),
:mod:`.entitystore`, :mod:`.changestore`, :mod:`.coordination`, :mod:`.scheduler`,
:mod:`.ledger` (the page ledger per worker), :mod:`.addon`.
"""

from __future__ import annotations

from typing import Any

from structcrawl.crawl.pipelines.entities import register_shared_entity_store
from structcrawl.distributed.addon import DistributedAddon
from structcrawl.distributed.changestore import RedisChangeStore
from structcrawl.distributed.config import CrawlKeys, DistributedConfig
from structcrawl.distributed.coordination import Coordinator, coordinator_for
from structcrawl.distributed.entitystore import RedisEntityStore

__all__ = [
    "Coordinator",
    "CrawlKeys",
    "DistributedAddon",
    "DistributedConfig",
    "RedisChangeStore",
    "RedisEntityStore",
    "coordinator_for",
    "shared_entity_store",
]


def shared_entity_store(crawler: Any) -> tuple[RedisEntityStore, Coordinator] | None:
    """For the entity pipeline: the crawl's Redis entity store and its coordinator, or None
    when the crawl is not distributed."""
    coordinator = coordinator_for(crawler)
    if coordinator is None:
        return None
    from structcrawl.distributed.changestore import connect

    assert coordinator.config.url
    store = RedisEntityStore(
        connect(coordinator.config.url), coordinator.keys, expire=coordinator.config.expire
    )
    return store, coordinator


register_shared_entity_store(shared_entity_store)
