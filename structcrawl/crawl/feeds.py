"""Feed routing: item filters for ``FEEDS`` and the add-on behind ``STRUCTCRAWL_INVALID_FEED``.

Scrapy's ``FEEDS`` takes an ``item_filter`` per feed; these route entity items by their
validation result::

    FEEDS = {
        "output/entities.jsonl": {
            "format": "entities", "item_filter": "structcrawl.crawl.feeds.ValidEntities"},
        "output/invalid.jsonl": {
            "format": "entities", "item_filter": "structcrawl.crawl.feeds.InvalidEntities"},
    }

Setting ``STRUCTCRAWL_INVALID_FEED`` to a feed URI does exactly that for every entity feed
(:class:`InvalidFeedAddon`, enabled in ``ADDONS``). Without it, invalid entities stay in the
main feeds, each with its ``validation`` result.
"""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter

__all__ = ["ENTITY_FORMATS", "EntityFilter", "InvalidEntities", "InvalidFeedAddon", "ValidEntities"]

ENTITY_FORMATS = frozenset({"entities", "entities-csv"})


class EntityFilter:
    """Accepts entity items whose ``validation.valid`` equals :attr:`valid`; passes any other
    item (feeds choose their items by format too)."""

    valid: bool = True

    def __init__(self, feed_options: dict[str, Any] | None = None):
        self.feed_options = feed_options

    def accepts(self, item: Any) -> bool:
        adapter = ItemAdapter(item)
        if "conflicts" not in adapter.field_names():
            return True
        validation = adapter.get("validation") or {}
        return bool(validation.get("valid", True)) is self.valid


class ValidEntities(EntityFilter):
    valid = True


class InvalidEntities(EntityFilter):
    valid = False


class InvalidFeedAddon:
    """Routes invalid entities to ``STRUCTCRAWL_INVALID_FEED`` (a feed URI), if set."""

    def update_settings(self, settings: Any) -> None:
        uri = settings.get("STRUCTCRAWL_INVALID_FEED")
        if not uri:
            return
        feeds = dict(settings.getdict("FEEDS"))
        for options in feeds.values():
            if options.get("format") in ENTITY_FORMATS and not options.get("item_filter"):
                options["item_filter"] = ValidEntities
        feeds[uri] = {"format": "entities", "item_filter": InvalidEntities}
        settings.set("FEEDS", feeds, priority=settings.getpriority("FEEDS") or "addon")
