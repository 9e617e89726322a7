"""Bot challenges and consent walls, recognised in a response (pure: no Scrapy, no browser).

:func:`detect_challenge` says whether a response is a bot-protection interstitial (a
JavaScript or CAPTCHA challenge, a block page) rather than the page that was asked for:

* a vendor's challenge marker in a *blocking* response (status 403, 429 or 503, or
  Cloudflare's ``cf-mitigated: challenge`` header): Cloudflare (``/cdn-cgi/challenge-platform``,
  ``cf_chl_opt``, "Just a moment..."), Akamai (``errors.edgesuite.net`` "Reference #", the
  ``bm-verify`` interstitial), DataDome (``captcha-delivery.com``), PerimeterX/HUMAN
  (``_pxAppId``, ``px-captcha``), Imperva/Incapsula (``_Incapsula_Resource``), AWS WAF,
  hCaptcha, reCAPTCHA, Turnstile, or a generic "verify you are human" text;
* the same markers in a 2xx page that has *no content of its own* (little visible text, no
  structured data): Cloudflare, for one, injects its challenge-platform script into ordinary
  pages, so a marker alone never makes a normal page a challenge.

:func:`detect_consent` finds a consent-management dialog (OneTrust, Cookiebot, Didomi,
Quantcast, TrustArc, Usercentrics, Sourcepoint, Google's consent interstitials, generic
cookie banners), and says whether it is a *wall* (the page has no content besides it).

Both read at most the first :data:`SCAN_BYTES` of the body, with plain substring and regex
tests: nothing is parsed, nothing executed. Every response is read, so the common case is made
cheap: a 2xx page that carries structured data (JSON-LD, Microdata, RDFa, Open Graph, found by
a few substring tests that hit in the ``<head>`` of most pages) has content of its own and is
let through before the vendor markers are looked for, as is one whose bytes surely show a
reader enough text (a lower bound of its visible text, read only as far as needed); the
markers are looked for in its bytes (ASCII letters lowercased), its text decoded only where
one is found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import unescape
from typing import AnyStr

from structcrawl.core.textbound import BLOCK_NAMES, shows_text

__all__ = [
    "BLOCKING_STATUSES",
    "CHALLENGE_CHECKED_META",
    "CHALLENGE_META",
    "SCAN_BYTES",
    "Challenge",
    "Consent",
    "challenge_message",
    "detect_challenge",
    "detect_consent",
    "visible_text_length",
]

#: Request meta key: the challenge a response was recognised as (``Challenge.to_dict()``).
CHALLENGE_META = "structcrawl_challenge"
#: Request meta key: ``(status, body length)`` of a response already found not to be a
#: challenge (by the download handler), so the challenge middleware does not read it again.
CHALLENGE_CHECKED_META = "structcrawl_challenge_checked"
#: Statuses bot protections answer a challenged request with.
BLOCKING_STATUSES = frozenset({403, 429, 503})
#: How much of a body the detectors read.
SCAN_BYTES = 256 * 1024
#: Below this many characters of visible text (and without structured data) a page has no
#: content of its own.
_THIN_TEXT = 600

# (vendor, lowercase substrings): markers of a challenge or block page. Plain substring tests
# (a few microseconds over the scanned prefix), not regular expressions: every response is read.
_CHALLENGE_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("cloudflare", ("/cdn-cgi/challenge-platform/", "cf_chl_opt", "cf-browser-verification",
                    "<title>just a moment...</title>", "attention required! | cloudflare",
                    "cf-error-details")),
    ("akamai", ("errors.edgesuite.net", "bm-verify", "/_sec/cp_challenge/")),
    ("datadome", ("captcha-delivery.com", "datadome")),
    ("perimeterx", ("_pxappid", "px-captcha", "captcha.px-cdn.net", "perimeterx")),
    ("imperva", ("_incapsula_resource", "incapsula incident id")),
    ("aws-waf", ("awswaf.com", "aws-waf-token", "gokuprops")),
    ("turnstile", ("challenges.cloudflare.com/turnstile", "cf-turnstile")),
    ("hcaptcha", ("hcaptcha.com/1/api.js", 'class="h-captcha', "class='h-captcha")),
    ("recaptcha", ("google.com/recaptcha/", "recaptcha/api.js", 'class="g-recaptcha',
                   "class='g-recaptcha")),
    ("generic", ("verify you are human", "verify that you are human", "verify you are a human",
                 "are you a robot", "unusual traffic from your computer network",
                 "unusual traffic from your network", "checking if the site connection is secure",
                 "checking your browser before", "enable javascript and cookies to continue",
                 "please enable cookies to continue", "access to this page has been denied")),
)  # fmt: skip

# (vendor, lowercase substrings): consent-management dialogs.
_CONSENT_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("onetrust", ("onetrust-banner-sdk", "onetrust-consent-sdk", "cdn.cookielaw.org", "optanon")),
    ("cookiebot", ("cybotcookiebotdialog", "consent.cookiebot.com")),
    ("didomi", ("didomi-host", "didomi-notice", "sdk.privacy-center.org")),
    ("quantcast", ("qc-cmp2", "quantcast.mgr.consensu.org", "cmp.quantcast.com")),
    ("trustarc", ("truste-consent", "consent.trustarc.com", "truste_box_overlay")),
    ("usercentrics", ("usercentrics.eu", 'id="usercentrics-root"')),
    ("sourcepoint", ("sp_message_container", "sourcepoint.mgr.consensu.org")),
    ("google", ("fundingchoicesmessages.google.com", "fc-consent-root", "consent.google.com",
                "before you continue to google")),
)  # fmt: skip
_GENERIC_CONSENT = re.compile(
    r"""id=["'](?:cookie-?(?:consent|banner|notice)|gdpr-consent)["']"""
    r"""|class=["'][^"'>]*\bcookie-?(?:consent|banner)\b"""
)

