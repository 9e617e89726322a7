"""Old import paths of modules that moved in the 0.2 layout, kept working with a warning.

Scrapy settings written for structcrawl 0.1 name components by their old paths
(``structcrawl.pipelines.ExtractionPipeline``, ``structcrawl.middlewares.BackoffRetryMiddleware``,
``structcrawl.ledger_ext.PageLedger``, ...). A finder on ``sys.meta_path`` resolves each old
module name to the module at its new place (the same module object, so classes compare equal)
and emits a :class:`DeprecationWarning` naming the new path. ``docs/layout.md`` lists the moves.

>>> import importlib, warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     old = importlib.import_module("structcrawl.records")
>>> old is importlib.import_module("structcrawl.core.records")
True
>>> "structcrawl.core.records" in str(caught[0].message)
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType

__all__ = ["MOVED", "install"]

#: old module path -> new module path (a package entry covers its submodules)
MOVED: dict[str, str] = {
    "structcrawl.document": "structcrawl.core.document",
    "structcrawl.payload": "structcrawl.core.payload",
    "structcrawl.records": "structcrawl.core.records",
    "structcrawl.limits": "structcrawl.core.limits",
    "structcrawl.links": "structcrawl.core.links",
    "structcrawl.redact": "structcrawl.core.redact",
    "structcrawl.logsafety": "structcrawl.core.logsafety",
    "structcrawl.rdfa": "structcrawl.extract.rdfa",
    "structcrawl.mf2": "structcrawl.extract.mf2",
    "structcrawl.config": "structcrawl.crawl.config",
    "structcrawl.items": "structcrawl.crawl.items",
    "structcrawl.exporters": "structcrawl.crawl.exporters",
    "structcrawl.feeds": "structcrawl.crawl.feeds",
    "structcrawl.middlewares": "structcrawl.crawl.middlewares",
    "structcrawl.retry": "structcrawl.crawl.retry",
    "structcrawl.health": "structcrawl.crawl.health",
    "structcrawl.bodystore": "structcrawl.crawl.bodystore",
    "structcrawl.pipelines.bodystore": "structcrawl.crawl.pipelines.bodies",
    "structcrawl.pipelines.network": "structcrawl.crawl.pipelines.rendergain",
    "structcrawl.pipelines": "structcrawl.crawl.pipelines",
    "structcrawl.commands": "structcrawl.crawl.commands",
    "structcrawl.changes.detector": "structcrawl.crawl.pipelines._changes",
    "structcrawl.changes.detect": "structcrawl.changes.compare",
    "structcrawl.ledger_journal": "structcrawl.ledger.journal",
    "structcrawl.ledger_resume": "structcrawl.ledger.resume",
    "structcrawl.ledger_ext": "structcrawl.ledger.extension",
    "structcrawl.schedule": "structcrawl.ops.schedule",
}


def _target(fullname: str) -> str | None:
    if fullname in MOVED:
        return MOVED[fullname]
    head, _, tail = fullname.rpartition(".")
    while head:
        if head in MOVED:
            return MOVED[head] + "." + fullname[len(head) + 1 :]
        head, _, _ = head.rpartition(".")
    return None


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target
        self.real_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.target}; the old path will be removed in 0.3",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(self.target)
        self.real_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system set the alias spec on the shared module: give it its own back
        module.__spec__ = self.real_spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = _target(fullname) if fullname.startswith("structcrawl.") else None
        if new is None:
            return None
        real = importlib.util.find_spec(new)
        if real is None:
            return None
        is_package = real.submodule_search_locations is not None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(new), is_package=is_package)


_FINDER = _AliasFinder()


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` (once)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
