"""The published JSON Schemas of the item types (``structcrawl/typed/schemas/<Type>.json``,
package data, generated from the item classes by :mod:`structcrawl.typed.schemagen`), the
check of an item against its schema, and the crawl's making of items into checked class
instances (pure).

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
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from structcrawl.typed.classes import Item, UnknownField, item_dict, to_item

__all__ = ["ITEM_SCHEMA_BASE", "as_checked_items", "check_item", "item_schemas"]

#: Schema failures kept on an invalid item (``validation.schema``); the rest are counted.
KEPT_ERRORS = 5

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


@lru_cache(maxsize=32)
def _is_valid(kind: str) -> Callable[[Any], bool] | None:
    """jsonschema-rs's ``is_valid`` for the item schema of ``kind`` (its references to
    ``_common`` resolved through a registry of the shipped schemas; formats not asserted, as
    :func:`_validator` does not), or None where it cannot compile it: then only jsonschema
    runs. An item it finds valid has no failures to list (~150x faster than listing them with
    jsonschema, which is left to the invalid ones: the messages stay jsonschema's)."""
    schemas = item_schemas()
    if kind not in schemas or kind.startswith("_"):
        return None
    registry = jsonschema_rs.Registry([(s["$id"], s) for s in schemas.values()])
    try:
        validator = jsonschema_rs.validator_for(
            schemas[kind], registry=registry, validate_formats=False
        )
    except Exception:  # an engine that cannot compile it: jsonschema alone
        return None
    return validator.is_valid  # type: ignore[no-any-return]


def check_item(item: dict[str, Any]) -> tuple[bool, list[str]]:
    """Whether ``item`` matches its type's schema, and the failures (``[]`` when it does; an
    item type without a schema fails with one message saying so)."""
    kind = str(item.get("type"))
    validator = _validator(kind)
    if validator is None:
        return False, [f"$.type: no item schema for {item.get('type')!r}"]
    is_valid = _is_valid(kind)
    try:
        if is_valid is not None and is_valid(item):
            return True, []
    except ValueError:  # a value of no JSON type (a str subclass): jsonschema decides
        pass
    errors = [
        f"{e.json_path}: {e.message}"
        for e in sorted(validator.iter_errors(item), key=lambda e: list(e.absolute_path))
    ]
    return not errors, errors


def as_checked_items(items: list[dict[str, Any]]) -> tuple[list[Item | dict[str, Any]], list[str]]:
    """The items as instances of their classes, each checked against its schema, and the
    types of the invalid ones (one entry per invalid item). An invalid item keeps its
    failures in ``validation.schema``; an item its class cannot hold (a type without a class,
    a field the class does not define) stays the dict it was, with that failure named.

    >>> out, invalid = as_checked_items([{"kind": "item", "type": "Product", "price": "1,99"},
    ...     {"kind": "item", "type": "Product", "price": "1.99"}])
    >>> invalid, out[0].validation["schema"][0][:30], type(out[1]).__name__
    (['Product'], "$.price: '1,99' does not match", 'Product')
    """
    out: list[Item | dict[str, Any]] = []
    invalid: list[str] = []
    for data in items:
        kind = str(data.get("type") or "(untyped)")
        instance: Item | dict[str, Any]
        try:
            instance = to_item(data)
            errors = check_item(item_dict(instance))[1]
        except (UnknownField, KeyError, TypeError) as exc:
            instance = data
            errors = [
                f"$: {exc}"
                if not isinstance(exc, KeyError)
                else f"$.type: no item class for {kind!r}"
            ]
        if errors:
            invalid.append(kind)
            validation = dict(_get(instance, "validation") or {})
            validation["schema"] = errors[:KEPT_ERRORS]
            _set(instance, "validation", validation)
        out.append(instance)
    return out, invalid


def _get(item: Item | dict[str, Any], name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name)


def _set(item: Item | dict[str, Any], name: str, value: Any) -> None:
    if isinstance(item, dict):
        item[name] = value
    else:
        setattr(item, name, value)
