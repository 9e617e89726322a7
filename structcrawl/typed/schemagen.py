"""The published item JSON Schemas, generated from the item classes (pure).

:func:`item_schema_files` turns :mod:`structcrawl.typed.classes` into the files of
``structcrawl/typed/schemas/`` (``_common.json`` with the envelope every item shares, one
``<Type>.json`` per item class); ``python -m structcrawl.typed.schemagen`` rewrites them and
``tests/test_item_classes.py`` fails when they drift from the classes. A field's schema comes
from its annotation (``str``, ``list[Image]``, a part class inline) and its metadata
(``schema``: a pattern, an enum, a shared definition, or with its own ``type`` the whole
schema; ``doc``: the description).

>>> files = item_schema_files()
>>> files["Product.json"]["properties"]["brand"]["required"]
['name']
>>> files["Product.json"]["properties"]["price"]["$ref"]
'_common.json#/$defs/decimal'
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import attrs

from structcrawl.typed.classes import ITEM_CLASSES, Item, field_shape

__all__ = ["SCHEMA_BASE", "item_schema_files", "main"]

SCHEMA_BASE = "https://structcrawl.example/schemas/items/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"

#: One source of a field (provenance and conflicts entries): a dict, not a class, because it
#: is the same for every field of every item.
SOURCE = {
    "type": "object",
    "required": ["layer", "rule"],
    "properties": {
        "value": {},
        "record": {"type": ["integer", "null"], "description": "Index of the page record."},
        "layer": {"type": "string",
                  "description": "json-ld, microdata, rdfa, opengraph, ..., or a fallback rule."},
        "path": {"type": "string", "description": "Where in the page (XPath, JSON path)."},
        "raw": {"description": "The value as written."},
        "rule": {"type": "string",
                 "description": "How it was read (property path, fallback rule)."},
        "fallback": {"type": "boolean",
                     "description": "A generic fallback (ranks below structured layers)."},
        "evidence": {"type": ["string", "null"], "description": "What the fallback saw."},
    },
}  # fmt: skip

_SCALARS = {str: {"type": "string"}, int: {"type": "integer"}, bool: {"type": "boolean"}}


def _type_schema(hint: Any) -> dict[str, Any]:
    is_list, base = field_shape(hint)
    if attrs.has(base):
        inner = _object_schema(base, attrs.fields(base))
    elif base in _SCALARS:
        inner = dict(_SCALARS[base])
    elif getattr(base, "__origin__", base) is dict:
        inner = {"type": "object"}
    else:
        inner = {}
    return {"type": "array", "items": inner} if is_list else inner


def _field_schema(field: attrs.Attribute[Any]) -> dict[str, Any]:
    override = dict(field.metadata.get("schema") or {})
    # an override naming a shared definition or its own type is the whole schema
    whole = "$ref" in override or "type" in override
    out = override if whole else {**_type_schema(field.type), **override}
    if field.metadata.get("doc") and "description" not in out:
        out["description"] = field.metadata["doc"]
    return out


def _object_schema(cls: type, fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "object",
        "properties": {f.name: _field_schema(f) for f in fields},
    }
    required = [f.name for f in fields if f.metadata.get("required")]
    if required:
        out["required"] = required
    return out


def _envelope() -> dict[str, Any]:
    fields = attrs.fields(Item)
    body = _object_schema(Item, fields)
    return {"type": "object", "required": ["kind", "type"], "properties": body["properties"]}


def item_schema_files() -> dict[str, dict[str, Any]]:
    """``{file name: schema}`` of every published item schema."""
    shared = {f.name for f in attrs.fields(Item)}
    files: dict[str, dict[str, Any]] = {
        "_common.json": {
            "$schema": DRAFT,
            "$id": f"{SCHEMA_BASE}_common.json",
            "$defs": {
                "envelope": _envelope(),
                "source": SOURCE,
                "decimal": {"type": "string", "pattern": "^-?\\d+(\\.\\d+)?$"},
                "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "names": {
                    "type": "array",
                    "items": _type_schema(attrs.fields_dict(ITEM_CLASSES["Article"])
                                          ["publisher"].type),
                    "description": "People or organizations by name.",
                },
            },
        }
    }  # fmt: skip
    for name, cls in sorted(ITEM_CLASSES.items()):
        own = [f for f in attrs.fields(cls) if f.name not in shared]
        files[f"{name}.json"] = {
            "$schema": DRAFT,
            "$id": f"{SCHEMA_BASE}{name}.json",
            "title": name,
            "description": " ".join((cls.__doc__ or "").split()),
            "allOf": [{"$ref": "_common.json#/$defs/envelope"}],
            "type": "object",
            "properties": {"type": {"const": name}, **_object_schema(cls, own)["properties"]},
            "required": ["type"],
        }
    return files


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the schemas into ``structcrawl/typed/schemas/`` (``--check``: only say whether
    the shipped files match the classes; exit 1 when they do not)."""
    args = sys.argv[1:] if argv is None else argv
    folder = Path(__file__).with_name("schemas")
    stale = [
        name
        for name, schema in item_schema_files().items()
        if not (folder / name).is_file() or (folder / name).read_text("utf-8") != render(schema)
    ]
    if "--check" in args:
        print("\n".join(f"stale: {n}" for n in stale) or "item schemas match the classes")
        return 1 if stale else 0
    for name in stale:
        (folder / name).write_text(render(item_schema_files()[name]), "utf-8")
        print(f"wrote {folder / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
