"""Item-level change tracking across runs: changed fields, gone items, price history."""

from __future__ import annotations

from structcrawl.changes.items import ItemTracker, item_key
from structcrawl.typed import page_items

PAGE = "https://shop.example/p/kettle"


def kettle(price: str, stock: str) -> bytes:
    return (
        b'<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product",'
        b'"name":"Kettle","sku":"K-1","offers":{"@type":"Offer","price":"%s","priceCurrency":"EUR",'
        b'"availability":"https://schema.org/%s"}}</script><h1>Kettle</h1>'
        % (price.encode(), stock.encode())
    )


def run(path, seen, bodies):
    tracker = ItemTracker(path, scope="shop")
    changes = []
    for url, body in bodies:
        changes += tracker.observe(page_items(body, url, "text/html"), seen=seen, page_url=url)
    gone = tracker.finish()
    history = tracker.history(item_key({"type": "Product", "sku": "K-1"}, PAGE))
    tracker.close()
    return changes, gone, history


def test_fields_that_changed_and_price_history_over_runs(tmp_path):
    db = tmp_path / "items.sqlite"
    mug = (
        "https://shop.example/p/mug",
        kettle("5.00", "InStock").replace(b"K-1", b"M-1").replace(b"Kettle", b"Mug"),
    )
    first, gone, _ = run(db, "2026-03-01", [(PAGE, kettle("39.00", "InStock")), mug])
    assert [c["status"] for c in first] == ["new", "new"] and gone == []
    second, gone, _ = run(db, "2026-03-02", [(PAGE, kettle("39.00", "InStock")), mug])
    assert [c["status"] for c in second] == ["unchanged", "unchanged"]
    third, gone, history = run(db, "2026-03-03", [(PAGE, kettle("34.90", "OutOfStock"))])
    (change,) = third
    assert change["status"] == "changed"
    assert {"price", "availability"} <= set(change["fields"]) and "sku" not in change["fields"]
    assert [g["status"] for g in gone] == ["gone"] and gone[0]["key"].endswith(":m-1")
    assert [(h["seen"], h["price"], h["availability"]) for h in history] == [
        ("2026-03-01", "39.00", "InStock"),
        ("2026-03-02", "39.00", "InStock"),
        ("2026-03-03", "34.90", "OutOfStock"),
    ]


def test_history_before_the_commit_has_this_runs_observations_of_that_item_only(tmp_path):
    tracker = ItemTracker(tmp_path / "items.sqlite", scope="shop")
    kettles = [(f"{PAGE}?v={n}", kettle(f"{30 + n}.00", "InStock")) for n in range(3)]
    mug = kettle("5.00", "InStock").replace(b"K-1", b"M-1").replace(b"Kettle", b"Mug")
    for seen, (url, body) in enumerate([kettles[0], (PAGE, mug), kettles[1], kettles[2]]):
        items = page_items(body, url, "text/html")
        tracker.observe(items, seen=f"2026-03-0{seen + 1}", page_url=url)
    key = item_key({"type": "Product", "sku": "K-1"}, PAGE)
    assert [h["price"] for h in tracker.history(key)] == ["30.00", "31.00", "32.00"]
    assert [h["price"] for h in tracker.history(key, 2)] == ["31.00", "32.00"]
    assert [
        h["price"] for h in tracker.history(item_key({"type": "Product", "sku": "M-1"}, PAGE))
    ] == ["5.00"]
    tracker.finish()  # committed: read from the table, nothing left pending
    assert [h["price"] for h in tracker.history(key)] == ["30.00", "31.00", "32.00"]
    tracker.close()
