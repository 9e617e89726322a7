"""Visible-page evidence for a product: the price nearest the main heading, availability from
buy controls and stock wording, labelled SKU / article numbers and EANs (pure, no site code).

The page is read once, in document order, as a list of visible text pieces (not inside
``script``/``style``/``nav``/``footer``/``aside``/hidden elements). The main heading is the
first visible ``<h1>``. A price is a text piece that reads as an amount with a currency; it is
skipped when struck through (``del``/``s``/``strike`` or a class naming an old, compare or list
price) or when its own text or the words just before it say it is something else (instalments,
savings, shipping, thresholds, unit prices). The nearest remaining price after the heading wins
(before it, at double the distance).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.rules.visible import find_prices

__all__ = ["Evidence", "Piece", "page_evidence"]

_SKIP = frozenset({"script", "style", "template", "noscript", "head", "nav", "footer", "aside", "select", "option", "svg"})
_STRUCK = frozenset({"del", "s", "strike"})
_OLD_CLASS = re.compile(r"(?:^|[-_ ])(?:old|was|compare|compare-at|regular|strike|crossed|uvp|rrp|msrp|list|before|original|saving|savings|save|instal+ments?|klarna|shipping|related|recommend\w*|upsell|cross-?sell|teaser|sidebar|widget)(?:$|[-_ ])", re.I)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_DECOY_WORDS = re.compile(
    r"(?:\b(?:save|sparen|spare|ahorra|économisez|risparmi|bespaar|uvp|rrp|msrp|statt|was|war|avant|antes|"
    r"instal+ments?|raten|plazos?|mensualit|x\s*\d|klarna|afterpay|paypal|shop\s*pay|"
    r"shipping|versand|envío|envio|livraison|verzending|spedizione|frakt|delivery|lieferung|"
    r"free|gratis|kostenlos|gratuit|ab\b|over|über|dès|à partir de|a partir de|vanaf|"
    r"per|pro|je|/\s*(?:kg|l|m|100)|subscribe|abo|bundle|\d+\s*for)\b)",
    re.I,
)
_UNIT_AFTER = re.compile(r"^\s*(?:/|per\b|pro\b|je\b|le\b|la\b)\s*\S", re.I)
_OOS = re.compile(
    r"\b(?:out of stock|sold out|currently unavailable|no longer available|ausverkauft|nicht (?:mehr )?(?:auf lager|lieferbar|verfügbar)|"
    r"vergriffen|épuisé|epuise|rupture de stock|indisponible|agotado|sin stock|no disponible|uitverkocht|niet (?:op voorraad|leverbaar)|"
    r"esaurito|non disponibile|slutsåld|slut i lager|utsolgt|udsolgt|loppuunmyyty|wyprzedane|brak w magazynie|vyprodáno)\b|在庫切れ|売り切れ|品切れ|缺货|售罄",
    re.I,
)
_IN = re.compile(
    r"\b(?:in stock|available now|auf lager|sofort lieferbar|lieferbar|vorrätig|en stock|disponible|en existencia|op voorraad|"
    r"disponibile|i lager|på lager|varastossa|dostępny|skladem)\b|在庫あり",
    re.I,
)
_PREORDER = re.compile(r"\b(?:pre-?order|vorbestell\w*|précommande|pré-commande|reserva\w*|pre-?ordina|förbeställ\w*)\b|予約", re.I)
_BUY = re.compile(
    r"\b(?:add to (?:cart|bag|basket)|buy now|in den warenkorb|in den einkaufswagen|jetzt kaufen|ajouter au panier|acheter|"
    r"añadir al carrito|comprar|in winkelwagen|toevoegen aan winkelwagen|aggiungi al carrello|lägg i (?:varukorg|kundvagn)|köp|"
    r"legg i handlekurv|læg i kurv|lisää ostoskoriin|do koszyka|do košíku)\b|カートに入れる|加入购物车",
    re.I,
)
_SKU_LABEL = re.compile(
    r"(?:\bSKU|\bArt(?:ikel)?\.?\s*-?\s*N(?:r|o|um(?:mer)?)\.?|\bArtikelnummer|\bArticle\s*(?:number|no\.?)|\bItem\s*(?:#|no\.?|number)|"
    r"\bProduct\s*(?:code|number|no\.?)|\bProduktnummer|\bBestellnummer|\bR[ée]f(?:[ée]rence)?\.?|\bReferencia|\bRef\.|\bCodice(?:\s*articolo)?|"
    r"\bArtikelnr\.?|\bArt\.nr\.?|\bVarenr\.?|\bTuotenumero|品番|型番|商品コード)[\s:：#|]*(?=[A-Za-z\-_./]*\d)([A-Za-z0-9][A-Za-z0-9\-_./]{1,38}[A-Za-z0-9])\b"
)
_GTIN_LABEL = re.compile(r"\b(?:EAN(?:-?13)?|GTIN(?:-?1[234])?|UPC|Barcode|JAN)[\s:：#|]*(\d[\d ]{6,16}\d)\b", re.I)


@dataclass(slots=True)
class Piece:
    text: str
    el: etree._Element
    order: int
    struck: bool


@dataclass(slots=True)
class Evidence:
    heading: str | None = None
    price: str | None = None  # the price text nearest the heading ("49,90 EUR")
    price_path: str = ""
    availability: str | None = None
    availability_text: str | None = None
    sku: str | None = None
    sku_text: str | None = None
    gtin: str | None = None
    gtin_text: str | None = None
    prices: list[str] = field(default_factory=list)  # every visible non-struck price text


def _hidden(el: etree._Element) -> bool:
    return (
        el.get("hidden") is not None
        or (el.get("aria-hidden") or "").strip().lower() == "true"
        or bool(_HIDDEN_STYLE.search(el.get("style") or ""))
    )


def _old(el: etree._Element) -> bool:
    return el.tag in _STRUCK or bool(_OLD_CLASS.search(f"{el.get('class') or ''} {el.get('id') or ''}"))


def _pieces(root: etree._Element) -> tuple[list[Piece], int | None]:
    """Visible text pieces in document order, and the index of the first h1's first piece."""
    pieces: list[Piece] = []
    h1_at: int | None = None
    bodies = root.xpath("//body")
    stack: list[tuple[etree._Element | str, bool, etree._Element | None]] = [(bodies[0] if bodies else root, False, None)]
    while stack:
        node, struck, owner = stack.pop()
        if isinstance(node, str):
            if node.strip() and owner is not None:
                pieces.append(Piece(" ".join(node.split()), owner, len(pieces), struck))
            continue
        if not isinstance(node.tag, str) or node.tag in _SKIP or _hidden(node):
            if node.tail and owner is not None:
                pass
            continue
        if node.tag == "h1" and h1_at is None:
            h1_at = len(pieces)
        inner = struck or _old(node)
        kids: list[tuple[etree._Element | str, bool, etree._Element | None]] = []
        if node.text:
            kids.append((node.text, inner, node))
        for child in node:
            kids.append((child, inner, node))
            if child.tail:
                kids.append((child.tail, inner, node))
        stack.extend(reversed(kids))
    return pieces, h1_at


