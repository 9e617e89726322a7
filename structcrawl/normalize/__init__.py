"""Normalization: extracted values to comparable forms, the originals kept beside them.

Pure functions (no Scrapy), one module per kind of value, each returning the normalized value
and flags rather than raising:

* :mod:`~structcrawl.normalize.dates` — ISO 8601 with an explicit offset;
* :mod:`~structcrawl.normalize.prices` — decimal strings, ISO 4217 currencies (price-parser);
* :mod:`~structcrawl.normalize.urls` — absolute, safe-encoded URLs;
* :mod:`~structcrawl.normalize.enums` — schema.org enumeration IRIs;
* :mod:`~structcrawl.normalize.identifiers` — GTIN and ISBN check digits;
* :mod:`~structcrawl.normalize.durations` — ISO 8601 durations;
* :mod:`~structcrawl.normalize.quantities` — numbers, and numbers with their units;
* :mod:`~structcrawl.normalize.keys` — :func:`entity_key`, one stable key per entity.

:func:`normalize_record` applies them to a record dict (``Record.to_dict()``), recursively.
"""

from __future__ import annotations

from structcrawl.normalize._record import NormalizeContext, normalize_record
from structcrawl.normalize._result import Flag, Normalized
from structcrawl.normalize.keys import entity_key

__all__ = ["Flag", "NormalizeContext", "Normalized", "entity_key", "normalize_record"]
