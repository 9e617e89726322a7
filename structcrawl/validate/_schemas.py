"""The per-type JSON Schemas shipped in ``structcrawl/schemas/``, compiled once.

Each ``<Type>.json`` validates a record's ``properties`` in two tiers, both plain JSON Schema
(Draft 2020-12) so the files are the single source of the rules:

* the schema itself: failures are **errors** (Google's required properties, value shapes);
* its ``$defs/recommended`` subschema: failures are **warnings** (recommended properties,
  strict value formats such as ISO 4217 currencies or plain decimal prices).

``x-requiredWhenTopLevel`` (a custom keyword, inherited through ``allOf`` references) lists
properties required only on a top-level record (``itemReviewed`` of a Review that is not
nested in its item). Files whose name starts with ``_`` hold shared definitions.

jsonschema is the engine (:class:`TypeCheck`); the validator needs only the
:class:`SchemaCheck` shape, the seam where a faster engine (jsonschema-rs) would plug in.
References are inlined once at load time, which halves jsonschema's time per record.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any, Protocol

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from structcrawl.validate._issues import Issue, join_path, short_repr
from structcrawl.validate._split import Fast, SplitTier, missing_issues, split_tier

__all__ = [
    "BASE_URI",
    "SchemaCheck",
    "TypeCheck",
    "compile_checks",
    "load_schemas",
    "schema_files",
]

BASE_URI = "https://structcrawl.example/schemas/"
_DRAFT = "https://json-schema.org/draft/2020-12/schema"

_RANGE = {
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
}


def schema_files() -> Traversable:
    """The packaged schema folder (works from a checkout, a wheel or a zipped egg)."""
    return resources.files("structcrawl").joinpath("schemas")


def load_schemas(folder: Traversable | None = None) -> dict[str, dict[str, Any]]:
    """``{file stem: schema}`` for every ``*.json`` in the folder."""
    folder = folder or schema_files()
    return {
        entry.name[: -len(".json")]: json.loads(entry.read_text(encoding="utf-8"))
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".json")
    }


Checker = Callable[[Any], Iterator[ValidationError]]


class SchemaCheck(Protocol):
    """What the validator needs of a compiled type schema: another engine (jsonschema-rs)
    plugs in by providing objects of this shape."""

    @property
    def declared(self) -> frozenset[str]: ...

    def check(
        self, properties: Mapping[str, Any], prefix: str, top_level: bool
    ) -> tuple[list[Issue], list[Issue]]: ...


@dataclass(frozen=True, slots=True)
class TypeCheck:
    """What one type's schema says about a properties dict, as issues."""

    name: str
    errors: Checker
    warnings: Checker | None
    top_level_required: tuple[str, ...]
    #: properties the schema has rules for: nested records under them are part of this
    #: type's rich result, so their errors are this record's errors
    declared: frozenset[str] = frozenset()
    #: fast validity checks (jsonschema-rs) of the same two tiers: a value they accept needs
    #: no walk through jsonschema's error tree; a rejected one gets jsonschema's detailed
    #: findings (a test keeps the two engines in agreement on the fixture records)
    errors_ok: Callable[[Any], bool] | None = None
    warnings_ok: Callable[[Any], bool] | None = None
    #: each tier as its required list, properties and rest (:mod:`~structcrawl.validate._split`)
    errors_split: SplitTier | None = None
    warnings_split: SplitTier | None = None

    def check(
        self, properties: Mapping[str, Any], prefix: str, top_level: bool
    ) -> tuple[list[Issue], list[Issue]]:
        errors = _tier_issues(
            self.errors, self.errors_ok, self.errors_split, properties, prefix, False
        )
        if top_level:
            errors.extend(
                Issue(
                    join_path(prefix, p),
                    "missing-required",
                    f"{p} is required on a top-level {self.name}",
                )
                for p in self.top_level_required
                if p not in properties
            )
        warnings = (
            _tier_issues(
                self.warnings, self.warnings_ok, self.warnings_split, properties, prefix, True
            )
            if self.warnings is not None
            else []
        )
        return errors, warnings


def _tier_issues(
    checker: Checker,
    ok: Fast | None,
    split: SplitTier | None,
    properties: Mapping[str, Any],
    prefix: str,
    warning: bool,
) -> list[Issue]:
    """The issues of one tier: none when the fast engine accepts the value; else jsonschema's
    findings, walked only through the failing properties when the rest of the schema holds."""
    if ok is not None and ok(properties):
        return []
    errors = split.errors(properties) if split is not None else None
    if split is None or errors is None:
        return [
            i for e in _prune(checker(properties)) for i in _issues(e, properties, prefix, warning)
        ]
    found = [i for e in _prune(errors) for i in _issues(e, properties, prefix, warning)]
    missing = missing_issues(split.required, properties, prefix, warning)
    return missing + found if split.required_first else found + missing


