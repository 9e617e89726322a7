"""The wording the visible-page evidence reads, in several languages (data, pure).

Phrases are listed plainly and joined into case-insensitive patterns; add a language by adding
its phrases. English, German, French, Spanish, Dutch, Italian, Swedish, Norwegian, Danish,
Finnish, Polish, Czech and Japanese are covered.
"""

from __future__ import annotations

import re

from structcrawl.visible.folded import alternatives

__all__ = [
    "BUY",
    "DECOY_WORDS",
    "FROM_WORDS",
    "GTIN_LABEL",
    "HIDDEN_STYLE",
    "IN_STOCK",
    "OLD_CLASS",
    "OLD_PRICE_LABEL",
    "OUT_OF_STOCK",
    "PREORDER",
    "REGULAR_CLASS",
    "SKU_LABEL",
    "MODEL_LABEL",
    "REF_LABEL",
    "STRUCK",
    "UNIT_AFTER",
    "KRONA_PRICE",
    "CART_NAME",
]


def _words(*phrases: str, tail: tuple[str, ...] = ()) -> re.Pattern[str]:
    """``\\b(?:a|b|...)\\b`` plus ``tail`` alternatives without word boundaries (CJK). The
    phrases are guarded by the characters they can start with (``\\b(?=[ab])(?:a|b)\\b``,
    what they match unchanged): the alternation is not tried at a word that starts with
    none of them (half the search's time on a page's text)."""
    starts: set[str] = set()
    for phrase in phrases:
        found = _starts(phrase)
        if found is None:
            starts.clear()
            break
        starts |= found
    guard = "(?=[" + "".join(sorted(starts)) + "])" if starts else ""
    pattern = r"\b" + guard + "(?:" + "|".join(phrases) + r")\b"
    if tail:
        pattern += "|" + "|".join(tail)
    return re.compile(pattern, re.I)


_PLAIN = re.compile(r"[^\\()\[\]?*+{}|.^$]")


def _required(rest: str) -> bool:
    """Whether the atom before ``rest`` is there at least once (no ``?``, ``*``, ``{0,``)."""
    if rest[:1] in ("?", "*"):
        return False
    count = re.match(r"\{(\d*)", rest)
    return count is None or count.group(1) not in ("", "0")


def _starts(phrase: str) -> set[str] | None:
    """The characters ``phrase`` can start with, as members of a character class
    (``"(?:only )?\\d{1,4} left"`` -> ``{"o", "\\d"}``), None where it does not start plainly
    (a literal, a ``[...]`` of literals, ``\\d``, a group, optional or not)."""
    if not phrase:
        return None
    if _PLAIN.match(phrase[0]):
        return {re.escape(phrase[0])} if _required(phrase[1:]) else None
    if phrase[:2] in ("\\d", "\\w"):
        return {phrase[:2]} if _required(phrase[2:]) else None
    if phrase[0] == "[":
        end = phrase.find("]")
        inner = phrase[1:end]
        if end > 1 and all(_PLAIN.match(c) for c in inner) and _required(phrase[end + 1 :]):
            return {re.escape(c) for c in inner}
        return None
    if not phrase.startswith("(?:"):
        return None
    depth, at = 0, -1
    for i, char in enumerate(phrase):
        if char in "\\[":
            return None  # an escape or a class inside the group: not read here
        depth += (char == "(") - (char == ")")
        if depth == 0:
            at = i  # the group's closing parenthesis
            break
    if at < 0:
        return None
    found = [_starts(a) for a in alternatives(phrase[3:at])]
    rest = phrase[at + 1 :]
    if rest[:1] in ("?", "*"):
        found.append(_starts(rest[1:]))
    elif rest[:1] in ("+", "{"):
        return None
    out: set[str] = set()
    for part in found:
        if part is None:
            return None
        out |= part
    return out


