"""The fixture corpus: ``fixtures/<source>/<case>/`` with ``page.*``, ``meta.json`` and
``expected.json``. Shared by the parametrized test and the regeneration command."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from structcrawl.core.document import parse_html
from structcrawl.core.payload import classify
from structcrawl.extract import extract_payload
from structcrawl.extract.options import ExtractOptions
from structcrawl.validate.page import check_page
from structcrawl.validate.problems import annotate, page_problems
from structcrawl.visible.facts import visible_facts

ROOT = Path(__file__).resolve().parents[1] / "fixtures"


@dataclass(frozen=True)
class Case:
    folder: Path

    @property
    def name(self) -> str:
        return f"{self.folder.parent.name}/{self.folder.name}"

    @property
    def meta(self) -> dict[str, Any]:
        return json.loads((self.folder / "meta.json").read_text(encoding="utf-8"))

    @property
    def page(self) -> Path:
        pages = sorted(self.folder.glob("page.*"))
        if len(pages) != 1:
            raise AssertionError(f"{self.name}: expected exactly one page.* file, found {pages}")
        return pages[0]

    @property
    def expected_path(self) -> Path:
        return self.folder / "expected.json"

    def extract(self) -> list[dict[str, Any]]:
        """The case's records; with ``"check"`` in meta.json (``{"retrieved_at": ISO time}``,
        optional) also checked as ``structcrawl check`` checks a page: validation, conflicts
        with the visible page and between syntaxes, rich-result eligibility."""
        meta = self.meta
        body = self.page.read_bytes()
        check = meta.get("check")
        doc = None
        kind = classify(meta.get("content_type"), body)
        if check is not None and kind in ("html", "xhtml"):
            doc = parse_html(body, meta["url"], content_type=meta.get("content_type"))
        result = extract_payload(
            body,
            meta["url"],
            meta.get("content_type"),
            syntaxes=meta.get("syntaxes"),
            document=doc,
            options=ExtractOptions(**meta.get("options", {})),
        )
        records = [r.to_dict() for r in result.records]
        if check is not None:
            facts = visible_facts(doc) if doc is not None else None
            check_page(records, facts=facts, document=doc, retrieved_at=check.get("retrieved_at"))
            annotate({"records": records})
        return records

    def problems(self) -> list[dict[str, Any]]:
        """The problems ``structcrawl check`` names on the case's page (code, severity, path,
        element, fix), as :func:`structcrawl.validate.problems.page_problems` lists them."""
        return page_problems(self.extract())


def cases(root: Path = ROOT) -> list[Case]:
    """Every folder under fixtures/ that holds a meta.json (the demo site has none)."""
    return [Case(p.parent) for p in sorted(root.glob("*/*/meta.json"))]


def dump(records: list[dict[str, Any]]) -> str:
    return json.dumps(records, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