def _main_price(pieces: list[Piece], h1_at: int | None) -> tuple[str | None, Piece | None, list[str]]:
    best: tuple[float, str, Piece] | None = None
    shown: list[str] = []
    anchor = h1_at if h1_at is not None else 0
    for i, piece in enumerate(pieces):
        found = find_prices(piece.text)
        if not found or piece.struck:
            continue
        before = " ".join(p.text for p in pieces[max(0, i - 2) : i])[-40:]
        context = f"{before} {piece.text}"
        for text in found:
            if not re.search(r"[1-9]", text):
                continue
            shown.append(text)
            after = piece.text.split(text, 1)[-1]
            if _UNIT_AFTER.match(after) or _DECOY_WORDS.search(context.replace(text, " ")):
                continue
            distance = (i - anchor) if i >= anchor else 2 * (anchor - i)
            if best is None or distance < best[0]:
                best = (distance, text, piece)
    return (best[1], best[2], shown) if best else (None, None, shown)


def _availability(pieces: list[Piece], root: etree._Element, anchor: int) -> tuple[str | None, str | None]:
    near = sorted(range(len(pieces)), key=lambda i: abs(i - anchor))[:400]
    for i in near:
        text = pieces[i].text
        if len(text) > 160:
            continue
        for pattern, value in ((_PREORDER, "PreOrder"), (_OOS, "OutOfStock"), (_IN, "InStock")):
            if pattern.search(text):
                return value, text
    for el in root.xpath("//body//button|//body//input[@type='submit']|//body//a[contains(@class,'cart') or contains(@class,'buy')]"):
        label = " ".join(((el.get("value") or "") + " " + "".join(el.itertext())).split())
        if _BUY.search(label):
            disabled = el.get("disabled") is not None or "disabled" in (el.get("class") or "")
            return ("OutOfStock" if disabled else "InStock"), label
    return None, None


def page_evidence(document: Document) -> Evidence:
    """Visible-page evidence (see the module doc); empty fields where the page says nothing."""
    pieces, h1_at = _pieces(document.root)
    ev = Evidence()
    if h1_at is not None and h1_at < len(pieces):
        heads = document.root.xpath("//h1")
        ev.heading = " ".join("".join(heads[0].itertext()).split()) or None if heads else None
    ev.price, piece, ev.prices = _main_price(pieces, h1_at)
    if piece is not None:
        ev.price_path = document.path_of(piece.el)
    anchor = h1_at if h1_at is not None else 0
    ev.availability, ev.availability_text = _availability(pieces, document.root, anchor)
    full = " | ".join(p.text for p in pieces)
    m = _SKU_LABEL.search(full)
    if m:
        ev.sku, ev.sku_text = m.group(1), m.group(0)
    g = _GTIN_LABEL.search(full)
    if g:
        ev.gtin, ev.gtin_text = g.group(1).replace(" ", ""), g.group(0)
    return ev
