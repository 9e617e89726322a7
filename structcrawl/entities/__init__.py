"""Deduplication of entities by key across layers and pages (merge core + stores)."""

from structcrawl.entities.flatten import compact, flatten, hoist, unflatten
from structcrawl.entities.merge import (
    DEFAULT_PRECEDENCE,
    add_record,
    entity_view,
    is_entity,
    new_state,
    precedence_ranks,
)
from structcrawl.entities.store import EntityStore, SqliteEntityStore

__all__ = [
    "DEFAULT_PRECEDENCE",
    "EntityStore",
    "SqliteEntityStore",
    "add_record",
    "compact",
    "entity_view",
    "flatten",
    "hoist",
    "is_entity",
    "new_state",
    "precedence_ranks",
    "unflatten",
]
