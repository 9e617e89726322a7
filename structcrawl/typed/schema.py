"""The published JSON Schemas of the item types (``structcrawl/typed/schemas/<Type>.json``,
package data) and the check of an item against its schema (pure).

:func:`check_item` returns ``(ok, errors)`` instead of raising, one message per failure with
its JSON path (``$.price: '1,99' does not match ...``).

>>> check_item({"kind": "item", "type": "Product", "price": "1.99", "currency": "EUR"})
(True, [])
>>> ok, errors = check_item({"kind": "item", "type": "Product", "price": "1,99"})
>>> ok, errors[0].startswith("$.price: '1,99' does not match")
(False, True)
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

__all__ = ["ITEM_SCHEMA_BASE", "check_item", "item_schemas"]

ITEM_SCHEMA_BASE = "https://structcrawl.example/schemas/items/"


@lru_cache(maxsize=1)
def item_schemas() -> dict[str, dict[str, Any]]:
    """``{type: schema}`` for every shipped item schema (``_common`` included)."""
    folder = resources.files("structcrawl.typed") / "schemas"
    return {
        entry.name.removesuffix(".json"): json.loads(entry.read_text(encoding="utf-8"))
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".json")
    }


@lru_cache(maxsize=32)
def _validator(kind: str) -> Draft202012Validator | None:
    schemas = item_schemas()
    if kind not in schemas or kind.startswith("_"):
        return None
    registry: Registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values()
    )
    return Draft202012Validator(schemas[kind], registry=registry)


def check_item(item: dict[str, Any]) -> tuple[bool, list[str]]:
    """Whether ``item`` matches its type's schema, and the failures (``[]`` when it does; an
    item type without a schema fails with one message saying so)."""
    validator = _validator(str(item.get("type")))
    if validator is None:
        return False, [f"$.type: no item schema for {item.get('type')!r}"]
    errors = [
        f"{e.json_path}: {e.message}"
        for e in sorted(validator.iter_errors(item), key=lambda e: list(e.absolute_path))
    ]
    return not errors, errors
