"""The one currency policy for signs that several currencies use (pure).

``$``, ``kr`` and ``¥`` name no currency by themselves. Everywhere structcrawl reads one (a
record's ``priceCurrency``, a price the page shows), :func:`sign_currency` decides the same
way from what the page says about itself: ``kr`` by its language, ``$`` by its region
(``<html lang="en-CA">``) or its host's country domain (an English page on a generic domain
reads it as US dollars), ``¥`` by its language, ``元`` by region (Taiwan, Hong Kong, Macau;
else yuan); otherwise it stays unknown and is flagged.

>>> sign_currency("$", "en", "ca", "shop.example"), sign_currency("$", "en", None, "x.com.au")
('CAD', 'AUD')
>>> sign_currency("kr", "sv", None, "x.se"), sign_currency("$", "es", None, "x.com")
('SEK', None)
>>> sign_currency("kr", "sv-SE", None, "butik.example")
'SEK'
>>> sign_currency("元", "zh", "tw", "x.example"), sign_currency("元", "zh", None, "x.cn")
('TWD', 'CNY')
>>> page_language("en-CA"), page_language("pt_BR"), page_language(None)
(('en', 'ca'), ('pt', 'br'), (None, None))
"""

from __future__ import annotations

__all__ = [
    "DOLLAR_BY_REGION", "SIGN_BY_LANGUAGE", "YEN_BY_LANGUAGE", "YUAN_BY_REGION", "page_language",
    "sign_currency", "sign_fits",
]  # fmt: skip

#: An ambiguous currency sign read in a page's language: (sign, language) -> ISO 4217.
SIGN_BY_LANGUAGE = {
    ("kr", "sv"): "SEK", ("kr", "nb"): "NOK", ("kr", "nn"): "NOK", ("kr", "no"): "NOK",
    ("kr", "da"): "DKK", ("kr", "is"): "ISK", ("kr.", "da"): "DKK", ("kr.", "is"): "ISK",
}  # fmt: skip
#: "$" by the page's region (``<html lang="en-CA">``) or, without one, its host's country domain.
DOLLAR_BY_REGION = {
    "us": "USD", "ca": "CAD", "au": "AUD", "nz": "NZD", "sg": "SGD", "hk": "HKD", "mx": "MXN",
    "ar": "ARS", "cl": "CLP", "co": "COP", "tw": "TWD", "br": "BRL",
}  # fmt: skip
YEN_BY_LANGUAGE = {"ja": "JPY", "zh": "CNY"}
#: "元" by the page's region or country domain; elsewhere the Chinese yuan.
YUAN_BY_REGION = {"tw": "TWD", "hk": "HKD", "mo": "MOP"}


def page_language(tag: str | None) -> tuple[str | None, str | None]:
    """``(language, region)`` of a BCP 47 tag, lower case (``en-CA`` -> ``("en", "ca")``)."""
    parts = (tag or "").strip().replace("_", "-").casefold().split("-")
    if not parts[0]:
        return None, None
    region = parts[1] if len(parts) > 1 and len(parts[1]) == 2 else None
    return parts[0], region


def sign_currency(sign: str, language: str | None, region: str | None, host: str) -> str | None:
    """The currency an ambiguous sign stands for on this page, or ``None`` when the page does
    not say (see the module doc)."""
    key = sign.strip().casefold()
    lang = page_language(language)[0] or ""  # a whole tag ("sv-SE") reads as its language
    if key in ("kr", "kr."):
        return SIGN_BY_LANGUAGE.get((key, lang))
    if key == "$":
        tld = host.rsplit(".", 1)[-1].casefold() if "." in host else ""
        place = (region or "").casefold() or (tld if tld in DOLLAR_BY_REGION else "")
        if place:
            return DOLLAR_BY_REGION.get(place)
        return "USD" if lang == "en" else None
    if key in ("¥", "￥"):
        return YEN_BY_LANGUAGE.get(lang)
    if key == "元":  # yuan in China, the New Taiwan and Hong Kong dollars where they are used
        tld = host.rsplit(".", 1)[-1].casefold() if "." in host else ""
        return YUAN_BY_REGION.get((region or "").casefold() or tld, "CNY")
    return None


#: The currencies each ambiguous sign may stand for.
_SIGN_CURRENCIES = {
    "$": frozenset(DOLLAR_BY_REGION.values()),
    "kr": frozenset(SIGN_BY_LANGUAGE.values()),
    "kr.": frozenset(SIGN_BY_LANGUAGE.values()),
    "¥": frozenset(YEN_BY_LANGUAGE.values()),
    "￥": frozenset(YEN_BY_LANGUAGE.values()),
    "元": frozenset({*YUAN_BY_REGION.values(), "CNY"}),
}


def sign_fits(sign: str, code: str) -> bool:
    """Whether ``code`` is one of the currencies the ambiguous ``sign`` may stand for (a page
    that declares its currency elsewhere, a checkout form's ``currency_code``, says which).

    >>> sign_fits("$", "USD"), sign_fits("$", "EUR"), sign_fits("kr", "DKK")
    (True, False, True)
    """
    return code.upper() in _SIGN_CURRENCIES.get(sign.strip().casefold(), frozenset())
