"""The value every normalizer returns: the normalized value plus what was wrong with it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Flag", "Normalized"]


@dataclass(frozen=True, slots=True)
class Flag:
    """Something ambiguous or invalid about one value (``code`` is stable, ``message`` is prose)."""

    code: str
    message: str
    #: a note says how a value was read (``currency-from-page``), not that it failed
    note: bool = False


@dataclass(frozen=True, slots=True)
class Normalized:
    """A normalizer's answer: ``value`` is the normalized value, or the original value unchanged
    when it could not be normalized (then ``flags`` says why)."""

    value: Any
    flags: tuple[Flag, ...] = ()

    @property
    def ok(self) -> bool:
        """Normalized: no flag but notes."""
        return all(f.note for f in self.flags)


def flagged(value: Any, code: str, message: str) -> Normalized:
    """The original ``value``, unchanged, with one flag."""
    return Normalized(value, (Flag(code, message),))
