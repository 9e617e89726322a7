"""A page with its structured markup set aside, through the command people run: what the
visible-page reading alone makes of a real shop page (``bench_products --markup-aside``).

    python -m bench.markup_aside FILE --base-url URL

Removes the JSON-LD and other JSON script blocks, the Open Graph / product meta tags and the
Microdata and RDFa attributes (``itemprop``, ``itemscope``, ``itemtype``, ``property``,
``typeof``, ``vocab``, ``about``, ``resource``; ``content`` outside ``<meta>``), writes the
page as UTF-8 beside a temporary copy and prints what ``structcrawl extract TMP --base-url
URL --view items --format json`` prints. The product pages' markup usually gives price, SKU
and availability, so the scorer rarely sees the fallbacks; with it set aside, every value
comes from the page as a reader sees it, the case of the shops that write no markup.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from lxml import etree

from structcrawl.core.document import parse_html

_BLOCKS = etree.XPath(
    "//script[contains(@type, 'json')]"
    "|//meta[starts-with(@property, 'og:') or starts-with(@property, 'product:')]"
)
_ATTRIBUTES = ("itemprop", "itemscope", "itemtype", "property", "typeof", "vocab", "about")
_ATTRIBUTES += ("resource", "itemid", "itemref")


def markup_aside(body: bytes, url: str) -> bytes:
    """The page without its structured markup (see the module doc), as UTF-8 HTML."""
    root = parse_html(body, url, content_type="text/html").root
    for block in _BLOCKS(root):
        parent = block.getparent()
        if parent is not None:
            parent.remove(block)  # its tail went with it: script/meta tails are whitespace
    for el in root.iter(etree.Element):
        for name in _ATTRIBUTES:
            el.attrib.pop(name, None)
        if el.tag != "meta":
            el.attrib.pop("content", None)
    head = root.find("head")
    if head is not None:  # say the encoding the bytes are written in
        head.insert(0, etree.Element("meta", charset="utf-8"))
    return etree.tostring(root, encoding="utf-8", method="html", doctype="<!DOCTYPE html>")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--base-url", required=True)
    args = parser.parse_args(argv)
    stripped = markup_aside(Path(args.file).read_bytes(), args.base_url)
    exe = Path(sys.executable).with_name("structcrawl")
    with tempfile.NamedTemporaryFile(suffix=".html") as tmp:
        tmp.write(stripped)
        tmp.flush()
        cmd = [str(exe), "extract", tmp.name, "--base-url", args.base_url]
        run = subprocess.run(
            [*cmd, "--view", "items", "--format", "json"], capture_output=True, timeout=120
        )
    sys.stdout.buffer.write(run.stdout)
    sys.stderr.buffer.write(run.stderr)
    return run.returncode


if __name__ == "__main__":
    raise SystemExit(main())
