"""Merging sightings of one entity across formats and pages (pure).

The merge state of an entity keeps, per dotted field, every *distinct* value seen (compared
after whitespace/case folding and numeric normalization), each with the best precedence of the
layers that gave it, how often it was seen and its first few sightings. The entity view picks,
per field, the value of the highest-precedence layer (ties: the first seen), and lists a
conflict wherever sources disagree. Sightings are bounded per value so that an entity seen on
many pages does not grow without limit; the full list of sources is kept by the store.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from structcrawl.entities.flatten import flatten, unflatten

__all__ = [
    "DEFAULT_PRECEDENCE",
    "MAX_SIGHTINGS",
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


def _cmp_key(value: Any) -> str:
    """What makes two values 'the same' for conflict detection."""
    if isinstance(value, str):
        text = " ".join(value.split())
        if not text or not (text[0].isdecimal() or text[0] in "+-."):
            # not a finite number (Decimal reads one only from a sign, a digit or a point):
            # spared the cost of Decimal's exception
            return "s:" + text.casefold()
        try:
            number = Decimal(text)
        except (InvalidOperation, ValueError):
            return "s:" + text.casefold()
        if number.is_finite():
            return "n:" + format(number.normalize(), "f")
        return "s:" + text.casefold()
    if isinstance(value, bool) or value is None:
        return "j:" + json.dumps(value)
    if isinstance(value, (int, float)):
        return _cmp_key(str(value))
    if isinstance(value, list):
        return "l:" + json.dumps([_cmp_key(v) for v in value])
    if isinstance(value, dict) and "@value" in value:  # a typed or language-tagged literal:
        return _cmp_key(value["@value"])  # the same text as a plain one (no conflict)
    if isinstance(value, dict):
        return "d:" + json.dumps({k: _cmp_key(v) for k, v in sorted(value.items())})
    return "r:" + repr(value)


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
        key = _cmp_key(s.value)
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
    return min(enumerate(candidates), key=lambda ic: (ic[1]["rank"], ic[0]))[1]


def entity_view(state: Mapping[str, Any]) -> dict[str, Any]:
    """The merged entity: chosen values, conflicts, per-field provenance."""
    chosen: dict[str, Any] = {}
    conflicts: list[dict[str, Any]] = []
    provenance: dict[str, list[dict[str, Any]]] = {}
    for field, candidates in state["fields"].items():
        win = _winner(candidates)
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
    entities stored under different keys are resolved into one (:mod:`.resolve`)."""
    known = state.setdefault("identity", [])
    for key in keys:
        if key not in known and len(known) < MAX_IDENTITY:
            known.append(key)
    known.sort()


def merge_states(states: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One merge state for entities found to be one (states in key order; the result keeps
    the smallest key). Per field, equal values are one candidate: best rank, summed counts,
    sightings joined (bounded)."""
    ordered = sorted(states, key=lambda s: s["key"])
    out = new_state(ordered[0]["key"])
    out["identity"] = []
    for state in ordered:
        if state.get("id"):
            _choose_id(out, str(state["id"]), int(state.get("id_rank", 0)))
        for name in ("type", "formats", "flags", "validation", "identity"):
            for value in state.get(name) or []:
                if value not in out[name]:
                    out[name].append(value)
        out["sightings"] += state.get("sightings") or 0
        for when, pick in (("first_seen", min), ("last_seen", max)):
            both = [w for w in (out[when], state.get(when)) if w]
            out[when] = pick(both) if both else None
        for field, candidates in (state.get("fields") or {}).items():
            merged = out["fields"].setdefault(field, [])
            for cand in candidates:
                for mine in merged:
                    if mine["cmp"] == cand["cmp"]:
                        mine["rank"] = min(mine["rank"], cand["rank"])
                        mine["count"] += cand["count"]
                        room = MAX_SIGHTINGS - len(mine["seen"])
                        mine["seen"].extend(cand["seen"][: max(room, 0)])
                        break
                else:
                    merged.append({**cand, "seen": list(cand["seen"])})
    out["identity"].sort()
    out["merged_keys"] = [s["key"] for s in ordered]
    return out