def compile_checks(schemas: Mapping[str, dict[str, Any]]) -> dict[str, TypeCheck]:
    """One :class:`TypeCheck` per type schema (file stems not starting with ``_``)."""
    registry: Registry[Any] = Registry().with_resources(
        (schema.get("$id", BASE_URI + f"{stem}.json"), Resource.from_contents(schema))
        for stem, schema in schemas.items()
    )
    checks = {}
    for stem, schema in schemas.items():
        if stem.startswith("_"):
            continue
        # references are inlined once here: jsonschema's per-call $ref lookups were about
        # half of the validation time; the registry still answers any that are left
        error_schema = _inline(schema, stem, schemas, ())
        errors = Draft202012Validator(
            error_schema, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER
        )
        warnings = warning_schema = None
        if "recommended" in schema.get("$defs", {}):
            warning_schema = _inline({"$ref": "#/$defs/recommended"}, stem, schemas, ())
            warnings = Draft202012Validator(
                warning_schema,
                registry=registry,
                format_checker=Draft202012Validator.FORMAT_CHECKER,
            )
        checks[stem] = TypeCheck(
            name=stem,
            errors=errors.iter_errors,
            warnings=warnings.iter_errors if warnings else None,
            top_level_required=tuple(
                dict.fromkeys(
                    n
                    for s in _lineage(schema, schemas)
                    for n in s.get("x-requiredWhenTopLevel", [])
                )
            ),
            declared=frozenset(
                k for s in _lineage(schema, schemas) for k in s.get("properties", {})
            ),
            errors_ok=_fast(error_schema, errors),
            warnings_ok=_fast(warning_schema, warnings) if warning_schema else None,
            errors_split=split_tier(error_schema, errors, _fast_part(errors)),
            warnings_split=(
                split_tier(warning_schema, warnings, _fast_part(warnings))
                if warning_schema
                else None
            ),
        )
    return checks


def _fast_part(reference: Draft202012Validator | None) -> Callable[[dict[str, Any]], Fast | None]:
    """:func:`_fast` for a part of a tier schema (a subschema is Draft 2020-12 as its whole)."""
    return lambda part: (
        _fast(part if "$schema" in part else {"$schema": _DRAFT, **part}, reference)
        if reference is not None
        else None
    )


def _fast(schema: dict[str, Any], reference: Draft202012Validator) -> Callable[[Any], bool] | None:
    """jsonschema-rs's ``is_valid`` for a fully inlined schema, or None when the schema still
    has references (cycles) or uses formats jsonschema does not check here (so the engines
    could disagree): then only jsonschema runs."""
    if "$ref" in json.dumps(schema):
        return None
    checked = set(reference.format_checker.checkers) if reference.format_checker else set()
    if any(f not in checked for f in _formats(schema)):
        return None
    try:
        return jsonschema_rs.validator_for(schema, validate_formats=True).is_valid  # type: ignore[no-any-return]
    except Exception:  # an engine that cannot compile it: the reference validator alone
        return None


def _formats(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("format"), str):
            yield node["format"]
        for value in node.values():
            yield from _formats(value)
    elif isinstance(node, list):
        for value in node:
            yield from _formats(value)


_DOCUMENT_KEYS = ("$id", "$schema")
_SKIP = ("$ref", "$defs")


def _inline(node: Any, stem: str, schemas: Mapping[str, Any], stack: tuple[str, ...]) -> Any:
    """A copy of ``node`` (a part of ``schemas[stem]``) with every ``$ref`` to a packaged
    file or a local ``#/$defs/...`` replaced by the subschema it names. A ``$ref`` with
    sibling keywords becomes ``allOf``; cycles and unknown targets keep their ``$ref``."""
    if isinstance(node, list):
        return [_inline(item, stem, schemas, stack) for item in node]
    if not isinstance(node, dict):
        return node
    # $defs are dropped: every reference into them is inlined where it is used
    out = {k: _inline(v, stem, schemas, stack) for k, v in node.items() if k not in _SKIP}
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return out
    doc, _, pointer = ref.partition("#")
    target_stem = doc.removesuffix(".json") if doc else stem
    key = f"{target_stem}#{pointer}"
    target: Any = schemas.get(target_stem)
    for part in [p for p in pointer.split("/") if p]:
        target = target.get(part) if isinstance(target, dict) else None
    if target is None or key in stack or (doc and doc.startswith(("http:", "https:"))):
        out["$ref"] = ref
        return out
    resolved = _inline(target, target_stem, schemas, (*stack, key))
    if isinstance(resolved, dict):
        resolved = {k: v for k, v in resolved.items() if k not in _DOCUMENT_KEYS}
    if not out:
        return resolved
    out["allOf"] = [resolved, *out.get("allOf", [])]
    return out


