"""Validate records against the per-type JSON Schemas and the schema.org vocabulary.

>>> v = Validator.default()
>>> r = v.validate({"format": "json-ld", "kind": "entity", "type": ["Product"],
...                 "properties": {"offers": {"type": ["Offer"], "properties": {}}}})
>>> [(e["path"], e["code"]) for e in r.as_dict()["errors"]]
[('name', 'missing-required'), ('offers.price|priceSpecification', 'missing-required')]

What is checked, per record:

* the record and every nested record (``offers``, ``review[0].author``, ...) against the
  schema of its type; a type without a schema file uses its nearest schema.org supertype
  that has one (``SportingGoodsStore`` -> ``LocalBusiness``, ``IndividualProduct`` ->
  ``Product``); a type with none (``Thing``, ``ImageObject``) gets the vocabulary check only;
* types, property names, property domains and enumeration values against schema.org;
* values outside their range (:mod:`structcrawl.validate.ranges`), values as the page wrote
  them in a format Google does not read (:mod:`structcrawl.validate.written`), and top-level
  items the markup gives no type (:mod:`structcrawl.validate.markup`).

Which records: JSON-LD, Microdata and RDFa records are checked in full (a JSON-LD record
under a non-schema.org ``@context`` is skipped). JSON, data-block and network-JSON records
are checked only when they carry a known schema.org type (their other "types" are block
labels such as ``__NEXT_DATA__``). Open Graph, Twitter, Dublin Core and microformats
records are skipped: they are not schema.org. A skipped record is valid, with a
``skipped`` reason in :meth:`ValidationResult.as_dict`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from structcrawl.core.records import short_schema_name
from structcrawl.validate._context import context_problem
from structcrawl.validate._issues import Issue, join_path
from structcrawl.validate._schemas import SchemaCheck, compile_checks, load_schemas
from structcrawl.validate.markup import untyped_issue
from structcrawl.validate.ranges import value_issues
from structcrawl.validate.vocabulary import Vocabulary, is_schema_term
from structcrawl.validate.written import written_issues

__all__ = ["NOT_SCHEMA_ORG_FORMATS", "TYPED_ONLY_FORMATS", "ValidationResult", "Validator"]

#: Layers whose records are not schema.org: never validated.
NOT_SCHEMA_ORG_FORMATS = frozenset({"opengraph", "twitter", "dublincore", "microformats"})
#: Layers whose records are validated only when they carry a known schema.org type.
TYPED_ONLY_FORMATS = frozenset({"json", "data-block", "network-json", "selector"})
_MAX_DEPTH = 32
_CONTEXT_REASONS = {
    "json-ld-no-context": "no @context: not schema.org data",
    "json-ld-unknown-context": "@context is not schema.org",
}
_MAX_CACHED = 4096


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """Errors make a record invalid; warnings do not."""

    errors: tuple[Issue, ...] = ()
    warnings: tuple[Issue, ...] = ()
    skipped: str | None = None

    @property
    def valid(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict[str, Any]:
        """``{"valid", "errors": [{path, code, message}], "warnings": [...]}`` (plus
        ``"skipped": reason`` when the record was not checked)."""
        out: dict[str, Any] = {
            "valid": self.valid,
            "errors": [i.as_dict() for i in self.errors],
            "warnings": [i.as_dict() for i in self.warnings],
        }
        if self.skipped is not None:
            out["skipped"] = self.skipped
        return out


class Validator:
    """Compiled type schemas plus the vocabulary; build once, call :meth:`validate` often."""

    def __init__(self, checks: Mapping[str, SchemaCheck], vocabulary: Vocabulary):
        self.checks = dict(checks)
        self.vocabulary = vocabulary
        self._resolved: dict[tuple[str, ...], tuple[SchemaCheck, ...]] = {}
        self._declared_by: dict[tuple[int, ...], frozenset[str]] = {}

    @classmethod
    def from_schemas(
        cls, schemas: Mapping[str, dict[str, Any]], vocabulary: Vocabulary | None = None
    ) -> Validator:
        return cls(compile_checks(schemas), vocabulary or Vocabulary.default())

    @staticmethod
    @lru_cache(maxsize=1)
    def default() -> Validator:
        """The packaged schemas and vocabulary, loaded and compiled once per process."""
        return Validator.from_schemas(load_schemas(), Vocabulary.default())

    def checks_for(self, types: Iterable[str]) -> tuple[SchemaCheck, ...]:
        """The schemas that apply to a node of these types (nearest supertype with one)."""
        key = tuple(t for t in types if isinstance(t, str))
        found = self._resolved.get(key)
        if found is None:
            names: list[str] = []
            for t in key:
                name = short_schema_name(t)
                if name in self.checks:
                    names.append(name)
                    continue
                for level in self.vocabulary.supertype_levels(name) if is_schema_term(t) else ():
                    hits = [n for n in level if n in self.checks]
                    if hits:
                        names.extend(hits)
                        break
            if len(self._resolved) > _MAX_CACHED:  # type lists of other vocabularies vary
                self._resolved.clear()
            found = self._resolved[key] = tuple(self.checks[n] for n in dict.fromkeys(names))
        return found

    def validate(self, record: Any, at: datetime | None = None) -> ValidationResult:
        """Check one record (a ``Record.to_dict()``); never raises. ``at``: when its page
        was retrieved (dates such as ``priceValidUntil`` are judged against it; without
        it they are not)."""
        if not isinstance(record, dict):
            return ValidationResult(
                errors=(Issue("", "malformed-record", "a record must be a JSON object"),)
            )
        try:
            context = _context_issue(record)
            if context is not None:  # not schema.org data: named, and not checked as such
                why = _CONTEXT_REASONS[context.code]
                return ValidationResult(warnings=(context,), skipped=why)
            reason = self._skip_reason(record)
            if reason is not None:
                return ValidationResult(skipped=reason)
            errors: list[Issue] = []
            warnings: list[Issue] = []
            self._walk(record, "", 0, True, _Walk(set(), errors, warnings, at))
            untyped = untyped_issue(record)
            warnings.extend([untyped] if untyped is not None else [])
            warnings.extend(_repair_issues(record))
        except Exception as exc:  # a bug or a pathological input: reported, never raised
            return ValidationResult(
                errors=(Issue("", "validator-failed", f"{type(exc).__name__}: {exc}"[:300]),)
            )
        return ValidationResult(errors=_unique(errors), warnings=_unique(_said_once(warnings)))

    def _skip_reason(self, record: dict[str, Any]) -> str | None:
        kind = record.get("kind", "entity")
        if kind != "entity":
            return f"{kind} record"
        fmt = record.get("format")
        if fmt in NOT_SCHEMA_ORG_FORMATS:
            return f"{fmt} records are not schema.org"
        if fmt in TYPED_ONLY_FORMATS and not any(
            is_schema_term(t) and self.vocabulary.is_type(t) for t in _types(record)
        ):
            return "no schema.org type"
        return None

    def _walk(
        self,
        record: dict[str, Any],
        path: str,
        depth: int,
        strict: bool,
        walk: _Walk,
    ) -> None:
        """Check one node and its nested records. A nested record under a property its
        parent's schema has rules for (``offers`` of a Product) is ``strict``: its errors are
        errors. Under any other property (``mentions``, ``department``) it is not part of the
        parent's rich result: its errors are reported as warnings, its missing recommended
        properties not at all."""
        seen, errors, warnings = walk.seen, walk.errors, walk.warnings
        props = record.get("properties")
        if not isinstance(props, dict):
            (errors if strict else warnings).append(
                Issue(path, "malformed-record", "properties must be an object")
            )
            return
        if depth > _MAX_DEPTH or id(record) in seen:
            return
        seen.add(id(record))
        types = _types(record)
        warnings.extend(self.vocabulary.check_types(types, path))
        warnings.extend(self.vocabulary.check_node(types, _stated(record, props), path))
        for issue, is_error in value_issues(types, props, path, self.vocabulary, walk.at):
            (errors if strict and is_error else warnings).append(issue)
        checks = self.checks_for(types)
        for check in checks:
            errs, warns = check.check(props, path, depth == 0)
            if strict:
                errors.extend(errs)
                warnings.extend(warns)
            else:
                warnings.extend(errs)
                warnings.extend(w for w in warns if w.code != "missing-recommended")
        said = {(i.path, i.code) for i in (*errors, *warnings)}
        warnings.extend(
            i
            for i in written_issues(record, path, self.vocabulary)
            if (i.path, i.code) not in said and (i.path, "wrong-type") not in said
        )
        declared = self._declared(checks)
        for key, value in props.items():
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if _is_record(item):
                        self._walk(
                            item,
                            join_path(join_path(path, str(key)), i),
                            depth + 1,
                            strict and key in declared,
                            walk,
                        )
            elif _is_record(value):
                here = join_path(path, str(key))
                child_strict = strict and key in declared
                self._walk(value, here, depth + 1, child_strict, walk)

    def _declared(self, checks: tuple[SchemaCheck, ...]) -> frozenset[str]:
        """The properties any of ``checks`` has rules for (kept per combination; the checks
        live as long as the validator, so their ids name them)."""
        key = tuple(map(id, checks))
        found = self._declared_by.get(key)
        if found is None:
            found = self._declared_by[key] = frozenset().union(*(c.declared for c in checks))
        return found


@dataclass(slots=True)
class _Walk:
    """What one validation collects while it walks a record and its nested records."""

    seen: set[int]
    errors: list[Issue]
    warnings: list[Issue]
    at: datetime | None


def _said_once(warnings: list[Issue]) -> list[Issue]:
    """The warnings without a ``value-not-in-range`` where the schemas already reported the
    value's type or format at the same path."""
    typed = {i.path for i in warnings if i.code in ("wrong-type", "bad-format")}
    return [i for i in warnings if not (i.code == "value-not-in-range" and i.path in typed)]


