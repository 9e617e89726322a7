"""Merging sightings of one entity across formats and pages (pure).

The merge state of an entity keeps, per dotted field, every *distinct* value seen (compared
after whitespace/case folding and numeric normalization), each with the best precedence of the
layers that gave it, how often it was seen and its first few sightings. The entity view picks,
per field, the value a page's arbitration chose (the page's typed items and the entity
agree by construction), else the value of the highest-precedence layer (ties: the value seen
most often, then the smallest: never the order of the pages), and lists a conflict wherever
sources disagree. Sightings are bounded per value so that an entity seen on
many pages does not grow without limit; the full list of sources is kept by the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from structcrawl.entities.flatten import flatten, unflatten
from structcrawl.entities.identity import preferred_key
from structcrawl.entities.sameness import cmp_key

__all__ = [
    "DEFAULT_PRECEDENCE",
    "MAX_SIGHTINGS",
    "add_choice",
    "add_identity",
    "add_record",
    "entity_view",
    "is_entity",
    "merge_states",
    "new_state",
    "precedence_ranks",
]

#: Layer precedence, highest first (setting ``STRUCTCRAWL_FORMAT_PRECEDENCE``).
DEFAULT_PRECEDENCE = (
    "json-ld",
    "microdata",
    "rdfa",
    "microformats",
    "opengraph",
    "network-json",
    "json",
    "data-block",
    "selector",
)
#: Sightings kept per distinct value of a field (the count goes on).
MAX_SIGHTINGS = 5
#: Strong identifier keys kept per entity (``gtin:...``, ``url:...``; see entities.resolve).
MAX_IDENTITY = 32
_DOCUMENT_FORMATS = frozenset({"data-block", "json", "network-json"})


def precedence_ranks(order: Sequence[str]) -> dict[str, int]:
    return {fmt: i for i, fmt in enumerate(order)}


def is_entity(record: Mapping[str, Any]) -> bool:
    """Whether a record describes an entity to merge: a typed entity record, but not the
    whole-document record of a data block or JSON response (its typed nodes are entities)."""
    if record.get("kind") != "entity" or not record.get("type"):
        return False
    if record.get("format") in _DOCUMENT_FORMATS:
        element = record.get("source_element") or ""
        return "$" in element and not element.endswith("#$") and element != "$"
    return True


def new_state(key: str) -> dict[str, Any]:
    return {
        "key": key,
        "id": None,
        "type": [],
        "fields": {},
        "formats": [],
        "flags": [],
        "validation": [],
        "sightings": 0,
        "first_seen": None,
        "last_seen": None,
    }


def add_record(
    state: dict[str, Any],
    record: Mapping[str, Any],
    *,
    page_url: str,
    retrieved_at: str | None,
    ranks: Mapping[str, int],
) -> None:
    """Add one sighting (a record) of the entity to its merge state."""
    fmt = record.get("format") or ""
    rank = ranks.get(fmt, len(ranks))
    if record.get("repairs"):  # repaired input ranks after every layer read as written
        rank += len(ranks) + 1
    if record.get("id"):
        _choose_id(state, str(record["id"]), rank)
    for t in record.get("type") or []:
        if t not in state["type"]:
            state["type"].append(t)
    if fmt not in state["formats"]:  # kept in precedence order: formats[0] is the best layer
        state["formats"].append(fmt)
        state["formats"].sort(key=lambda f: ranks.get(f, len(ranks)))
    for flag in record.get("flags") or []:
        if flag not in state["flags"] and len(state["flags"]) < 50:
            state["flags"].append(flag)
    validation = record.get("validation")
    if validation is not None and len(state["validation"]) < 20:
        state["validation"].append({"format": fmt, "url": page_url, **validation})
    state["sightings"] += 1
    when = retrieved_at or ""
    if state["first_seen"] is None or (when and when < state["first_seen"]):
        state["first_seen"] = when or state["first_seen"]
    if when and (state["last_seen"] is None or when > state["last_seen"]):
        state["last_seen"] = when
    for s in flatten(dict(record)):
        candidates = state["fields"].setdefault(s.field, [])
        key = cmp_key(s.value)
        for cand in candidates:
            if cand["cmp"] == key:
                break
        else:
            cand = {"cmp": key, "value": s.value, "rank": rank, "count": 0, "seen": []}
            candidates.append(cand)
        cand["rank"] = min(cand["rank"], rank)
        cand["count"] += 1
        if len(cand["seen"]) < MAX_SIGHTINGS:
            cand["seen"].append({"url": page_url, "format": fmt, "path": s.path, "raw": s.raw})


def _choose_id(state: dict[str, Any], iri: str, rank: int) -> None:
    """Keep the entity's ``@id`` chosen whatever the order of its sightings: the one given by
    the best-ranked layer, then the smallest (``https://a.example/`` before
    ``https://a.example``, which resolve to one entity)."""
    current = state.get("id")
    if current is None or (rank, iri) < (state.get("id_rank", rank), current):
        state["id"] = iri
        state["id_rank"] = rank


def _winner(candidates: list[dict[str, Any]]) -> dict[str, Any]:
    """The value a field takes: the one a page's arbitration chose (``arb``: -2 on a page the
    entity is the primary thing of, -1 on another), then the best layer, then the value seen
    most often, then the smallest comparison key: never the order the pages came in."""
    return min(candidates, key=lambda c: (c.get("arb", 0), c["rank"], -c["count"], c["cmp"]))


def add_choice(
    state: dict[str, Any],
    field: str,
    value: Any,
    *,
    arb: int,
    seen: Mapping[str, Any],
    rank: int,
) -> None:
    """Record that a page's arbitration (:mod:`structcrawl.typed`) chose ``value`` for
    ``field`` of this entity: an equal value already sighted is marked chosen; a value no
    layer gave (a fallback read from the page) is added with its sighting ``seen``."""
    key = cmp_key(value)
    candidates = state["fields"].setdefault(field, [])
    for cand in candidates:
        if cand["cmp"] == key:
            cand["arb"] = min(cand.get("arb", 0), arb)
            return
    candidates.append(
        {"cmp": key, "value": value, "rank": rank, "count": 1, "seen": [dict(seen)], "arb": arb}
    )


def entity_view(state: Mapping[str, Any]) -> dict[str, Any]:
    """The merged entity: chosen values, conflicts, per-field provenance."""
    chosen: dict[str, Any] = {}
    conflicts: list[dict[str, Any]] = []
    provenance: dict[str, list[dict[str, Any]]] = {}
    for field, candidates in state["fields"].items():
        win = _winner(candidates)
        if win["value"] is not None:  # None: a page read the layers' value as no value
            chosen[field] = win["value"]
        provenance[field] = [
            {**seen, "value": cand["value"]} for cand in candidates for seen in cand["seen"]
        ]
        if len(candidates) > 1 and not field.endswith("@type"):
            conflicts.append(
                {
                    "field": field,
                    "chosen": win["value"],
                    "values": [
                        {
                            "value": cand["value"],
                            "count": cand["count"],
                            "formats": sorted({s["format"] for s in cand["seen"]}),
                            "urls": sorted({s["url"] for s in cand["seen"]}),
                        }
                        for cand in candidates
                    ],
                }
            )
    return {
        "key": state["key"],
        "id": state["id"],
        "type": list(state["type"]),
        "properties": unflatten(chosen),
        "conflicts": conflicts,
        "provenance": provenance,
        "formats": list(state["formats"]),
        "flags": list(state["flags"]),
        "source_validation": list(state["validation"]),
        "sightings": state["sightings"],
        "first_seen": state["first_seen"],
        "last_seen": state["last_seen"],
    }


def add_identity(state: dict[str, Any], keys: Sequence[str]) -> None:
    """Remember the strong identifier keys an entity was seen with (sorted, bounded), by which
    entities stored under different keys are resolved into one (:mod:`.identity`)."""
    known = state.setdefault("identity", [])
    for key in keys:
        if key not in known and len(known) < MAX_IDENTITY:
            known.append(key)
    known.sort()


def merge_states(states: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One merge state for entities found to be one (states in key order; the result keeps
    the key of the state that was the primary thing of the most pages, then the preferred
    key, :func:`~structcrawl.entities.identity.preferred_key`). Per field,
    equal values are one candidate: best rank and choice, summed counts, sightings joined
    (bounded)."""
    ordered = sorted(states, key=lambda s: s["key"])
    # named by the key its pages' own items name it by: the state that was the primary thing
    # of the most pages, then the preferred key
    most = max(int(s.get("primary") or 0) for s in ordered)
    out = new_state(preferred_key(s["key"] for s in ordered if int(s.get("primary") or 0) == most))
    out["identity"] = []
    for state in ordered:
        if state.get("id"):
            _choose_id(out, str(state["id"]), int(state.get("id_rank", 0)))
        for name in ("type", "formats", "flags", "validation", "identity"):
            for value in state.get(name) or []:
                if value not in out[name]:
                    out[name].append(value)
        out["sightings"] += state.get("sightings") or 0
        out["primary"] = int(out.get("primary") or 0) + int(state.get("primary") or 0)
        for when, pick in (("first_seen", min), ("last_seen", max)):
            both = [w for w in (out[when], state.get(when)) if w]
            out[when] = pick(both) if both else None
        for field, candidates in (state.get("fields") or {}).items():
            merged = out["fields"].setdefault(field, [])
            for cand in candidates:
                for mine in merged:
                    if mine["cmp"] == cand["cmp"]:
                        mine["rank"] = min(mine["rank"], cand["rank"])
                        mine["arb"] = min(mine.get("arb", 0), cand.get("arb", 0))
                        mine["count"] += cand["count"]
                        room = MAX_SIGHTINGS - len(mine["seen"])
                        mine["seen"].extend(cand["seen"][: max(room, 0)])
                        break
                else:
                    merged.append({**cand, "seen": list(cand["seen"])})
    out["identity"].sort()
    out["merged_keys"] = [s["key"] for s in ordered]
    return out
