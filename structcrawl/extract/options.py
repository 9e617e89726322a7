"""How extraction reads what publishers wrote: the choices a crawl can make per layer.

``microdata_mode``: ``practical`` (the default) reads Microdata as publishers, Google's parser
and the Schema.org validator do: a ``content`` attribute on any element carrying ``itemprop``
gives the value, and an element with ``itemscope`` and ``itemprop`` inside no item is still an
item (labelled ``microdata-orphan-itemprop``). ``strict`` follows the WHATWG text to the letter.

``jsonld_repairs``: ``safe`` (the default) repairs only what cannot change meaning (trailing
commas, control characters in strings, a byte order mark, comments and wrappers around the
JSON); ``all`` also splits concatenated values and unescapes HTML entities; ``none`` repairs
nothing (an invalid block is an error record).

Settings: ``STRUCTCRAWL_MICRODATA_MODE`` and ``STRUCTCRAWL_JSONLD_REPAIRS``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_OPTIONS", "JSONLD_REPAIRS", "MICRODATA_MODES", "ExtractOptions"]

MICRODATA_MODES = ("practical", "strict")
JSONLD_REPAIRS = ("none", "safe", "all")


@dataclass(frozen=True, slots=True)
class ExtractOptions:
    microdata_mode: str = "practical"
    jsonld_repairs: str = "safe"

    def __post_init__(self) -> None:
        if self.microdata_mode not in MICRODATA_MODES:
            raise ValueError(
                f"microdata mode {self.microdata_mode!r}; known: {', '.join(MICRODATA_MODES)}"
            )
        if self.jsonld_repairs not in JSONLD_REPAIRS:
            raise ValueError(
                f"JSON-LD repairs {self.jsonld_repairs!r}; known: {', '.join(JSONLD_REPAIRS)}"
            )


DEFAULT_OPTIONS = ExtractOptions()