def _lineage(schema: Mapping[str, Any], schemas: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The schema and the whole schemas it extends through ``allOf: [{"$ref": "X.json"}]``."""
    out = [schema]
    for part in schema.get("allOf", []):
        ref = part.get("$ref", "") if isinstance(part, dict) else ""
        stem = ref.rsplit("/", 1)[-1].removesuffix(".json")
        if "#" not in ref and stem in schemas:
            out.extend(_lineage(schemas[stem], schemas))
    return out


def _path(prefix: str, error: ValidationError, root: Any) -> str:
    """The record path of an error: list indices as ``[i]``; the ``properties`` key of a
    nested record (reached into by a schema) is skipped."""
    path, node = prefix, root
    for key in error.absolute_path:
        is_record = isinstance(node, dict) and "type" in node and "properties" in node
        if not (is_record and key == "properties"):
            path = join_path(path, key)
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            node = None
    return path


def _issues(
    error: ValidationError, root: Any, prefix: str, warning: bool, desc: str | None = None
) -> list[Issue]:
    """Translate one jsonschema error (descending into anyOf/oneOf) into issues."""
    kind = error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    desc = schema.get("description") or desc
    here = _path(prefix, error, root)
    missing = "missing-recommended" if warning else "missing-required"
    if kind == "required":
        instance = error.instance if isinstance(error.instance, dict) else {}
        return [
            Issue(join_path(here, p), missing, f"{p} is {'recommended' if warning else 'required'}")
            for p in error.validator_value
            if p not in instance
        ]
    if kind in ("anyOf", "oneOf"):
        branches = error.validator_value
        at_properties = not error.absolute_path or error.absolute_path[-1] == "properties"
        if at_properties and _all_required(error):
            names = [" + ".join(b["required"]) for b in branches]
            field = "|".join(b["required"][0] for b in branches)
            return [
                Issue(
                    join_path(here, field),
                    missing,
                    f"one of {', '.join(names)} is {'recommended' if warning else 'required'}",
                )
            ]
        chosen = _matching_branch(error)
        if chosen:
            return [i for sub in _prune(chosen) for i in _issues(sub, root, prefix, warning, desc)]
        return [
            Issue(
                here,
                "wrong-type",
                f"expected {desc or 'another kind of value'}, got {short_repr(error.instance)}",
            )
        ]
    if kind == "type":
        return [
            Issue(
                here,
                "wrong-type",
                f"expected {desc or error.validator_value}, got {short_repr(error.instance)}",
            )
        ]
    if kind in ("pattern", "format"):
        return [
            Issue(
                here,
                "bad-format",
                f"expected {desc or error.message}, got {short_repr(error.instance)}",
            )
        ]
    code = "out-of-range" if kind in _RANGE else "bad-value"
    return [
        Issue(
            here,
            code,
            f"expected {desc}, got {short_repr(error.instance)}" if desc else error.message[:200],
        )
    ]


def _prune(errors: Iterable[ValidationError]) -> list[ValidationError]:
    """Sibling errors without those on a value whose type is already wrong (one finding per
    value: 'expected text, got an object', not also what the object lacks)."""
    errors = list(errors)
    wrong = {tuple(e.absolute_path) for e in errors if e.validator == "type"}
    return [e for e in errors if e.validator == "type" or tuple(e.absolute_path) not in wrong]


def _matching_branch(error: ValidationError) -> list[ValidationError]:
    """The sub-errors of the one anyOf/oneOf branch whose shape fits the instance (the others
    fail on the instance's own type or required keys), or [] when none or several fit."""
    by_branch: dict[Any, list[ValidationError]] = {}
    for sub in error.context or ():
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    fitting = [
        subs
        for subs in by_branch.values()
        # a branch whose own type or required keys fail is another shape, not a near miss
        if not any(s.validator in ("type", "required") and not s.relative_path for s in subs)
        and not any(
            s.validator in ("anyOf", "oneOf")
            and not s.relative_path
            and not _matching_branch(s)
            and not _all_required(s)
            for s in subs
        )
    ]
    return fitting[0] if len(fitting) == 1 else []


def _all_required(error: ValidationError) -> bool:
    return all(isinstance(b, dict) and b.get("required") for b in error.validator_value)
