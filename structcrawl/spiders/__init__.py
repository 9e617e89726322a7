"""Site spiders. They fetch and yield page items; they extract nothing themselves.

The ``site`` spider ships here, in the package, so ``structcrawl crawl`` and scrapyd eggs find
it wherever they run. A project's own spiders live in its top-level ``spiders`` package (the
checkout's holds ``demo``), which :func:`project_spider_modules` adds to ``SPIDER_MODULES``.
"""

from __future__ import annotations

import importlib.util

__all__ = ["MARKER", "project_spider_modules"]

#: The line by which a top-level ``spiders`` package says it is a structcrawl project's.
MARKER = "STRUCTCRAWL_PROJECT_SPIDERS = True"


def project_spider_modules(name: str = "spiders") -> list[str]:
    """``[name]`` when the importable top-level package ``name`` carries :data:`MARKER`.

    Found without importing it, so an unrelated ``spiders`` package in the folder a crawl runs
    from (a user's own Scrapy project) is neither imported nor listed: its spiders' names could
    clash with ours, and its settings are not these.

    >>> project_spider_modules("structcrawl_no_such_package")
    []
    """
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        return []
    get_source = getattr(spec.loader, "get_source", None)  # files and zips (a scrapyd egg)
    try:
        text = get_source(name) if get_source else None
    except (ImportError, OSError, UnicodeDecodeError):
        return []
    return [name] if any(line.strip() == MARKER for line in (text or "").splitlines()) else []
