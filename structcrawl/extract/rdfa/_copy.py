"""Post-processing: HTML+RDFa 1.1 property copying (``rdfa:copy`` / ``rdfa:Pattern``), dedup."""

from __future__ import annotations

from ._model import RDF_TYPE, RDFA_COPY, RDFA_PATTERN, Resource, Triple

__all__ = ["copy_properties_bounded", "deduplicate"]


def copy_properties_bounded(
    triples: list[Triple], max_triples: int | None
) -> tuple[list[Triple], bool]:
    """Expand ``?s rdfa:copy ?p`` where ``?p`` is an ``rdfa:Pattern``, copying at most
    ``max_triples`` triples in all (``None``: no bound; patterns that copy each other several
    times over grow exponentially); the flag says whether copies were left out.

    Each such ``rdfa:copy`` triple is replaced, in place, by the pattern's triples re-attached to
    ``?s`` (chained copies are followed, cycles are cut). Referenced patterns and their triples
    are removed afterwards; patterns nobody references are left alone.
    """
    patterns = {t.subject for t in triples if t.object == RDFA_PATTERN and t.predicate == RDF_TYPE}
    if not patterns:
        return triples, False
    if not any(t.predicate == RDFA_COPY and t.object in patterns for t in triples):
        return triples, False
    members: dict[Resource, list[Triple]] = {p: [] for p in patterns}
    for t in triples:
        if t.subject in patterns and not (t.predicate == RDF_TYPE and t.object == RDFA_PATTERN):
            members[t.subject].append(t)

    referenced: set[Resource] = set()
    budget = [max_triples if max_triples is not None else -1]  # -1: unbounded
    cut = [False]

    def expand(subject: Resource, pattern: Resource, out: list[Triple]) -> None:
        # Iterative depth-first expansion; `chain` holds the patterns being expanded.
        work: list[tuple[Resource, Resource, frozenset[Resource]]] = [
            (subject, pattern, frozenset((pattern,)))
        ]
        while work:
            target, source, chain = work.pop()
            referenced.add(source)
            nested: list[tuple[Resource, Resource, frozenset[Resource]]] = []
            for t in members[source]:
                obj = t.object
                if t.predicate == RDFA_COPY and obj in patterns:
                    if obj not in chain:
                        nested.append((target, obj, chain | {obj}))  # type: ignore[arg-type]
                    continue
                if budget[0] == 0:
                    cut[0] = True
                    return  # bounded: no more copies
                budget[0] -= 1
                out.append(Triple(target, t.predicate, obj, t.element))
            work.extend(reversed(nested))

    result: list[Triple] = []
    for t in triples:
        if t.predicate == RDFA_COPY and t.object in patterns:
            expand(t.subject, t.object, result)  # type: ignore[arg-type]
        else:
            result.append(t)
    return [t for t in result if t.subject not in referenced], cut[0]


def deduplicate(triples: list[Triple]) -> list[Triple]:
    """Drop repeated (subject, predicate, object) statements, keeping the first occurrence."""
    seen: set[tuple[object, object, object]] = set()
    out: list[Triple] = []
    for t in triples:
        key = (t.subject, t.predicate, t.object)
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out