def _types(record: Mapping[str, Any]) -> list[str]:
    value = record.get("type")
    if isinstance(value, str):
        return [value]
    return [t for t in value if isinstance(t, str)] if isinstance(value, list) else []


def _stated(record: Mapping[str, Any], props: dict[str, Any]) -> dict[str, Any]:
    """The properties the source stated: those with provenance sightings. Properties added
    later (normalization's ``currencyRaw``) are not the page's vocabulary and are not
    checked against schema.org; without provenance, all are."""
    provenance = record.get("provenance")
    fields = provenance.get("fields") if isinstance(provenance, dict) else None
    if not isinstance(fields, dict) or not fields:
        return props
    return {k: v for k, v in props.items() if k in fields}


def _is_record(value: Any) -> bool:
    return isinstance(value, dict) and "properties" in value and "type" in value


def _context_issue(record: dict[str, Any]) -> Issue | None:
    """``json-ld-no-context`` / ``json-ld-unknown-context`` for a JSON-LD entity record that
    is not schema.org data by its ``@context`` (:mod:`structcrawl.validate._context`): read
    from the node as written (``raw``), or from the context in scope when that is gone."""
    if record.get("format") != "json-ld" or record.get("kind", "entity") != "entity":
        return None
    context, raw = record.get("context"), record.get("raw")
    if context is None and isinstance(raw, dict) and "@context" not in raw:
        found = context_problem(raw)
    elif context is not None:
        found = context_problem({"@context": context, "@type": "Thing"})
    else:
        found = None
    return Issue("", found[0], found[1]) if found is not None else None


def _unique(issues: list[Issue]) -> tuple[Issue, ...]:
    return tuple(dict.fromkeys(issues))


def _repair_issues(record: dict[str, Any]) -> list[Issue]:
    """A ``repaired-source`` warning for a record built from repaired input (its labels in
    ``repairs``; the original text stays in ``raw``), so that consumers can rank it below
    records read from valid markup."""
    labels = [str(r) for r in record.get("repairs") or []]
    if not labels:
        return []
    return [
        Issue(
            "",
            "repaired-source",
            f"built from input that needed repairs: {', '.join(labels)}",
        )
    ]