_SCRIPT_STYLE = re.compile(rf"<({'|'.join(BLOCK_NAMES)})\b.*?</\1\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]*>", re.S)
_SPACE = re.compile(r"\s+")
_STRUCTURED = re.compile(r"application/ld\+json|\bitemscope\b|\btypeof=|property=[\"']og:", re.I)
_STRUCTURED_BYTES = re.compile(_STRUCTURED.pattern.encode(), re.I)
#: Literal parts of ``_STRUCTURED``: one of them starts every match.
_STRUCTURED_NEEDLES = (b"application/ld+json", b"property=\"og:", b"property='og:", b"typeof=",
                       b"itemscope")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Challenge:
    """A recognised bot challenge: the vendor, and the evidence (``status:403``,
    ``marker:datadome``, ``header:cf-mitigated``, ``thin-page``)."""

    vendor: str
    signals: tuple[str, ...]

    def message(self) -> str:
        return f"bot challenge ({self.vendor}): {', '.join(self.signals)}"

    def to_dict(self) -> dict[str, object]:
        return {"vendor": self.vendor, "signals": list(self.signals)}


def challenge_message(found: Mapping[str, object]) -> str:
    """The error message of a challenged page, from ``Challenge.to_dict()``.

    >>> challenge_message({"vendor": "datadome", "signals": ["status:403"]})
    'bot challenge (datadome): status:403'
    """
    signals = found.get("signals")
    listed = ", ".join(map(str, signals)) if isinstance(signals, list) else ""
    return f"bot challenge ({found.get('vendor')}): {listed}"


@dataclass(frozen=True, slots=True)
class Consent:
    """A consent-management dialog: its vendor, and whether it walls the page off."""

    vendor: str
    wall: bool

    def to_dict(self) -> dict[str, object]:
        return {"vendor": self.vendor, "wall": self.wall}


def _text(body: bytes | str, status: int | None = None) -> str:
    """The scanned prefix, lowercased; for a blocking status also with its character
    references decoded (block pages escape their text: ``errors&#46;edgesuite&#46;net``)."""
    text = body[:SCAN_BYTES].decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = text[:SCAN_BYTES].lower()
    if status in BLOCKING_STATUSES and "&#" in text:
        text = unescape(text)
    return text


def _found(text: str, markers: tuple[tuple[str, tuple[str, ...]], ...]) -> list[str]:
    return [vendor for vendor, needles in markers if any(n in text for n in needles)]


#: Substrings shared by several challenge markers: a page without one of them holds none of
#: the markers that contain it, so a scan for the anchor spares a scan for each of those.
_ANCHORS = ("captcha", "challenge", "verif", "cloudflare", "incapsula", "waf",
            "unusual traffic", "checking", "cookies to continue", "turnstile")  # fmt: skip


