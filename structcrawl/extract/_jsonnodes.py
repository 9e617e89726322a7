"""Turn parsed JSON-LD nodes into records (shared by HTML blocks and JSON-LD responses)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin

from structcrawl.core.document import absolute_as_written
from structcrawl.core.records import Provenance, Record
from structcrawl.core.values import make_literal
from structcrawl.extract._jsonldcontext import Terms

__all__ = ["URL_PROPERTIES", "json_path", "node_records"]

#: schema.org properties whose string values are URLs and are resolved against the base.
URL_PROPERTIES = frozenset(
    {
        "url",
        "image",
        "logo",
        "sameAs",
        "contentUrl",
        "thumbnailUrl",
        "embedUrl",
        "mainEntityOfPage",
        "item",
        "hasMap",
        "downloadUrl",
        "installUrl",
        "discussionUrl",
        "photo",
        "codeRepository",
        "license",
        "isBasedOn",
        "additionalType",
        "target",
        "urlTemplate",
        "significantLink",
        "relatedLink",
        "archivedAt",
        "acceptedPaymentMethod",
    }
)

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HAS_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def json_path(parent: str, key: str | int) -> str:
    """Extend a JSON path: ``$.offers``, ``$['@graph'][0]``.

    >>> json_path(json_path("$", "@graph"), 0)
    "$['@graph'][0]"
    """
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if _IDENT.match(key):
        return f"{parent}.{key}"
    escaped = key.replace("\\", "\\\\").replace("'", "\\'")
    return f"{parent}['{escaped}']"


def _resolve(base: str, value: str) -> str:
    if value.startswith("_:") or not base or absolute_as_written(value):
        return value
    try:
        return urljoin(base, value.strip())
    except ValueError:  # not a usable URL reference: keep it as written
        return value


class _Builder:
    """Converts JSON-LD node objects to records for one source (page or response)."""

    def __init__(self, *, source_url: str, base_url: str, fmt: str, parser: str, element: str):
        self.source_url = source_url
        self.base_url = base_url
        self.fmt = fmt
        self.parser = parser
        self.element = element  # XPath of the block, or "" for a JSON response
        self._terms: dict[int, tuple[Any, Terms]] = {}

    def terms(self, context: Any) -> Terms:
        cached = self._terms.get(id(context))
        if cached is None or cached[0] is not context:
            cached = (context, Terms.of(context))
            self._terms[id(context)] = cached
        return cached[1]

    def locate(self, path: str) -> str:
        return f"{self.element}#{path}" if self.element else path

    def record(self, node: dict[str, Any], path: str, context: Any, raw: Any) -> Record:
        terms = self.terms(context)
        rec = Record(
            source_url=self.source_url,
            format=self.fmt,
            source_element=self.locate(path),
            provenance=Provenance(parser=self.parser),
            type=terms.types(node.get("@type")),
            raw=raw,
            context=context,
        )
        node_id = node.get("@id")
        if isinstance(node_id, str):
            rec.id = _resolve(self.base_url, node_id)
        for key, value in node.items():
            if key.startswith("@"):
                continue
            prop = terms.term(key)
            kpath = json_path(path, key)
            if isinstance(value, list):
                items = [
                    self.value(prop, v, json_path(kpath, i), context) for i, v in enumerate(value)
                ]
                if prop in rec.properties:  # two keys naming one property (name, schema:name)
                    current = rec.properties[prop]
                    items = (current if isinstance(current, list) else [current]) + items
                rec.properties[prop] = items
                for i, v in enumerate(value):
                    raw_v = None if isinstance(v, dict) and "@value" not in v else v
                    rec.provenance.add(prop, self.locate(json_path(kpath, i)), raw_v)
            else:
                rec.add_value(
                    prop, self.value(prop, value, kpath, context), self.locate(kpath), value
                )
        return rec

    def literal(self, value: dict[str, Any], context: Any) -> Any:
        """A value object in the value model: its datatype named like a type (a full IRI, or
        a schema.org short name), its language kept; a bare ``{"@value": v}`` is ``v``."""
        lang = value.get("@language")
        kind = value.get("@type")
        datatype = self.terms(context).term(kind) if isinstance(kind, str) else None
        return make_literal(value["@value"], datatype, lang if isinstance(lang, str) else None)

    def value(self, prop: str, value: Any, path: str, context: Any) -> Any:
        if isinstance(value, dict):
            if "@value" in value:
                return self.literal(value, context)
            if "@list" in value or "@set" in value:
                seq = value.get("@list", value.get("@set"))
                seq = seq if isinstance(seq, list) else [seq]
                return [self.value(prop, v, json_path(path, i), context) for i, v in enumerate(seq)]
            if set(value) == {"@id"} and isinstance(value["@id"], str):
                return {"@id": _resolve(self.base_url, value["@id"])}
            inner = value.get("@context")
            scoped = context if inner is None else [context, inner] if context else inner
            return self.record(value, path, scoped, None)
        if isinstance(value, str) and prop in URL_PROPERTIES and not _HAS_SCHEME.match(value):
            return _resolve(self.base_url, value) if value.strip() else value
        return value


def node_records(
    value: Any,
    *,
    source_url: str,
    base_url: str,
    fmt: str,
    parser: str,
    element: str = "",
    keep_raw: Any = None,
    path: str = "$",
) -> tuple[list[Record], list[tuple[str, str]]]:
    """Records for one parsed JSON-LD value (object, array or ``@graph`` container).

    Returns ``(records, problems)`` where problems are ``(json_path, message)`` pairs for
    top-level values that are not node objects. ``keep_raw``, when given, replaces each
    record's ``raw`` (used to keep the original text of a repaired block).
    """
    builder = _Builder(
        source_url=source_url, base_url=base_url, fmt=fmt, parser=parser, element=element
    )
    records: list[Record] = []
    problems: list[tuple[str, str]] = []

    def visit(node: Any, npath: str, context: Any) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                visit(item, json_path(npath, i), context)
            return
        if not isinstance(node, dict):
            problems.append((npath, f"expected a JSON object, found {type(node).__name__}"))
            return
        ctx = node.get("@context", context)
        graph = node.get("@graph")
        if graph is not None:
            gpath = json_path(npath, "@graph")
            for i, item in enumerate(graph if isinstance(graph, list) else [graph]):
                visit(item, json_path(gpath, i) if isinstance(graph, list) else gpath, ctx)
            if not any(k not in ("@context", "@graph") for k in node):
                return
        raw = node if keep_raw is None else keep_raw
        records.append(builder.record(node, npath, ctx, raw))

    visit(value, path, None)
    return records, problems
