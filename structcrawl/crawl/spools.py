"""Where a remote feed's content waits for its upload: named spool files, found again after a
kill (no Scrapy).

A remote feed (S3) is written to a local **spool file** and uploaded when its slot closes;
until then the spool is the only copy of the feed. So a spool is made, from the start, in a
place that says what it is:

* with ``JOBDIR``, in ``<JOBDIR>/structcrawl-spool/`` (:data:`SPOOL_DIR`), which belongs to the
  job and survives it; else in ``STRUCTCRAWL_FEED_RESCUE_DIR`` (the system's temporary
  directory by default), beside the other kept files;
* named ``structcrawl-spool-<pid>-<random>-<the feed's file name>``, with a **label** beside
  it (the same name and ``.feed.json``: ``{"feed": URI, "format": ..., "spool": PATH,
  "pid": ...}``, the URI's credentials redacted), written before a line reaches the spool;
  a spool that starts with an earlier run's kept lines says so once they are copied
  (``"carries"``: those kept files, ``"own_from"``: where its own lines start).

A spool whose upload succeeded is deleted with its label (:func:`drop_spool`); one whose upload
failed stays, named in the error. A spool of a run killed before its upload (``kill -9``, the
OOM killer) stays too, and its label still says which feed it holds: a resumed job finds it in
its ``JOBDIR`` (:func:`orphan_spools`) and re-delivers it
(:mod:`structcrawl.ledger.redelivery`).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from structcrawl.crawl.feedconfig import SPOOL_DIR  # the folder in JOBDIR (FeedConfig.spool_dir)

__all__ = [
    "LABEL_SUFFIX",
    "SPOOL_DIR",
    "drop_spool",
    "label_carried",
    "mark_adopted",
    "open_spool",
    "orphan_spools",
]

#: A spool's label is its path with this suffix.
LABEL_SUFFIX = ".feed.json"


def _label(spool: Path) -> Path:
    return spool.with_name(spool.name + LABEL_SUFFIX)


def open_spool(folder: Path, uri: str, fmt: str) -> Path:
    """A new, empty spool file in ``folder`` for the feed ``uri`` (redacted) of format
    ``fmt``, its label written beside it first.

    >>> folder = Path(tempfile.mkdtemp())
    >>> spool = open_spool(folder, "s3://b/crawl/pages.jsonl", "pages")
    >>> spool.name.startswith("structcrawl-spool-"), spool.name.endswith("-pages.jsonl")
    (True, True)
    >>> [(o["feed"], o["format"]) for o in orphan_spools(folder, set())]
    [('s3://b/crawl/pages.jsonl', 'pages')]
    >>> drop_spool(spool); sorted(folder.iterdir())
    []
    """
    folder.mkdir(parents=True, exist_ok=True)
    name = Path(uri.rsplit("/", 1)[-1] or "feed").name
    fd, path = tempfile.mkstemp(prefix=f"structcrawl-spool-{os.getpid()}-", suffix=f"-{name}",
                                dir=folder)  # fmt: skip
    os.close(fd)
    spool = Path(path)
    label = {"feed": uri, "format": fmt, "spool": str(spool), "pid": os.getpid()}
    partial = _label(spool).with_suffix(".partial")
    partial.write_text(json.dumps(label, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(_label(spool))
    return spool


def label_carried(spool: Path, carried: list[str], own_from: int) -> None:
    """Say on ``spool``'s label that it holds the lines of the kept files ``carried`` (an
    earlier run's, copied first) and that its own lines start at byte ``own_from``."""
    label = _label(spool)
    value = json.loads(label.read_text(encoding="utf-8"))
    value.update(carries=carried, own_from=own_from)
    partial = label.with_suffix(".partial")
    partial.write_text(json.dumps(value, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(label)


def mark_adopted(spool: Path) -> None:
    """Say on ``spool``'s label that a resumed run found it and cut it back to its committed
    lines: a later run (that run killed too) must not cut it again."""
    label = _label(spool)
    value = json.loads(label.read_text(encoding="utf-8"))
    value["adopted"] = True
    partial = label.with_suffix(".partial")
    partial.write_text(json.dumps(value, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(label)


def drop_spool(spool: str | os.PathLike[str]) -> None:
    """Delete a spool file that is no longer needed, and its label."""
    path = Path(spool)
    path.unlink(missing_ok=True)
    _label(path).unlink(missing_ok=True)


def orphan_spools(folder: Path, known: set[str]) -> list[dict[str, Any]]:
    """The labels (``feed``, ``format``, ``spool``) of the spool files in ``folder`` that
    still exist and are not among ``known`` (the kept files an earlier run named): the spools
    of a run that never reached their upload. A label whose spool is gone is deleted."""
    found: list[dict[str, Any]] = []
    if not folder.is_dir():
        return found
    for label in sorted(folder.glob("structcrawl-spool-*" + LABEL_SUFFIX)):
        try:
            value = json.loads(label.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(value, dict) or not value.get("feed"):
            continue
        spool = label.with_name(label.name[: -len(LABEL_SUFFIX)])
        if not spool.is_file():
            label.unlink(missing_ok=True)
            continue
        if str(spool) in known:
            continue
        carries = value.get("carries")
        found.append({
            "feed": str(value["feed"]), "format": str(value.get("format") or ""),
            "spool": str(spool),
            "carries": [str(c) for c in carries] if isinstance(carries, list) else [],
            "own_from": int(value.get("own_from") or 0),
            "adopted": bool(value.get("adopted")),
        })  # fmt: skip
    return found
