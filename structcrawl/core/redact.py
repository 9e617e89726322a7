"""Redaction of secrets in headers before anything is stored or logged.

>>> redact_headers({"Set-Cookie": ["a=1"], "Content-Type": ["text/html"]})
{'Set-Cookie': ['[REDACTED]'], 'Content-Type': ['text/html']}
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["REDACTED", "SENSITIVE_HEADERS", "is_sensitive", "redact_headers"]

REDACTED = "[REDACTED]"
SENSITIVE_HEADERS = frozenset(
    {
        "cookie",
        "set-cookie",
        "set-cookie2",
        "authorization",
        "proxy-authorization",
        "proxy-authenticate",
        "x-api-key",
        "x-auth-token",
        "x-csrf-token",
        "x-xsrf-token",
        "x-amz-security-token",
    }
)
_SENSITIVE_PATTERN = re.compile(r"(auth|token|secret|passw|api[-_]?key|session|cookie)", re.I)


def is_sensitive(name: str) -> bool:
    lowered = name.strip().lower()
    return lowered in SENSITIVE_HEADERS or bool(_SENSITIVE_PATTERN.search(lowered))


def _text(value: bytes | str) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value


def redact_headers(
    headers: Mapping[bytes | str, Iterable[bytes | str] | bytes | str],
) -> dict[str, list[str]]:
    """A plain ``{name: [values]}`` copy with sensitive values replaced by ``[REDACTED]``."""
    out: dict[str, list[str]] = {}
    for raw_name, raw_values in headers.items():
        name = _text(raw_name)
        values = [raw_values] if isinstance(raw_values, (bytes, str)) else list(raw_values)
        out[name] = [REDACTED if is_sensitive(name) else _text(v) for v in values]
    return out
