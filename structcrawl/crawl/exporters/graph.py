"""The ``graph`` feed: each page's RDF dataset as N-Quads."""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter
from scrapy.exporters import BaseItemExporter

from structcrawl.core.document import Document
from structcrawl.crawl.exporters._base import (
    _is_page,
)
from structcrawl.extract.graph import page_graph, payload_graph, to_nquads
from structcrawl.extract.options import ExtractOptions


class GraphNQuadsExporter(BaseItemExporter):
    """The RDF dataset of each page item as N-Quads (read from the page's parsed tree, or its
    body when the tree is gone); other items are skipped. Blank nodes are ``_:p<n>b<k>``:
    unique in the file, stable within a page. Feed options ``microdata_mode`` and
    ``jsonld_repairs`` choose how the layers are read (default: the product defaults)."""

    def __init__(self, file: Any, **kwargs: Any):
        modes = {k: kwargs.pop(k) for k in ("microdata_mode", "jsonld_repairs") if k in kwargs}
        super().__init__(dont_fail=True, **kwargs)
        self.file = file
        self.options = ExtractOptions(**modes)
        self.pages = 0
        self.lines = 0

    def export_item(self, item: Any) -> None:
        if not _is_page(item):
            return
        adapter = ItemAdapter(item)
        document = adapter.get("document")
        if isinstance(document, Document):
            graph = page_graph(document, options=self.options)
        else:
            url = adapter.get("final_url") or adapter.get("url") or ""
            body = adapter.get("body") or b""
            graph = payload_graph(body, url, adapter.get("content_type"), options=self.options)
        text = to_nquads(graph.quads, prefix=f"p{self.pages}b")
        self.pages += 1
        self.file.write(text.encode("utf-8"))
        self.lines += text.count("\n")
