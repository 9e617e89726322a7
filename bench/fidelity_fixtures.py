"""The hand-written schema.org-style fidelity cases of ``fixtures/fidelity/`` and their facts.

Each case is a folder ``<syntax>-<name>/`` (``microdata-...`` or ``rdfa-...``) holding
``page.html`` and ``facts.txt``: the facts the WHATWG Microdata algorithm, or RDFa 1.1 with
HTML+RDFa, says the page states, written by hand from those rules (fixtures/fidelity/README.md).
``facts.txt`` reads::

    # url: https://shop.example/p/anvil      (the page's URL: relative URLs resolve against it)
    # any other comment line
    /{schema:Product}                        (a subject: an IRI, or a blank node's path key)
      rdf:type schema:Product                (indented: a property and its object)
      schema:offers /{schema:Product}/offers{schema:Offer}

Subjects and objects are compared as :mod:`bench.bench_fidelity` compares every fact: a blank
node by the path from its top-level subject (``<parent>/<local name>{<types>}``), a literal
with its whitespace removed, a single token resolved against the page's URL.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FIXTURES", "FidelityCase", "compared", "fidelity_cases", "read_facts"]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fidelity"
_URL = re.compile(r"^#\s*url:\s*(\S+)\s*$")
#: A blank node's key: a path from its top-level subject, ``/{...}`` or ``<iri>/<prop>{...}``.
_TYPE = r"[^{},\s]*:[^{},\s]*"
_KEY = re.compile(rf"^\S*/[^/{{}}\s]*\{{(?:{_TYPE}(?:,{_TYPE})*)?\}}$")
Fact = tuple[str, str, str]


@dataclass(frozen=True)
class FidelityCase:
    name: str
    syntax: str
    page: Path
    facts_file: Path


def fidelity_cases(root: Path = FIXTURES) -> Iterator[FidelityCase]:
    """Every case folder under ``root``, in name order."""
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        syntax = folder.name.partition("-")[0]
        if syntax not in ("microdata", "rdfa"):
            raise ValueError(f"{folder}: a case's name starts with microdata- or rdfa-")
        yield FidelityCase(folder.name, syntax, folder / "page.html", folder / "facts.txt")


def read_facts(path: Path) -> tuple[str, list[Fact]]:
    """``(page URL, facts as written)`` of a ``facts.txt``."""
    url = ""
    rows: list[Fact] = []
    subject = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            match = _URL.match(line)
            url = match.group(1) if match else url
            continue
        if not line[0].isspace():
            subject = line.strip()
            continue
        prop, _, obj = line.strip().partition(" ")
        if not subject or not obj.strip():
            raise ValueError(f"{path}:{number}: a fact needs a subject line above it and a value")
        rows.append((subject, prop, obj.strip()))
    if not url:
        raise ValueError(f"{path}: no '# url: ...' line")
    return url, rows


def compared(rows: list[Fact], literal: Callable[[str], str]) -> set[Fact]:
    """The facts as the bench compares them (``literal``: its reading of a value, with the
    page's URL as the base)."""
    return {(_node(s, literal), p, _node(o, literal)) for s, p, o in rows}


def _node(value: str, literal: Callable[[str], str]) -> str:
    return value if _KEY.match(value) else literal(value)
