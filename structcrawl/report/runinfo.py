"""Run metadata and the change since the previous run, for the quality report (pure module).

* :func:`run_metadata`: finish reason, versions, the settings that shape a crawl's output.
* :func:`compare_runs`: this run against the previous report of the same crawl (the same
  report folder): entities per type, completeness per field, error rate per type, with the
  drops larger than ``drop`` (0.05 = five points) listed as ``drops``.
"""

from __future__ import annotations

import platform
from collections.abc import Mapping
from importlib import metadata
from typing import Any

__all__ = ["SETTINGS_THAT_MATTER", "compare_runs", "run_metadata"]

#: Settings shown in the report: those that change what a crawl fetches or writes.
SETTINGS_THAT_MATTER = (
    "USER_AGENT",
    "ROBOTSTXT_OBEY",
    "AUTOTHROTTLE_ENABLED",
    "CONCURRENT_REQUESTS_PER_DOMAIN",
    "DOWNLOAD_DELAY",
    "DOWNLOAD_TIMEOUT",
    "DEPTH_LIMIT",
    "STRUCTCRAWL_SYNTAXES",
    "STRUCTCRAWL_RENDER_ENABLED",
    "STRUCTCRAWL_INCREMENTAL",
    "STRUCTCRAWL_REDIS_URL",
)


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def run_metadata(
    settings: Mapping[str, Any],
    reason: str | None,
    stats: Mapping[str, Any],
    spider: Any = None,
) -> dict[str, Any]:
    """What ran, how and how it ended. ``spider``: its name and, for a spider that limits
    link depth itself (the ``site`` spider's ``-a depth``, ``structcrawl crawl --depth``),
    that limit: ``DEPTH_LIMIT`` stays 0 (no limit of Scrapy's) then.

    >>> class Site: name, max_depth = "site", 1
    >>> info = run_metadata({}, "finished", {"elapsed_time_seconds": 12.3456789}, Site())
    >>> info["elapsed_seconds"], info["spider"]
    (12.3, {'name': 'site', 'depth': 1})
    """
    elapsed = stats.get("elapsed_time_seconds")
    return {
        "finish_reason": reason,
        "start_time": str(stats.get("start_time") or "") or None,
        "finish_time": str(stats.get("finish_time") or "") or None,
        "elapsed_seconds": round(float(elapsed), 1) if elapsed is not None else None,
        "spider": None
        if spider is None
        else {"name": getattr(spider, "name", None), "depth": getattr(spider, "max_depth", None)},
        "versions": {
            "structcrawl": _version("structcrawl"),
            "scrapy": _version("scrapy"),
            "scrapy-playwright": _version("scrapy-playwright"),
            "python": platform.python_version(),
        },
        "settings": {name: settings.get(name) for name in SETTINGS_THAT_MATTER},
    }


def _delta(now: float | None, before: float | None) -> float | None:
    if now is None or before is None:
        return None
    return round(float(now) - float(before), 4)


def compare_runs(
    current: Mapping[str, Any], previous: Mapping[str, Any] | None, drop: float = 0.05
) -> dict[str, Any] | None:
    """The change since ``previous`` (``None`` when there is no previous run).

    >>> before = {"entities": {"by_type": {"Product": 10}}, "finish_reason": "finished",
    ...           "completeness": {"Product": {"name": 1.0, "gtin": 0.9}},
    ...           "validation": {"by_type": {"Product": {"error_rate": 0.1}}}}
    >>> now = {"entities": {"by_type": {"Product": 8}},
    ...        "completeness": {"Product": {"name": 1.0, "gtin": 0.5}},
    ...        "validation": {"by_type": {"Product": {"error_rate": 0.25}}}}
    >>> change = compare_runs(now, before)
    >>> change["entities"]["Product"], change["completeness"]["Product.gtin"]
    ({'now': 8, 'before': 10, 'delta': -2}, {'now': 0.5, 'before': 0.9, 'delta': -0.4})
    >>> [d["what"] for d in change["drops"]]
    ['completeness Product.gtin', 'error rate Product']
    """
    if not previous or previous.get("finish_reason") is None:
        return None
    entities: dict[str, Any] = {}
    now_types = current.get("entities", {}).get("by_type", {})
    before_types = previous.get("entities", {}).get("by_type", {})
    for etype in sorted(set(now_types) | set(before_types)):
        now, before = now_types.get(etype, 0), before_types.get(etype, 0)
        entities[etype] = {"now": now, "before": before, "delta": now - before}
    completeness: dict[str, Any] = {}
    drops: list[dict[str, Any]] = []
    now_fields = current.get("completeness", {})
    before_fields = previous.get("completeness", {})
    for etype in sorted(set(now_fields) & set(before_fields)):
        for field in sorted(set(now_fields[etype]) | set(before_fields[etype])):
            now_v = now_fields[etype].get(field, 0.0)
            before_v = before_fields[etype].get(field, 0.0)
            delta = _delta(now_v, before_v)
            completeness[f"{etype}.{field}"] = {"now": now_v, "before": before_v, "delta": delta}
            if delta is not None and delta < -drop:
                drops.append({"what": f"completeness {etype}.{field}", "delta": delta})
    errors: dict[str, Any] = {}
    now_rates = current.get("validation", {}).get("by_type", {})
    before_rates = previous.get("validation", {}).get("by_type", {})
    for etype in sorted(set(now_rates) & set(before_rates)):
        now_v = now_rates[etype].get("error_rate")
        before_v = before_rates[etype].get("error_rate")
        delta = _delta(now_v, before_v)
        errors[etype] = {"now": now_v, "before": before_v, "delta": delta}
        if delta is not None and delta > drop:
            drops.append({"what": f"error rate {etype}", "delta": delta})
    return {
        "previous_finish_time": (previous.get("run") or {}).get("finish_time"),
        "entities": entities,
        "completeness": completeness,
        "error_rate": errors,
        "drops": drops,
    }
