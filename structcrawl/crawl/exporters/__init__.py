"""Feed exporters, one per kind of line, each writing only the items it is about:

* ``records``: one JSON line per record (entities, errors, skips) of each page item;
* ``pages``: one JSON line per page item (fetch facts and a summary of its records);
* ``entities``: one JSON line per deduplicated entity;
* ``entities-csv``: one CSV row per entity: a documented flat column set plus a ``json``
  column holding the whole entity;
* ``entities-delta``: one JSON line per entity that is ``new``, ``changed`` or ``gone``
  compared with the previous run (:mod:`structcrawl.changes`); ``unchanged`` ones are left
  out. ``entities`` and ``entities-csv`` describe what this run saw and leave ``gone``
  entities out.
* ``items`` / ``items-csv``: one JSON line / CSV row per typed item (:mod:`structcrawl.typed`)
  of each page, primary first;
* ``items-merged``: one JSON line per typed item merged across pages: the typed item of each
  entity the crawl saw (:func:`structcrawl.typed.merged.merged_item`), written when the
  entities are emitted at the end of the crawl;
* ``graph``: the RDF dataset of each page as N-Quads (:mod:`structcrawl.extract.graph`, the
  same export as ``structcrawl extract --format nquads``), blank nodes labelled per page.

Registered by :class:`structcrawl.Addon` (``FEED_EXPORTERS``); use them in ``FEEDS``
(``{"output/entities.jsonl": {"format": "entities"}}``) or ``-O path:format``. The same
formats work with any feed storage (local files, S3). The ``records`` and ``pages`` exporters
flush each line as they write it (no fsync): when a worker is killed, the pages it finished
are in its local feed files, at worst followed by one torn line (docs/distributed.md).
"""

from structcrawl.crawl.exporters._base import DELTA_STATUSES, FastJsonLinesExporter
from structcrawl.crawl.exporters.graph import GraphNQuadsExporter
from structcrawl.crawl.exporters.lines import (
    EntitiesDeltaJsonLinesExporter,
    EntitiesJsonLinesExporter,
    PagesJsonLinesExporter,
    RecordsJsonLinesExporter,
)
from structcrawl.crawl.exporters.tables import CSV_COLUMNS, EntitiesCsvExporter, csv_row
from structcrawl.crawl.exporters.typeditems import (
    ITEM_CSV_COLUMNS,
    ItemsCsvExporter,
    ItemsJsonLinesExporter,
    MergedItemsJsonLinesExporter,
    build_page_items,
    item_csv_row,
    page_typed_items,
)

__all__ = [
    "CSV_COLUMNS",
    "DELTA_STATUSES",
    "EntitiesCsvExporter",
    "EntitiesDeltaJsonLinesExporter",
    "EntitiesJsonLinesExporter",
    "FastJsonLinesExporter",
    "GraphNQuadsExporter",
    "ITEM_CSV_COLUMNS",
    "ItemsCsvExporter",
    "ItemsJsonLinesExporter",
    "MergedItemsJsonLinesExporter",
    "PagesJsonLinesExporter",
    "RecordsJsonLinesExporter",
    "build_page_items",
    "csv_row",
    "item_csv_row",
    "page_typed_items",
]
