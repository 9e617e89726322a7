"""What the page shows a reader, read once for every check, rule and fallback (pure).

* :mod:`.tree`: what "visible" means (one definition), visible text, struck-through text,
  the regions (navigation, asides, footers, controls, drawings) text may sit in;
* :mod:`.prices`: the one reader of shown prices and the one currency policy for ambiguous
  signs;
* :mod:`.compare`: how a value is compared with what the page shows;
* :mod:`.facts`: the facts the record checks and site rules read (title, headings,
  canonical URL, prices in price containers, times), each read only when asked for;
* :mod:`.evidence`: what a product page shows of its product (the price nearest the main
  heading, availability from stock wording and buy controls, labelled SKU and GTIN);
* :mod:`.words`: the wording those read, in several languages (data).
"""
