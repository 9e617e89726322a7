"""The pages and records feeds hand each line to the operating system as it is written (issue
15): a worker killed mid-crawl keeps its finished pages in its local feed files."""

from __future__ import annotations

import json

from structcrawl.crawl.exporters import PagesJsonLinesExporter, RecordsJsonLinesExporter
from structcrawl.crawl.items import PageItem


def test_each_line_is_on_disk_before_the_feed_closes(tmp_path):
    page = PageItem(
        url="http://a/p", final_url="http://a/p",
        records=[{"kind": "entity", "format": "json-ld", "type": ["Thing"]}],
    )  # fmt: skip
    for exporter_class, name in (
        (PagesJsonLinesExporter, "pages"),
        (RecordsJsonLinesExporter, "r"),
    ):
        path = tmp_path / f"{name}.jsonl"
        with path.open("wb") as stream:  # buffered, as Scrapy's local feed storage opens it
            exporter = exporter_class(stream)
            exporter.start_exporting()
            exporter.export_item(page)
            on_disk = path.read_bytes()  # another reader, the file still open
            assert on_disk.endswith(b"\n") and json.loads(on_disk)  # the whole line, already