def _anchored(
    markers: tuple[tuple[str, tuple[str, ...]], ...],
) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """``(anchor, ((vendor, marker), ...))``: each marker under the first anchor it contains,
    else under itself."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for vendor, needles in markers:
        for needle in needles:
            anchor = next((a for a in _ANCHORS if a in needle), needle)
            groups.setdefault(anchor, []).append((vendor, needle))
    return tuple((anchor, tuple(pairs)) for anchor, pairs in groups.items())


_CHALLENGE_GROUPS = _anchored(_CHALLENGE_MARKERS)
#: the same as bytes (every marker is ASCII), to scan a body's bytes (:func:`_unstructured`)
_CHALLENGE_BYTES = tuple(
    (anchor.encode("ascii"), tuple((vendor, needle.encode("ascii")) for vendor, needle in pairs))
    for anchor, pairs in _CHALLENGE_GROUPS
)


def _found_challenges(text: str) -> list[str]:
    """:func:`_found` over the challenge markers (the same vendors, in the same order), with
    about half the scans of a page that holds none: one per anchor, not one per marker."""
    return _found_groups(text, _CHALLENGE_GROUPS)


def _found_groups(
    text: AnyStr, groups: tuple[tuple[AnyStr, tuple[tuple[str, AnyStr], ...]], ...]
) -> list[str]:
    hit: set[str] = set()
    for anchor, pairs in groups:
        if anchor in text:
            hit.update(vendor for vendor, needle in pairs if needle in text)
    return [vendor for vendor, _ in _CHALLENGE_MARKERS if vendor in hit]


def _header(headers: Mapping[str, Iterable[str] | str] | None, name: str) -> str:
    if not headers:
        return ""
    for key, values in headers.items():
        if str(key).lower() == name:
            return values if isinstance(values, str) else ", ".join(map(str, values))
    return ""


def visible_text_length(html: str) -> int:
    """Characters of text a reader would see (scripts, styles and tags left out).

    >>> visible_text_length("<p>Hello <b>world</b></p><script>var x = 1;</script>")
    11
    """
    text = _TAG.sub(" ", _SCRIPT_STYLE.sub(" ", html))
    return len(_SPACE.sub(" ", text).strip())


def _thin(html: str) -> bool:
    return visible_text_length(html) < _THIN_TEXT and not _STRUCTURED.search(html)


def _unstructured(prefix: bytes) -> bytes | None:
    """The scanned prefix lowercased (as bytes: ASCII letters), or None when it carries
    structured data (what ``_STRUCTURED`` matches): substring tests first (each stops at its
    first hit, usually in the ``<head>``), the regular expression only from where one hit."""
    lowered = prefix.lower()
    for needle in _STRUCTURED_NEEDLES:
        at = lowered.find(needle)
        if at >= 0 and _STRUCTURED_BYTES.search(lowered, at):
            return None
    return lowered


def _prefix(body: bytes | str) -> bytes:
    """The scanned prefix as bytes (text encoded as UTF-8): every marker is ASCII."""
    raw = body[:SCAN_BYTES]
    return raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")


def detect_challenge(
    status: int | None,
    headers: Mapping[str, Iterable[str] | str] | None,
    body: bytes | str,
) -> Challenge | None:
    """The challenge a response is, or None (see the module documentation).

    >>> page = ('<html><title>Just a moment...</title><script '
    ...         'src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script></html>')
    >>> detect_challenge(403, {"Server": "cloudflare"}, page).vendor
    'cloudflare'
    >>> detect_challenge(404, {}, "<h1>Not found</h1>") is None
    True
    """
    signals: list[str] = []
    mitigated = _header(headers, "cf-mitigated").lower()
    if "challenge" in mitigated:
        signals.append("header:cf-mitigated")
    if status not in BLOCKING_STATUSES and not signals:
        # a marker only counts in a 2xx page without content of its own (see below): a page
        # with structured data has content, whatever scripts it loads, as has one whose bytes
        # surely show enough text (the markers' scan is ~2 ms over a large page's prefix)
        if status is not None and not 200 <= status < 300:
            return None
        lowered = _unstructured(_prefix(body))
        # the markers looked for in the bytes, ASCII letters lowercased: the text is decoded
        # (and its characters, some two or four bytes wide, scanned) only where one is found.
        # The text's lowercase makes ASCII of only "İ" and the Kelvin sign: a marker spelt
        # with those is not a vendor's
        if (
            lowered is None
            or shows_text(lowered, _THIN_TEXT)
            or not _found_groups(lowered, _CHALLENGE_BYTES)
        ):
            return None
    html = _text(body, status)
    found = _found_challenges(html)
    if _header(headers, "x-datadome") and status in BLOCKING_STATUSES and "datadome" not in found:
        found.append("datadome")
    if not found and not signals:
        return None
    blocking = status in BLOCKING_STATUSES or bool(signals)
    if not blocking:
        if status is not None and not 200 <= status < 300:
            return None
        if not _thin(html):
            return None  # a marker in a page with content of its own: not a challenge
        signals.append("thin-page")
    if status is not None:
        signals.insert(0, f"status:{status}")
    signals.extend(f"marker:{vendor}" for vendor in found)
    vendor = next((v for v in found if v != "generic"), found[0] if found else "cloudflare")
    return Challenge(vendor=vendor, signals=tuple(signals))


def detect_consent(body: bytes | str) -> Consent | None:
    """The consent dialog a page carries, or None; ``wall`` when it has no content besides.

    >>> detect_consent('<div id="onetrust-banner-sdk">We use cookies</div>')
    Consent(vendor='onetrust', wall=True)
    >>> detect_consent("<p>No banner here</p>") is None
    True
    """
    html = _text(body)
    found = _found(html, _CONSENT_MARKERS)
    if not found and _GENERIC_CONSENT.search(html):
        found = ["generic"]
    return Consent(vendor=found[0], wall=_thin(html)) if found else None