#: Elements whose text is struck through (an old price).
STRUCK = frozenset({"del", "s", "strike"})
#: class/id words of elements that hold an old, compare-at or unrelated price (not a modifier
#: saying the element is shown with one: ``with-list-price``, ``has-old-price``).
OLD_CLASS = re.compile(
    r"(?:^|(?<!with)(?<!has)[-_ ])(?:"
    + "|".join(
        (
            "old", "was", "compare", "compare-at", "strike", "crossed", "uvp", "rrp",
            "msrp", r"list-?price", r"price-?list", "before", "original", "saving", "savings",
            "save", r"instal+ments?",
            "klarna", "shipping", "related", r"recommend\w*", "upsell", r"cross-?sell", "teaser",
            "sidebar", "widget",
        )
    )
    + r")(?:$|[-_ ])",
    re.I,
)  # fmt: skip
#: An inline style that strikes a price through.
STRUCK_STYLE = re.compile(r"text-decoration(?:-line)?\s*:[^;]*line-through", re.I)
#: A "regular" price: the old one on sale, the current one otherwise (themes differ).
REGULAR_CLASS = re.compile(r"(?:^|[-_ ])regular(?:$|[-_ ])", re.I)
#: id, class or name of a buy control ("add-to-cart-button", "addToCartButton", "buy_now",
#: "buy_btn", "btn-buy")
CART_NAME = re.compile(
    r"add[-_]?to[-_]?(?:cart|bag|basket|trolley)|buy[-_]?(?:now|btn|button)|(?:btn|button)[-_]?buy",
    re.I,
)
#: (the property itself: "-webkit-backface-visibility: hidden" hides nothing)
HIDDEN_STYLE = re.compile(r"(?:^|[;{\s])(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.I)
#: Words just before or around a price that make it something other than the price to pay.
DECOY_WORDS = _words(
    "save", "sparen", "spare", "ahorra", "économisez", "risparmi", "bespaar", "uvp", "rrp",
    "msrp", "statt", "was", "war", "avant", "antes", r"instal+ments?", "raten", r"plazos?",
    "mensualit", r"x\s*\d", "klarna", "afterpay", "paypal", r"shop\s*pay", "shipping",
    "versand", "envío", "envio", "livraison", "verzending", "spedizione", "frakt", "delivery",
    "lieferung", "free", "gratis", "kostenlos", "gratuit", "ab", "over", "über", "dès",
    "à partir de", "a partir de", "vanaf", "per", "pro", "je", r"/\s*(?:kg|l|m|100)",
    "subscribe", "abo", "bundle", r"\d+\s*for",
    # delivery, shipping and free in the other languages shops write them in
    "dostawa", "dostawy", "wysyłka", "darmowa", "doprava", "zdarma", "fragt", "frete", "kargo",
    "ücretsiz", "toimitus", "ilmainen", "piegāde", "tarne", "tasuta", "pristatymas", "доставка",
    "бесплатн\\w*", "توصيل", "الشحن", "شحن", "مجاني", "مجانية",
    # an auction's estimate and a premium's or saving's bound are no price to pay
    "estimate", r"schätz\w*", "estimation", "stima", r"estimaci[óo]n", "up to", "bis zu",
    "jusqu'à",
)  # fmt: skip
#: Words that make a price the lowest of several ("From $18.00", "ab 14,90 €"): a decoy for a
#: product page's price, the listed price on a listing's card.
FROM_WORDS = _words(
    "from", "ab", "dès", "à partir de", "a partir de", "vanaf", "desde", "da", "od", "fra", "från",
)  # fmt: skip
#: A label right after a price that names it the old one (often text for screen readers).
OLD_PRICE_LABEL = re.compile(
    r"^\W*(?:(?:regular|original|list|former|old)\s+price|was|compare at|prix barr[ée]|"
    r"prix d'origine|prezzo originale|precio original|pre[çc]o original|ursprünglicher preis|"
    r"statt|uvp|rrp)\b",
    re.I,
)
#: A unit price follows the amount ("51,60 € / 1 kg", "2,99 € pro Liter", "39,80 €* / 100 g").
UNIT_AFTER = re.compile(r"^[\s*†‡]*(?:/|per\b|pro\b|je\b|le\b|la\b)\s*\S", re.I)
OUT_OF_STOCK = _words(
    "out of stock", "sold out", "currently unavailable", "no longer available", "ausverkauft",
    r"nicht (?:mehr )?(?:auf lager|lieferbar|verfügbar)", "vergriffen", "épuisé", "epuise",
    "rupture de stock", "indisponible", "agotado", "sin stock", "no disponible", "uitverkocht",
    r"niet (?:op voorraad|leverbaar)", "esaurito", "non disponibile", "slutsåld",
    "slut i lager", "utsolgt", "udsolgt", "loppuunmyyty", "wyprzedane", "brak w magazynie",
    "vyprodáno", "vypredané", "nedostupné", "nie je skladom", "není skladem", "niedostępny",
    "nincs raktáron", "stoc epuizat", "indisponibil", "esgotado", "indisponível",
    "sem estoque", "sem stock", "нет в наличии", "распродано", "tükendi", "stokta yok",
    "nav noliktavā", "išparduota", "εξαντλήθηκε", "μη διαθέσιμο",
    "غير متوفر", "غير متاح", "نفذت الكمية", "نفدت الكمية", "نفذ من المخزون", "אזל מהמלאי",
    "לא במלאי", "hết hàng", "stok habis", "tidak tersedia", "немає в наявності",
    "немає на складі",
    tail=("สินค้าหมด",
          "在庫切れ", "売り切れ", "品切れ", "缺货", "售罄", "售完", "已售完", "缺貨", "품절",
          "일시품절"),
)  # fmt: skip
IN_STOCK = _words(
    "in stock", "available now", r"(?:only )?\d{1,4} (?:available|left)", "auf lager",
    "sofort lieferbar", "lieferbar", "vorrätig",
    "en stock", "disponible", "en existencia", "op voorraad", "disponibile", "i lager",
    "på lager", "varastossa", "dostępny", "skladem", "skladom", "na sklade", "na skladě",
    "raktáron", "în stoc", "em stock", "em estoque", "в наличии", "stokta", "ir noliktavā",
    "yra sandėlyje", "διαθέσιμο", "متوفر", "متاح", "במלאי", "còn hàng", "stok tersedia",
    "tersedia", "в наявності",
    tail=("มีสินค้า", "在庫あり", "有現貨", "有现货", "現貨", "现货", "재고있음"),
)  # fmt: skip
PREORDER = _words(
    "pre-?order", r"vorbestell\w*", "précommande", "pré-commande", "reservar ahora",
    "pre-?ordina", r"förbeställ\w*",
    tail=("予約",),
)  # fmt: skip
BUY = _words(
    r"add to (?:cart|bag|basket|trolley)", r"buy(?: it)? now", "order now", "compralo subito",
    "sofort-kaufen", "achat immédiat", r"c[óo]mpralo ya", "dodaj do koszyka",
    "vložiť do košíka", "kosárba", "adaugă în coș", "adicionar ao carrinho",
    "comprar agora", "в корзину", "sepete ekle", "pievienot grozam", "į krepšelį",
    "στο καλάθι", "in den warenkorb", "in den einkaufswagen",
    "jetzt kaufen", "ajouter au panier", "acheter", "añadir al carrito", "comprar",
    "in winkelwagen", "toevoegen aan winkelwagen", "aggiungi al carrello",
    r"lägg i (?:varukorg|kundvagn)", "köp", "legg i handlekurv", "læg i kurv",
    "lisää ostoskoriin", "do koszyka", "do košíku", "do košíka", "ielikt grozā", "pirkt",
    "lisa ostukorvi", "lisa korvi", "osta", "koupit", "přidat do košíku", "u košaricu",
    "v košarico", "køb", "læg i kurven", "kjøp",
    # an open auction's way to buy
    r"place (?:a )?bid", "bid now", "gebot abgeben", "jetzt bieten", "enchérir", "pujar",
    "licytuj",
    # Arabic, Hebrew, Vietnamese, Indonesian and Malay, Turkish, Ukrainian, Polish
    "أضف إلى السلة", "أضف الى السلة", "أضف للسلة", "إضافة إلى السلة", "اضف الى السلة",
    "اشتر الآن", "اشتري الآن", "הוסף לסל", "הוספה לסל", "קנה עכשיו", "thêm vào giỏ(?: hàng)?",
    "mua ngay", "tambah(?:kan)? ke (?:keranjang|troli)", "beli sekarang", "hemen al",
    "купити", "в кошик", "додати (?:в|до) кошика?", "kup teraz",
    tail=("หยิบใส่ตะกร้า", "ใส่ตะกร้า", "ซื้อเลย", "ซื้อทันที",
          "カートに入れる", "加入购物车", "장바구니", "구매하기", "바로구매", "加入購物車",
          "立即購買", "立即购买", "馬上購買", "马上购买", "放入購物車", "放入购物车",
          "立即訂購", "立即订购", "今すぐ購入", "カートに追加", "바로 구매"),
)  # fmt: skip
#: Labels of the shop's own article code, by language (SKU, ASIN, article / item / product
#: number, reference, deal number, ...).
_SKU_WORDS = (
    r"SKU", r"ASIN", r"Art(?:ikel)?\.?\s*-?\s*N(?:r|o|um(?:mer)?)\.?", r"Artikelnummer",
    r"Article\s*(?:number|no\.?|code)", r"(?:eBay\s*)?Item\s*(?:#|no\.?|number|code|ID)",
    r"Product\s*(?:code|number|no\.?|ID)", r"Produktnummer", r"Bestellnummer",
    r"Anzeigen?-?\s*(?:nummer|nr\.?)", r"Codice\s*articolo", r"Codice prodotto",
    r"Numero (?:oggetto|articolo)",
    r"Num[ée]ro (?:de l'objet|d'article|de l’objet|d’article)", r"N[°º] d'article",
    r"N[úu]mero de (?:art[íi]culo|producto|pe[çc]a)", r"C[óo]digo (?:de|do) produto",
    r"ID (?:Produto|Producto|Prodotto|Produit)", r"Artikelnr\.?", r"Art\.nr\.?",
    r"Varenr\.?", r"Varenummer", r"Tuotenumero", r"Tuotekoodi", r"Kod produktu",
    r"Nr katalogowy", r"K[óo]d (?:produktu|tovaru|zbo[žz][íi])", r"Katal[óo]gov[ée] [čc][íi]slo",
    r"Objedn[áa]vac[íi] k[óo]d", r"Cikksz[áa]m", r"Term[ée]kk[óo]d", r"Cod produs",
    r"Preces kods", r"Artikuls", r"Prek[ėe]s kodas", r"Tootekood", r"[ÜU]r[üu]n kodu",
    r"Stok kodu", r"Артикул", r"Код товара", r"Κωδικός(?: προϊόντος)?", r"Bestelnr\.?",
    r"Productcode", r"Bestelnummer", r"Код товару", r"Mã sản phẩm", r"Mã SP", r"Kode produk",
    r"Kode barang", r"رقم المنتج", r"رمز المنتج", r"كود المنتج", r"מק\"ט", r"מקט",
)  # fmt: skip
#: Labels of a reference or code that may be the shop's or the maker's: read where no article
#: code is labelled.
_REF_WORDS = (
    r"R[ée]f(?:[ée]rence)?\.?", r"Referencia", r"Refer[êe]ncia", r"Codice", r"C[óo]digo",
    r"C[óo]d\.",
)  # fmt: skip
#: Labels of a maker's model or part number: read only where no article code is labelled.
_MODEL_WORDS = (
    r"(?:Item\s*)?Model\s*(?:number|no\.?|#)", r"Part\s*(?:number|no\.?|#)",
    r"Mfr\.?\s*(?:part\s*)?#", r"MPN", r"Modell(?:nummer)?", r"Herstellernummer",
)  # fmt: skip
#: Labels without word boundaries (CJK), article codes then model numbers.
_SKU_CJK = ("品番", "商品コード", "商品番号", "商品編號", "商品编号", "货号", "貨號", "產品編號",
            "상품번호", "딜번호", "품번", "รหัสสินค้า")  # fmt: skip
_MODEL_CJK = ("型番", "모델번호", "型號", "型号")
#: a separator (after one more word: "Numero oggetto eBay:"), then a code holding a digit
_CODE = (
    r"(?:\s+[^\W\d_]{2,12}\s*[:：])?[\s:：#|]*(?=[a-z\-_./]*\d|[a-z0-9]+[-_][a-z0-9])"
    r"([a-z0-9][a-z0-9\-_./]{1,38}[a-z0-9])\b"
)


def _first_letters(words: tuple[str, ...], cjk: tuple[str, ...]) -> str:
    """The letters a label can start with: a cheap lookahead that, after the word-start test,
    spares the alternation at nearly every position of a page's text (an optional "eBay"
    before "Item" starts it with e or I, "[ÜU]r..." with Ü or U)."""
    first: set[str] = set()
    for word in words:
        head = word
        while head.startswith("(?:"):  # an optional or grouped start: both ways in
            inner, _, rest = head[3:].partition(")")
            first.update(_first_letters(tuple(inner.split("|")), ()))
            head = rest.lstrip("?*")
        if head.startswith("["):
            first.update(head[1 : head.index("]")])
        elif head:
            first.add(head[0])
    first.update(c[0] for c in cjk)
    return "".join(sorted(first - {"\\"}))


def _label(words: tuple[str, ...], cjk: tuple[str, ...]) -> re.Pattern[str]:
    # the words in lowercase (their escapes are all lowercase: ``\\s``, ``\\.``): the pattern is
    # case-insensitive, so it matches as it would with them as written, and it can be searched
    # in lowercased text (structcrawl.visible.folded), as _CODE's letters are written
    words = tuple(word.lower() for word in words)
    first = re.escape(_first_letters(words, ()))
    # a label ends at a word's end, or with its own sign ("Item #B214": no boundary after "#")
    latin = rf"(?<![^\W\d_])(?=[{first}])(?:" + "|".join(words) + r")(?:(?<=\W)|(?![^\W\d_]))"
    if not cjk:
        return re.compile(latin + _CODE, re.I)
    # the CJK labels too behind one guard: each position of the text is tested once against
    # the letters any label starts with, not against each label (a third of the search's time)
    either = re.escape(_first_letters(words, cjk))
    return re.compile(rf"(?=[{either}])(?:" + "|".join((latin, *cjk)) + ")" + _CODE, re.I)


#: A labelled SKU / article number: the label, a separator, a code holding a digit.
SKU_LABEL = _label(_SKU_WORDS, _SKU_CJK)
#: A labelled reference or code (a SKU where the page labels no article code).
REF_LABEL = _label(_REF_WORDS, ())
#: A labelled model or part number (a SKU where the page labels no article code).
MODEL_LABEL = _label(_MODEL_WORDS, _MODEL_CJK)
GTIN_LABEL = re.compile(
    r"\b(?=[egubj])(?:ean(?:-?13)?|gtin(?:-?1[234])?|upc|barcode|jan)[\s:：#|]*(\d[\d ]{6,16}\d)\b",
    re.I,
)

#: Prices in currencies the general price finder leaves out: kronor/kroner (``kr`` alone names
#: no one currency), złoty, koruna, forint, leu, lev, rouble, hryvnia, Turkish lira, dong,
#: kuna, and the Arab countries' riyal, dirham, pound and dinar as their shops abbreviate them
#: ("499,00 kr", "129,99 zł", "1 290 Kč", "kr 1.299", "1.299,90 TL", "99.00 ر.س").
_LOCAL_SIGNS = (
    r"(?:kr\.?|zł|zl|Kč|Ft|lei|лв\.?|руб\.?|грн\.?|(?-i:TL|đ|kn)|PLN|CZK|HUF|RON|NOK|DKK|SEK"
    r"|ISK|BGN"
    r"|ر\.س|د\.إ|ج\.م|د\.ك|ر\.ق|د\.ب|ر\.ع|د\.أ)"
)
_LOCAL_AMOUNT = r"\d{1,3}(?:[. \u00a0]\d{3})*(?:[.,]\d{2}(?!\d)|,-)?"
KRONA_PRICE = re.compile(
    rf"(?<![\w.,-]){_LOCAL_AMOUNT}\s?{_LOCAL_SIGNS}(?!\w)"
    rf"|(?<![\w-]){_LOCAL_SIGNS}\s?{_LOCAL_AMOUNT}(?![\w,])",
    re.I,
)
