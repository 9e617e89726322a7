"""One tier of a type schema checked part by part, so that jsonschema's detailed (and slow)
walk runs only on the properties that fail.

jsonschema reports a schema's errors keyword by keyword, in the schema's order; its
``properties`` keyword reports, property by property, the errors of each present property's
subschema. So when everything but ``required`` and ``properties`` holds (asked of jsonschema-rs,
as the whole schema is), the findings are: the missing required properties, and the errors of
the properties whose subschema jsonschema-rs rejects, walked by jsonschema itself
(``descend``, as its ``properties`` keyword does). A test keeps the findings equal to the
whole walk's on every record of the fixture corpus.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from structcrawl.validate._issues import Issue, join_path

__all__ = ["Fast", "SplitTier", "missing_issues", "split_tier"]

#: Keywords a split tier may hold at its top (none of them reads its siblings' results, as
#: ``additionalProperties`` and ``unevaluatedProperties`` do).
_ALLOWED = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "title",
        "description",
        "x-requiredWhenTopLevel",
        "type",
        "required",
        "properties",
        "anyOf",
        "allOf",
        "oneOf",
    }
)

Fast = Callable[[Any], bool]


@dataclass(frozen=True, slots=True)
class SplitTier:
    """A tier schema as its ``required`` list, its ``properties`` (each with a fast check, or
    None to always walk it) and a fast check of all the rest."""

    validator: Draft202012Validator
    required: tuple[str, ...]
    required_first: bool
    properties: tuple[tuple[str, Any, Fast | None], ...]
    rest_ok: Fast

    def errors(self, instance: Mapping[str, Any]) -> Iterator[ValidationError] | None:
        """The ``properties`` keyword's errors, as jsonschema reports them, or None when the
        rest of the schema does not hold (then the whole schema must be walked)."""
        if not isinstance(instance, dict) or not self.rest_ok(instance):
            return None
        return self._property_errors(instance)

    def _property_errors(self, instance: dict[str, Any]) -> Iterator[ValidationError]:
        for name, subschema, ok in self.properties:
            if name in instance and (ok is None or not ok(instance[name])):
                for error in self.validator.descend(
                    instance[name], subschema, path=name, schema_path=name
                ):
                    error.schema_path.appendleft("properties")
                    yield error


def missing_issues(
    required: tuple[str, ...], properties: Mapping[str, Any], prefix: str, warning: bool
) -> list[Issue]:
    """What jsonschema's ``required`` errors at the top of a schema become as issues: one
    error per missing property, each translated into the whole list of missing ones."""
    missing = [p for p in required if p not in properties]
    code = "missing-recommended" if warning else "missing-required"
    word = "recommended" if warning else "required"
    issues = [Issue(join_path(prefix, p), code, f"{p} is {word}") for p in missing]
    return issues * len(missing)


def split_tier(
    schema: Any,
    validator: Draft202012Validator | None,
    fast: Callable[[dict[str, Any]], Fast | None],
) -> SplitTier | None:
    """The split form of a fully inlined tier ``schema`` checked by ``validator``, or None
    when it cannot be split (keywords outside the allowed set, a rest without a fast
    engine). ``fast`` builds jsonschema-rs checks (None when a part has none)."""
    if validator is None or not isinstance(schema, dict) or not set(schema) <= _ALLOWED:
        return None
    if "unevaluated" in json.dumps(schema):
        return None
    required = schema.get("required", [])
    props = schema.get("properties", {})
    if not isinstance(required, list) or not all(isinstance(p, str) for p in required):
        return None
    if not isinstance(props, dict) or not (required or props):
        return None
    rest_ok = fast({k: v for k, v in schema.items() if k not in ("required", "properties")})
    if rest_ok is None:
        return None
    keys = list(schema)
    return SplitTier(
        validator=validator,
        required=tuple(required),
        required_first=(
            "required" not in schema
            or "properties" not in schema
            or keys.index("required") < keys.index("properties")
        ),
        properties=tuple(
            (name, sub, fast(sub) if isinstance(sub, dict) else None) for name, sub in props.items()
        ),
        rest_ok=rest_ok,
    )
