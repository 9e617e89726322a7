"""Field candidates with provenance, and the choice between them (pure).

Every value an item may take is a :class:`Candidate` carrying where it came from (record index,
layer, path, raw value, rule). :func:`choose` picks, per field, the candidate of the best rank
(structured layers in ``STRUCTCRAWL_FORMAT_PRECEDENCE`` order, repaired records after them,
generic fallbacks last) and lists the disagreeing others as conflicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from structcrawl.entities.merge import DEFAULT_PRECEDENCE
from structcrawl.entities.sameness import same

__all__ = ["FALLBACK_RULES", "Candidate", "choose", "layer_rank"]

#: Generic fallbacks, best first; they rank below every structured layer.
FALLBACK_RULES = ("meta-tags", "itemprop-loose", "data-block-product", "visible-page", "url-id")


@dataclass(frozen=True, slots=True)
class Candidate:
    field: str
    value: Any
    layer: str
    path: str = ""
    raw: Any = None
    rule: str = ""
    record: int | None = None
    fallback: bool = False
    repaired: bool = False
    evidence: str | None = None
    #: the winning values this candidate overrules (the page's "Sold out" over a stale
    #: markup "InStock", the shown price over a stale markup one), compared as
    #: :func:`~structcrawl.entities.sameness.same` values: it wins against them, whatever
    #: their rank
    overrules: frozenset[Any] = frozenset()

    def provenance(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "record": self.record,
            "layer": self.layer,
            "path": self.path,
            "raw": self.raw,
            "rule": self.rule,
        }
        if self.fallback:
            out["fallback"] = True
            out["evidence"] = self.evidence
        return out


def layer_rank(c: Candidate, precedence: Sequence[str] = DEFAULT_PRECEDENCE) -> int:
    """Structured layers by precedence; repaired records after every structured layer;
    generic fallbacks after those, in :data:`FALLBACK_RULES` order."""
    n = len(precedence)
    if c.fallback:
        rule = c.rule.split(":", 1)[0]
        return (
            2 * n
            + 2
            + (FALLBACK_RULES.index(rule) if rule in FALLBACK_RULES else len(FALLBACK_RULES))
        )
    base = precedence.index(c.layer) if c.layer in precedence else n
    return base + (n + 1 if c.repaired else 0)


def choose(
    candidates: list[Candidate],
    precedence: Sequence[str] = DEFAULT_PRECEDENCE,
    prefer: Any = None,
) -> tuple[Candidate | None, list[dict[str, Any]]]:
    """The winning candidate and the conflicts (every distinct other value with its source).

    A candidate that overrules the winner's value wins instead (:attr:`Candidate.overrules`).

    ``prefer``, when given, is a value corroborated by the visible page: among candidates of
    structured layers that disagree, one equal to it wins (rule ``visible-corroborated``)."""
    live = [c for c in candidates if c.value not in (None, "", [], {})]
    if not live:
        return None, []
    ordered = sorted(enumerate(live), key=lambda ic: (layer_rank(ic[1], precedence), ic[0]))
    win = ordered[0][1]
    overruling = next(
        (c for _, c in ordered if c.overrules and any(same(win.value, v) for v in c.overrules)),
        None,
    )
    if overruling is not None:
        win = overruling
    elif prefer is not None and not same(win.value, prefer):
        # the page shows it: among the winner's tier (structured layers, or fallbacks other
        # than the visible page itself when only fallbacks speak), the one equal to it wins
        for _, cand in ordered:
            if (
                cand.fallback == win.fallback
                and cand.layer != "visible-page"
                and same(cand.value, prefer)
            ):
                win = cand
                break
    conflicts = []
    seen = [win.value]
    for _, cand in ordered:
        if any(same(cand.value, v) for v in seen):
            continue
        seen.append(cand.value)
        conflicts.append({"value": cand.value, **cand.provenance()})
    return win, conflicts
