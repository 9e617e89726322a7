"""A seeded generator of realistic pages for the benchmarks.

Pages are 60-150 KB: a navigation menu, inline styles and scripts, article or product text,
JSON-LD with ``@graph`` on every page, Microdata on a third, RDFa (schema.org) on half, Open
Graph and Twitter meta tags on most, microformats on a few. The same seed gives the same pages.
"""

from __future__ import annotations

import json
import random

__all__ = ["generate_pages"]

_WORDS = (
    "trail outdoor running jacket waterproof summit alpine gear light weight shell fleece "
    "mountain route ascent river camp forest stove tent lantern boots socks merino layer "
    "review guide season winter spring autumn coast ridge valley glacier hike climb"
).split()


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def _nav(rng: random.Random) -> str:
    items = "".join(
        f'<li class="nav-item"><a href="/c/{i}/{rng.choice(_WORDS)}.html">{_text(rng, 2)}</a>'
        f'<ul class="sub">{"".join(f"<li><a href=/c/{i}/{j}.html>{_text(rng, 2)}</a></li>" for j in range(8))}</ul></li>'
        for i in range(rng.randint(12, 20))
    )
    return f'<nav class="main-nav"><ul>{items}</ul></nav>'


def _style(rng: random.Random) -> str:
    rules = "".join(
        f".c{i} {{ margin: {rng.randint(0, 20)}px; color: #{rng.randint(0, 0xFFFFFF):06x}; }}\n"
        for i in range(rng.randint(150, 400))
    )
    return f"<style>{rules}</style>"


def _script(rng: random.Random) -> str:
    body = "".join(
        f"function f{i}(a, b) {{ return a * {rng.randint(1, 99)} + b; }}\n"
        for i in range(rng.randint(100, 300))
    )
    return f"<script>{body}</script>"


def _jsonld(rng: random.Random, i: int) -> str:
    url = f"https://shop.example/p/{i}"
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebPage", "@id": f"{url}#page", "url": url, "name": _text(rng, 5)},
            {
                "@type": "Product",
                "@id": f"{url}#product",
                "name": _text(rng, 4),
                "sku": f"SKU-{i}",
                "image": [f"/img/{i}-{k}.jpg" for k in range(3)],
                "description": _text(rng, 40),
                "brand": {"@type": "Brand", "name": _text(rng, 1)},
                "offers": {
                    "@type": "Offer",
                    "price": f"{rng.randint(5, 500)}.{rng.randint(0, 99):02d}",
                    "priceCurrency": "EUR",
                    "availability": "https://schema.org/InStock",
                },
                "aggregateRating": {
                    "@type": "AggregateRating",
                    "ratingValue": "4.5",
                    "reviewCount": 12,
                },
            },
            {
                "@type": "BreadcrumbList",
                "itemListElement": [
                    {
                        "@type": "ListItem",
                        "position": k + 1,
                        "name": _text(rng, 1),
                        "item": f"/c/{k}",
                    }
                    for k in range(3)
                ],
            },
            {
                "@type": "Organization",
                "@id": "https://shop.example/#org",
                "name": "Shop",
                "logo": "/l.png",
            },
        ],
    }
    return f'<script type="application/ld+json">{json.dumps(graph)}</script>'


def _microdata(rng: random.Random) -> str:
    reviews = "".join(
        f'<div itemprop="review" itemscope itemtype="https://schema.org/Review">'
        f'<span itemprop="author">{_text(rng, 2)}</span><p itemprop="reviewBody">{_text(rng, 30)}</p>'
        f'<meta itemprop="datePublished" content="2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"></div>'
        for _ in range(rng.randint(2, 6))
    )
    return (
        '<div itemscope itemtype="https://schema.org/Product"><h2 itemprop="name">'
        f'{_text(rng, 3)}</h2><img itemprop="image" src="/m.jpg"><div itemprop="offers" itemscope '
        'itemtype="https://schema.org/Offer"><span itemprop="price">19.99</span>'
        f'<meta itemprop="priceCurrency" content="EUR"></div>{reviews}</div>'
    )


def _rdfa(rng: random.Random) -> str:
    return (
        '<div vocab="https://schema.org/" typeof="Article"><h2 property="headline">'
        f'{_text(rng, 6)}</h2><span property="author" typeof="Person"><span property="name">'
        f'{_text(rng, 2)}</span></span><time property="datePublished" datetime="2025-03-01">'
        f'March</time><div property="articleBody">{_text(rng, 80)}</div></div>'
    )


def _meta(rng: random.Random, i: int) -> str:
    tags = [
        ("og:type", "product"),
        ("og:title", _text(rng, 4)),
        ("og:description", _text(rng, 20)),
        ("og:url", f"https://shop.example/p/{i}"),
        ("og:image", f"/img/{i}.jpg"),
        ("og:image:width", "1200"),
        ("og:image:height", "630"),
        ("og:site_name", "Shop"),
        ("product:price:amount", "19.99"),
        ("product:price:currency", "EUR"),
    ]
    og = "".join(f'<meta property="{k}" content="{v}">' for k, v in tags)
    tw = '<meta name="twitter:card" content="summary_large_image"><meta name="twitter:site" content="@shop">'
    return og + tw


def _hcard(rng: random.Random) -> str:
    return (
        f'<div class="h-card"><a class="p-name u-url" href="/team/1">{_text(rng, 2)}</a>'
        f'<span class="p-org">Shop</span></div>'
    )


def _page(rng: random.Random, i: int) -> bytes:
    target = rng.randint(60_000, 150_000)
    head = [
        f"<title>{_text(rng, 6)}</title>",
        '<meta charset="utf-8">',
        _style(rng),
        _jsonld(rng, i),
    ]
    if rng.random() < 0.85:
        head.append(_meta(rng, i))
    body = [_nav(rng), _script(rng)]
    if i % 3 == 0:
        body.append(_microdata(rng))
    if rng.random() < 0.5:
        body.append(_rdfa(rng))
    if rng.random() < 0.1:
        body.append(_hcard(rng))
    html = f"<!doctype html><html lang=en><head>{''.join(head)}</head><body>{''.join(body)}"
    filler = []
    size = len(html)
    while size < target:
        para = f'<section class="c{rng.randint(0, 99)}"><h3>{_text(rng, 5)}</h3><p>{_text(rng, 120)}</p></section>'
        filler.append(para)
        size += len(para)
    return (html + "".join(filler) + "<footer>(c) Shop</footer></body></html>").encode()


def generate_pages(n: int, seed: int = 20261129) -> list[tuple[str, bytes]]:
    """``n`` pages as ``(url, body)``."""
    rng = random.Random(seed)
    return [(f"https://shop.example/p/{i}", _page(rng, i)) for i in range(n)]
