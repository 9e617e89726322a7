"""Spool files a killed run left in its ``JOBDIR`` (pure: no Scrapy).

A remote feed's spool (:mod:`structcrawl.crawl.spools`) is uploaded when its slot closes; a
run killed before that (``kill -9``, the OOM killer) leaves it in ``<JOBDIR>/structcrawl-spool/``
with its label (the feed's URI and format). The job journal commits each spool's size with
every page outcome (:mod:`structcrawl.ledger.resume`), so the resumed run knows which of its
lines belong to committed pages (:func:`cut_orphan`; the rest are of pages it fetches again),
which pages they are (:func:`orphan_lines`), and, when a spool began with the lines of an
earlier kept file or spool (its label's ``carries``), which file holds a page's lines now
(:func:`carriers`). :class:`structcrawl.ledger.redelivery.Redelivery` re-delivers them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from structcrawl.ledger.journal import cut_torn_tail
from structcrawl.ledger.pages import ledger_only_line, page_line

__all__ = ["carriers", "cut_orphan", "orphan_lines"]


def cut_orphan(orphan: Mapping[str, Any], committed: Mapping[str, int] | None) -> int:
    """Cut a killed run's spool back to what its pages' commits cover: its size at the last
    commit (``committed``: the journal's feed sizes), else where its own lines start (none of
    them was committed); ``committed`` None (the last run closed) cuts only a torn last line.
    Returns the bytes removed.

    >>> import tempfile; from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "spool"
    >>> _ = path.write_bytes(b'{"url": "a"}\\n{"url": "b"}\\n{"url": "c"')
    >>> orphan = {"spool": str(path), "own_from": 0}
    >>> cut_orphan(orphan, {str(path): 13}), path.read_bytes()
    (24, b'{"url": "a"}\\n')
    >>> cut_orphan(orphan, {}), path.read_bytes()
    (13, b'')
    """
    spool = str(orphan["spool"])
    try:
        size = os.stat(spool).st_size
    except OSError:
        return 0
    if committed is None:
        return cut_torn_tail(spool)
    keep = committed.get(os.path.abspath(spool), committed.get(spool))
    keep = int(orphan.get("own_from") or 0) if keep is None else keep
    if size <= keep:
        return cut_torn_tail(spool)
    os.truncate(spool, keep)
    return size - keep


def carriers(orphans: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """File -> the spool that holds its lines now, for each file an orphan spool carries
    (followed to the last carrier: a spool carried by a later one, and so on).

    >>> carriers([{"spool": "/s2", "carries": ["/k1"]}, {"spool": "/s3", "carries": ["/s2"]}])
    {'/k1': '/s3', '/s2': '/s3'}
    """
    direct = {str(c): str(o["spool"]) for o in orphans for c in o.get("carries") or ()}
    final = {}
    for name in direct:
        seen, now = {name}, direct[name]
        while now in direct and now not in seen:  # a cycle cannot happen; never loop on one
            seen.add(now)
            now = direct[now]
        final[name] = now
    return final


def _page_of_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A pages-feed line as the page item its ledger line is made of: its records stand for
    its ``outcomes`` (``kind:format[:code]``, what the pages exporter writes of them).

    >>> page_line(_page_of_row({"url": "u", "outcomes": ["error:fetch:http-503"]}))["outcome"]
    'error:http-503'
    >>> page_line(_page_of_row({"url": "u", "outcomes": ["entity:json-ld"]}))["outcome"]
    'records'
    """
    records = []
    for outcome in row.get("outcomes") or ():
        kind, _, rest = str(outcome).partition(":")
        fmt, _, code = rest.partition(":")
        record: dict[str, Any] = {"kind": kind, "format": fmt}
        if code:
            record["error"] = {"code": code}
        records.append(record)
    return {**row, "records": records}


def orphan_lines(orphan: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The ledger lines of the pages whose lines are the spool's own (from its ``own_from``
    byte): a ``pages`` feed's page items, or the pages a ``records`` feed's records came from
    (``provenance.fetch.url``, once each); a line that is not JSON is skipped.

    >>> import tempfile; from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "spool"
    >>> rec = lambda u: json.dumps({"provenance": {"fetch": {"url": u}}}) + "\\n"
    >>> _ = path.write_text(rec("a") + rec("a") + rec("b"))
    >>> [(x["url"], x["outcome"]) for x in orphan_lines({"spool": path, "format": "records"})]
    [('a', 'records'), ('b', 'records')]
    """
    fmt = str(orphan.get("format") or "")
    seen: set[str] = set()
    with open(orphan["spool"], "rb") as spool:
        spool.seek(int(orphan.get("own_from") or 0))
        for raw in spool:
            try:
                value = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(value, dict):
                continue
            if fmt == "pages" and value.get("url"):
                line = page_line(_page_of_row(value))
            else:
                fetch = (value.get("provenance") or {}).get("fetch") or {}
                if not isinstance(fetch, dict) or not fetch.get("url"):
                    continue
                line = ledger_only_line(str(fetch["url"]), "records")
            if str(line["url"]) not in seen:
                seen.add(str(line["url"]))
                yield line
