"""What a rendered page keeps as evidence, besides its rendered DOM (pure: no Scrapy).

* The server's own HTML (``request.meta[SERVER_BODY_META]``, then the page item's transient
  ``server_body``): the response judged before the escalation, or the browser's navigation
  response. The body store keeps it beside the rendered DOM (``server_body_ref`` and
  ``body_ref`` on the page record), so "did rendering add anything?" can be answered later.
* The bodies of captured JSON responses: kept in the body store too, referenced from the
  render context (``render.network_bodies``), under the capture's size cap
  (``STRUCTCRAWL_RENDER_CAPTURE_MAX_BYTES``).
* The browser context's cookies (:func:`cookie_facts`): names, domains and flags, values
  redacted, as for every stored header.
* The consent dialog (:func:`consent_facts`): the one seen in the rendered page, and whether
  a site rule's ``consent`` selector dismissed it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from structcrawl.core.challenge import detect_consent
from structcrawl.core.redact import REDACTED
from structcrawl.extract import extract_payload
from structcrawl.render._body import decoded_body

__all__ = [
    "MAX_COOKIES",
    "SERVER_BODY_META",
    "consent_facts",
    "cookie_facts",
    "entity_count",
    "server_html",
]

#: Request meta key: the server's HTML of a rendered page (bytes).
SERVER_BODY_META = "structcrawl_render_server_body"
#: Cookies listed in a render context at most.
MAX_COOKIES = 100

_FLAGS = ("path", "secure", "httpOnly", "sameSite")


def cookie_facts(cookies: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The cookies of a browser context as recorded: never a value.

    >>> (fact,) = cookie_facts([{"name": "sid", "value": "s3cr3t", "domain": ".shop.example",
    ...                          "path": "/", "secure": True, "httpOnly": True}])
    >>> fact["name"], fact["domain"], fact["value"], fact["httpOnly"]
    ('sid', '.shop.example', '[REDACTED]', True)
    """
    out: list[dict[str, Any]] = []
    for cookie in cookies:
        fact: dict[str, Any] = {
            "name": str(cookie.get("name", "")),
            "domain": str(cookie.get("domain", "")),
            "value": REDACTED,
        }
        fact.update({k: cookie[k] for k in _FLAGS if k in cookie})
        out.append(fact)
        if len(out) >= MAX_COOKIES:
            break
    return sorted(out, key=lambda c: (c["domain"], c["name"]))


def consent_facts(rendered: bytes | str, dismissal: Mapping[str, Any] | None) -> dict[str, Any]:
    """The consent part of a render context: the dialog found in the rendered page (vendor,
    whether it walls the page off; None when none is left) and the rule's dismissal.

    >>> consent_facts(b"<p>ok</p>", {"selector": "#accept", "dismissed": True})
    {'seen': None, 'rule': {'selector': '#accept', 'dismissed': True}}
    """
    found = detect_consent(rendered)
    return {
        "seen": found.to_dict() if found else None,
        "rule": dict(dismissal) if dismissal else None,
    }


def server_html(http_response: Any) -> tuple[bytes | None, str | None]:
    """The page as the server sent it (the HTTP response judged before the escalation):
    its decoded body and Content-Type."""
    body = decoded_body(http_response.body, http_response.headers.getlist(b"Content-Encoding"))
    raw = http_response.headers.get(b"Content-Type")
    return body, raw.decode("latin-1") if raw else None


def entity_count(
    body: bytes | None, content_type: str | None, url: str, syntaxes: tuple[str, ...]
) -> int | None:
    """Entity records in the page as HTTP serves it (None when unknown)."""
    if body is None:
        return None
    try:
        found = extract_payload(body, url, content_type, syntaxes=syntaxes)
    except Exception:  # the comparison is a statistic: never fail the page for it
        return None
    return sum(1 for r in found.records if r.kind == "entity")
