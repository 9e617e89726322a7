"""The fixture corpus: ``fixtures/<source>/<case>/`` with ``page.*``, ``meta.json`` and
``expected.json``. Shared by the parametrized test and the regeneration command."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from structcrawl.extract import extract_payload

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
        meta = self.meta
        result = extract_payload(
            self.page.read_bytes(),
            meta["url"],
            meta.get("content_type"),
            syntaxes=meta.get("syntaxes"),
        )
        return [r.to_dict() for r in result.records]


def cases(root: Path = ROOT) -> list[Case]:
    """Every folder under fixtures/ that holds a meta.json (the demo site has none)."""
    return [Case(p.parent) for p in sorted(root.glob("*/*/meta.json"))]


def dump(records: list[dict[str, Any]]) -> str:
    return json.dumps(records, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
