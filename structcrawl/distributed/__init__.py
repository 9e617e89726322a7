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
:mod:`.ledger` (the page ledger per worker), :mod:`.addon`. Every crawl loads the add-on; the
modules that use Redis are imported on first use (``Coordinator``, ``RedisEntityStore`` and
the others below are found there when asked for), so a crawl that is not distributed does not
import the Redis client (~5 MB of its process).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from structcrawl.changes.store import ChangeStore, register_change_store
from structcrawl.crawl.pipelines.entities import register_shared_entity_store
from structcrawl.distributed.addon import DistributedAddon
from structcrawl.distributed.config import CrawlKeys, DistributedConfig

if TYPE_CHECKING:
    from structcrawl.distributed.changestore import RedisChangeStore
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

#: name -> the module of this package that holds it, imported when the name is first asked for
_LAZY = {
    "Coordinator": "coordination",
    "coordinator_for": "coordination",
    "RedisChangeStore": "changestore",
    "RedisEntityStore": "entitystore",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def shared_entity_store(crawler: Any) -> tuple[RedisEntityStore, Coordinator] | None:
    """For the entity pipeline: the crawl's Redis entity store and its coordinator, or None
    when the crawl is not distributed (told by its settings, before Redis is imported)."""
    if not DistributedConfig.from_settings(crawler.settings).url:
        return None
    from structcrawl.distributed.changestore import connect
    from structcrawl.distributed.coordination import coordinator_for
    from structcrawl.distributed.entitystore import RedisEntityStore

    coordinator = coordinator_for(crawler)  # None only where the URL is unset: told above
    assert coordinator is not None and coordinator.config.url
    store = RedisEntityStore(
        connect(coordinator.config.url), coordinator.keys, expire=coordinator.config.expire
    )
    return store, coordinator


def _redis_change_store(location: str, scope: str) -> ChangeStore:
    """``STRUCTCRAWL_CHANGE_STORE`` at a Redis server (a distributed crawl's, or any)."""
    from structcrawl.distributed.changestore import RedisChangeStore

    return RedisChangeStore.from_url(location, scope)


register_shared_entity_store(shared_entity_store)
register_change_store(("redis", "rediss", "unix"), _redis_change_store)
