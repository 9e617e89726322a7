"""``network-json`` records from the JSON responses a rendered page fetched (captured by
:class:`~structcrawl.render.capture.RenderSession`). Pure: no Scrapy, no browser."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from structcrawl.core.records import Provenance, Record, error_record
from structcrawl.extract.jsondata import extract_json_text

__all__ = ["NetworkProvenance", "app_state", "network_records"]

_PARSER = "structcrawl.render.capture"


def _relabel(record: Record) -> None:
    """A JSON-LD document fetched by the page is still a network record: the layer is where
    the data was found (its ``@context`` stays in ``context``)."""
    record.format = "network-json"
    for value in record.properties.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Record):
                _relabel(item)


@dataclass(slots=True)
class NetworkProvenance(Provenance):
    """Provenance of a ``network-json`` record: also the response it came from."""

    network: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = Provenance.to_dict(self)
        out["network"] = dict(self.network)
        return out


def network_records(captured: Sequence[Mapping[str, Any]], *, page_url: str) -> list[Record]:
    """``network-json`` records for the JSON responses captured on one page.

    Each record's ``source_url`` is the page, its JSON paths are in ``source_element`` and
    ``provenance.fields``, and ``provenance.network`` names the endpoint, method, status and
    content type. URL values in the JSON resolve against the endpoint. A JSON-LD response
    (``@context``) is read as JSON-LD, and its records are labelled ``network-json`` too.

    >>> recs = network_records([{"url": "http://a.example/api/x.json", "status": 200,
    ...     "method": "GET", "content_type": "application/json",
    ...     "text": '{"items": [{"@type": "Offer", "price": "9.00"}]}'}],
    ...     page_url="http://a.example/deals.html")
    >>> [(r.format, r.type, r.source_element) for r in recs]
    [('network-json', [], '$'), ('network-json', ['Offer'], '$.items[0]')]
    >>> recs[1].to_dict()["provenance"]["network"]["url"]
    'http://a.example/api/x.json'
    """
    out: list[Record] = []
    for entry in captured:
        if entry.get("window"):
            out.extend(_state_records(entry, page_url))
            continue
        endpoint = str(entry.get("url") or "")
        network = {
            "url": endpoint,
            "method": entry.get("method"),
            "status": entry.get("status"),
            "content_type": entry.get("content_type"),
        }
        text = entry.get("text")
        if entry.get("refused"):  # a request of the page the address policy refused
            records = [
                error_record(
                    source_url=page_url,
                    format="network-json",
                    code="address-refused",
                    message=f"{endpoint}: {entry.get('note') or 'refused'}",
                    source_element="$",
                    parser=_PARSER,
                )
            ]
        elif text is None:
            records = [
                error_record(
                    source_url=page_url,
                    format="network-json",
                    kind="skip",
                    code="network-json-not-read",
                    message=f"{endpoint}: {entry.get('note') or 'body not captured'}",
                    source_element="$",
                    parser=_PARSER,
                )
            ]
        else:
            records = extract_json_text(
                str(text), source_url=page_url, base_url=endpoint or page_url, fmt="network-json"
            )
        for record in records:
            _relabel(record)
            old = record.provenance
            record.provenance = NetworkProvenance(
                parser=old.parser,
                parser_version=old.parser_version,
                fields=old.fields,
                network=dict(network),
            )
            out.append(record)
    return out


def app_state(state: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The captured entries of the application state read in the browser (``window``
    globals, :class:`~structcrawl.render.capture.RenderSession`), beside its JSON responses.

    >>> app_state([{"global": "__INITIAL_STATE__", "text": "{}"}])[0]["window"]
    '__INITIAL_STATE__'
    """
    return [
        {
            "window": str(s.get("global")),
            "url": None,
            "status": None,
            "text": s.get("text"),
            "note": s.get("note"),
        }
        for s in state
        if s.get("global")
    ]


def _state_records(entry: Mapping[str, Any], page_url: str) -> list[Record]:
    """``data-block`` records of one ``window`` global: application state, like a JSON data
    block, read in the browser; ``source_element`` is ``window.<name>``.

    >>> recs = _state_records({"window": "__INITIAL_STATE__", "text":
    ...     '{"product": {"@type": "Product", "name": "Tent"}}'}, "http://a.example/p")
    >>> [(r.format, r.type, r.source_element) for r in recs]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('data-block', ['__INITIAL_STATE__'], 'window.__INITIAL_STATE__'),
     ('data-block', ['Product'], 'window.__INITIAL_STATE__#$.product')]
    """
    name = str(entry["window"])
    element = f"window.{name}"
    text = entry.get("text")
    if text is None:
        return [
            error_record(
                source_url=page_url,
                format="data-block",
                kind="skip",
                code="app-state-not-read",
                message=f"{element}: {entry.get('note') or 'not read'}",
                source_element=element,
                parser=_PARSER,
            )
        ]
    return extract_json_text(
        str(text),
        source_url=page_url,
        base_url=page_url,
        fmt="data-block",
        element=element,
        type_=[name],
    )
