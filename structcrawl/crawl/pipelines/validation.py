"""Validation: every entity record of a page gets ``record["validation"]`` (and, when the
page item carries visible facts, ``record["conflicts"]``).

Invalid records are still emitted; ``record["validation"]["valid"]`` is what a separate
feed of invalid records (``STRUCTCRAWL_INVALID_FEED``) is routed on. Stats:
``structcrawl/validate/records/valid|invalid|skipped``,
``structcrawl/validate/error/<Type>/<field>``, ``structcrawl/validate/warning/<Type>/<field>``
(fields without list indices: ``offers.price``) and
``structcrawl/validate/conflict/<code>``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from structcrawl.core.bounded import STATS_NAMES, CappedNames
from structcrawl.core.records import short_schema_name
from structcrawl.crawl.config import ValidateConfig
from structcrawl.validate import Validator
from structcrawl.validate._issues import stat_field
from structcrawl.validate.page import check_page
from structcrawl.validate.vocabulary import is_schema_term
from structcrawl.visible.facts import VisibleFacts

__all__ = ["ValidationPipeline", "entity_record", "stat_type"]

_PREFIX = "structcrawl/validate"


def stat_type(record: dict[str, Any]) -> str:
    """The type a record's stats are counted under: its first schema.org type, else its
    first type (slashes replaced), else ``(untyped)``.

    >>> stat_type({"type": ["http://example.org/T", "Product"]}), stat_type({"type": []})
    ('Product', '(untyped)')
    """
    types = [t for t in record.get("type") or [] if isinstance(t, str)]
    named = [short_schema_name(t) for t in types if is_schema_term(t)]
    first = named[0] if named else (types[0] if types else "(untyped)")
    return first.replace("/", "_")


def _as_record(value: Any, path: str) -> Any:
    if isinstance(value, list):
        return [_as_record(v, path) for v in value]
    if not (isinstance(value, dict) and "@type" in value):
        return value
    props = {k: _as_record(v, f"{path}.{k}") for k, v in value.items() if not k.startswith("@")}
    types = value["@type"] if isinstance(value["@type"], list) else [value["@type"]]
    return {
        "kind": "entity",
        "format": "json-ld",
        "type": types,
        "id": value.get("@id"),
        "properties": props,
        "provenance": {"fields": {k: [{"path": f"{path}.{k}"}] for k in props}},
    }


def entity_record(entity: Any) -> dict[str, Any]:
    """A merged entity (an EntityItem's fields) in the record shape the validator reads;
    nested ``{"@type": ...}`` values become nested records."""
    record = _as_record(
        {"@type": entity.get("type") or [], **(entity.get("properties") or {})}, "$"
    )
    record["id"] = entity.get("id")
    formats = entity.get("formats") or []
    if formats:  # the highest-precedence layer: OG/microformats entities get no schema.org check
        record["format"] = formats[0]
    return record


class ValidationPipeline:
    def __init__(self, crawler: Crawler, config: ValidateConfig, validator: Validator):
        self.crawler = crawler
        self.stats = crawler.stats
        self.config = config
        self.validator = validator
        self.names = CappedNames(STATS_NAMES)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ValidationPipeline:
        config = ValidateConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("STRUCTCRAWL_VALIDATE_ENABLED is off")
        return cls(crawler, config, Validator.default())

    def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "conflicts" in adapter.field_names() and "properties" in adapter.field_names():
            sources = adapter.get("source_validation") or []
            if adapter.get("sightings") == 1 and len(sources) == 1:
                # seen once: the entity is its one record, already validated on its page
                validation = {k: v for k, v in sources[0].items() if k not in ("format", "url")}
            else:  # a merged entity: validate what the feed will say about it
                validation = self.validator.validate(entity_record(adapter)).as_dict()
            adapter["validation"] = validation
            if "skipped" not in validation:
                state = "valid" if validation.get("valid") else "invalid"
                self.stats.inc_value(f"{_PREFIX}/entities/{state}")
            return item
        records = adapter.get("records")
        if not isinstance(records, list):
            return item
        visible = adapter.get("visible") if self.config.visible else None
        # read field by field, only as far as a record needs (a lazy mapping computes no more)
        facts = visible if isinstance(visible, (VisibleFacts, Mapping)) else None
        document = adapter.get("document") if "document" in adapter.field_names() else None
        check_page(
            records,
            validator=self.validator,
            facts=facts,
            document=document if self.config.visible else None,
            retrieved_at=adapter.get("retrieved_at")
            if "retrieved_at" in adapter.field_names()
            else None,
        )
        counts: Counter[str] = Counter()  # one stats update per key and page, not per issue
        for record in records:
            if isinstance(record, dict) and record.get("kind") == "entity":
                self._count(record, counts)
        inc = self.stats.inc_value
        for key, count in counts.items():
            inc(key, count)
        return item

    def _count(self, record: dict[str, Any], counts: Counter[str]) -> None:
        validation = record.get("validation") or {}
        if "skipped" in validation:
            counts[f"{_PREFIX}/records/skipped"] += 1
        else:
            counts[f"{_PREFIX}/records/{'valid' if validation.get('valid') else 'invalid'}"] += 1
            kind = stat_type(record)
            names = self.names  # types and fields are the page's: a capped set of stats keys
            for level in ("error", "warning"):
                for issue in validation.get(f"{level}s", []):
                    name = names(kind + "/" + stat_field(issue["path"]))
                    counts[f"{_PREFIX}/{level}/{name}"] += 1
        for conflict in record.get("conflicts") or []:
            counts[f"{_PREFIX}/conflict/{names(str(conflict['code']))}"] += 1
