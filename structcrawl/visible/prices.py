"""One reader of prices as a page shows them, and one currency policy (pure).

* :func:`find_prices`: every amount written with a currency in a text (``$129.99``,
  ``1.299,00 €``, ``129.99 USD``, ``4,980円``, ``1 290 Kč``), conservatively: a bare number is
  no price;
* :func:`price_texts`: the same, and the local-currency amounts the general finder leaves out
  (``499,00 kr``, ``kr 1.299``, ``129,99 zł``);
* :func:`amount`: the decimal amount of a record value or a visible price text, for comparing
  the two (``"1.299,00 €"`` -> ``Decimal("1299.00")``);
* :func:`declared_currency`: the one currency the page's form fields declare (a checkout
  form's ``currency_code``), which says what an ambiguous sign stands for;
* :func:`sign_currency`: the currency an ambiguous sign (``$``, ``kr``, ``¥``) stands for on a
  page: the one currency policy, :mod:`structcrawl.core.currency`, which normalization uses
  for records too.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from price_parser import Price

from structcrawl.core.currency import sign_currency
from structcrawl.core.document import Document
from structcrawl.visible.tree import rendered
from structcrawl.visible.words import KRONA_PRICE

__all__ = [
    "TEXT_PRICES_MEMO",
    "amount",
    "declared_currency",
    "find_prices",
    "price_texts",
    "sign_currency",
    "text_prices",
]

#: where a document keeps the prices of its body's visible text (:func:`text_prices`)
TEXT_PRICES_MEMO = "text-prices"
_MAX_TEXT_PRICES = 50

# a code may touch its amount ("EUR219.99", "219.99EUR") but not another word
_CODE = (
    r"(?<![A-Za-z])(?:USD|EUR|GBP|CHF|JPY|CNY|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|HUF|RON|BGN|TRY|ILS|INR|BRL"
    r"|MXN|ZAR|KRW|SGD|HKD|TWD|THB|MYR|IDR|PHP|AED|SAR|UAH|ARS|CLP|COP|PEN)(?![A-Za-z])"
)
# symbols, and currency words written beside amounts (zł, Kč, kr, Ft, lei, 円, 元, 원, Rs, RM, Rp)
_SYMBOL = (
    r"(?:\b[A-Z]{1,2})?\$|€|£|¥|₹|₩|₽|₺|₪|₫|₱|฿|₴|円|元|원"
    r"|\bzł|\bKč|\bkr\b\.?|\bFt\b|\blei\b|\bRs\b\.?|\bFr\b\.|\bRM\b|\bRp\b\.?"
)
# "20,-" / "20.–": whole units, no cents
_CENTS = r"(?:[.,]\d{1,2}(?!\d)|[.,][–-](?![\d–-]))?"
# the Indian grouping first (lakh and crore: "1,29,999", "12,34,567.00"), then groups of three
_AMOUNT = (
    rf"\d{{1,2}}(?:,\d{{2}})+,\d{{3}}(?!\d){_CENTS}"
    rf"|\d{{1,3}}(?:[.,'’ ]\d{{3}})+(?!\d){_CENTS}|\d+(?!\d){_CENTS}"
)
_PRICE = re.compile(
    rf"(?:{_SYMBOL}|{_CODE})\s?(?:{_AMOUNT})|(?<![\w.,])(?:{_AMOUNT})\s?(?:{_SYMBOL}|{_CODE})"
)


#: a digit: every amount has one (a text without any is no price, and is not searched)
_DIGIT = re.compile(r"\d")
#: what every price of :data:`_PRICE` holds: one of the signs or currency words of
#: :data:`_SYMBOL`, or three capitals (a code of :data:`_CODE`); a text with a digit but none
#: of these (a rating, a size, a date: three in four such texts of a product page) is not
#: searched with the price pattern
_SIGN = re.compile(r"[$€£¥₹₩₽₺₪₫₱฿₴円元원]|zł|Kč|kr|Ft|lei|Rs|Fr|RM|Rp|[A-Z]{3}")


def find_prices(text: str) -> list[str]:
    """Every amount-with-currency in ``text``, whitespace normalized.

    >>> find_prices("from $349.00 (was 1.299,00\\xa0€), 129.99 USD; 42 pieces")
    ['$349.00', '1.299,00 €', '129.99 USD']
    >>> find_prices("1 299,00 zł · 4,980円(税込) · kr. 499,00 · CHF 1’299.00 · 1 290 Kč")
    ['1 299,00 zł', '4,980円', 'kr. 499,00', 'CHF 1’299.00', '1 290 Kč']
    >>> find_prices("₹1,29,999 (M.R.P. ₹ 1,49,990.00)")
    ['₹1,29,999', '₹ 1,49,990.00']
    """
    if not _DIGIT.search(text) or not _SIGN.search(text):
        return []
    return [" ".join(m.group(0).split()) for m in _PRICE.finditer(" ".join(text.split()))]


def price_texts(text: str) -> list[str]:
    """:func:`find_prices`, else the local-currency amounts of ``text``.

    >>> price_texts("499,00 kr"), price_texts("kr 1.299")
    (['499,00 kr'], ['kr 1.299'])
    """
    if not _DIGIT.search(text):
        return []
    return find_prices(text) or [" ".join(m.group(0).split()) for m in KRONA_PRICE.finditer(text)]


_PLAIN_DECIMAL = re.compile(r"^\s*[+-]?\d+(\.\d+)?\s*$")


def amount(value: Any) -> Decimal | None:
    """The amount of a price value or a visible price text; ``None`` for anything else.

    >>> amount("1.299,00 €"), amount(12), amount("12.50"), amount(True), amount("ask us")
    (Decimal('1299.00'), Decimal('12'), Decimal('12.50'), None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if not isinstance(value, str):
        return None
    try:
        if _PLAIN_DECIMAL.match(value):
            return Decimal(value.strip())
        found = Price.fromstring(value).amount
    except (InvalidOperation, ValueError):
        return None
    return found if isinstance(found, Decimal) else None


#: Form fields that carry the page's currency (PayPal's buy buttons, carts' hidden fields).
_CURRENCY_FIELDS = frozenset({"currency_code", "currency", "currencycode", "currency-code"})
_ISO_CODE = re.compile(r"[A-Z]{3}")


def declared_currency(document: Document) -> str | None:
    """The one currency the page's form fields declare (``<input type="hidden"
    name="currency_code" value="USD">``), or ``None`` when they declare none or several."""
    codes = {
        value
        for el in document.index().named("input")
        if (el.get("name") or "").casefold() in _CURRENCY_FIELDS
        and _ISO_CODE.fullmatch(value := (el.get("value") or "").strip().upper())
    }
    return codes.pop() if len(codes) == 1 else None


def text_prices(document: Document) -> list[str]:
    """The prices written in the body's visible text, piece by piece (at most 50; kept on
    its memo): what a record's price is compared with where no price container shows one
    (:class:`structcrawl.validate.page.PagePrices`)."""
    return list(document.memoized(TEXT_PRICES_MEMO, _text_prices))


def _text_prices(document: Document) -> list[str]:
    body = document.root.find("body")
    texts = _visible_pieces(body) if body is not None else []
    return [p for text in texts for p in find_prices(text)][:_MAX_TEXT_PRICES]


def _visible_pieces(root: Any) -> list[str]:
    """The visible text of ``root`` piece by piece (each element's own text and each tail
    apart: ``<b>K1</b>€5`` is not read as ``K1€5``), hidden and non-rendered subtrees left out."""
    pieces: list[str] = []
    stack = [root]
    while stack:
        el = stack.pop()
        if not rendered(el):
            continue
        if el.text and el.text.strip():
            pieces.append(el.text)
        children = list(el)
        for child in children:
            if child.tail and child.tail.strip():
                pieces.append(child.tail)
        stack.extend(reversed(children))
    return pieces
